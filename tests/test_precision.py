"""--precision bfloat16 (algorithms/precision.py, models/precision.py): the
machine check on fake /proc/cpuinfo texts (refused and accepted), the
refusal through the real command (and the benchmark script) on a machine
without BF16, the option through the variant, and, with the expert
override, bfloat16 updates of every registered algorithm: float32 weights
and optimizer slots, matrix products in bfloat16, losses close to
float32's on the same minibatch, a checkpoint that resumes exactly and
whose policy loads as float32."""

import contextlib
import copy
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assign_values,
                               checkpointed_variables, fill_pool,
                               make_algorithm, values_of)
from checkpoint_helpers import (assert_resume_is_exact, make_runner,
                                tiny_variant)
from conftest import (FAKE_TENSORFLOW_STARTUP, REPO_ROOT,
                      TENSORFLOW_IMPORTED, assert_one_line_error, run_cli)
from softlearning.algorithms.fused_updates import batch_signature
from softlearning.algorithms.precision import (
    ALLOW_ENV, check_networks, machine_refusal, native_bfloat16, xla_notice)
from softlearning.models.precision import network_precision
from softlearning.utils.machine import nvidia_gpu_visible

ZEN3 = ('processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n'
        'flags\t\t: fpu sse2 avx avx2 fma\n')
ICE_LAKE = ('model name\t: Intel(R) Xeon(R) Platinum 8375C CPU\n'
            'flags\t\t: fpu sse2 avx avx2 avx512f avx512bw avx512_vnni\n')
ZEN4 = ('model name\t: AMD EPYC 9R14 96-Core Processor\n'
        'flags\t\t: fpu avx avx2 avx512f avx512_bf16 avx512_vnni\n')
# A CPU with AMX's bfloat16 tiles and not AVX512_BF16 (no such CPU is
# sold: the flag alone must be enough).
AMX_ONLY = 'flags\t\t: fpu avx avx2 avx512f amx_bf16 amx_tile amx_int8\n'
GRAVITON = 'processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n'
REFUSAL = ('--precision bfloat16: this CPU has neither AVX512_BF16 nor '
           'AMX-BF16 (flags read from /proc/cpuinfo) and no GPU is visible; '
           'bfloat16 matmuls would be emulated and no faster than float32. '
           'Valid choices here: float32 (or set SOFTLEARNING_ALLOW_BFLOAT16=1'
           ' to run it emulated).')


# The machine check ---------------------------------------------------------

@pytest.mark.parametrize('cpuinfo', [ZEN3, ICE_LAKE, GRAVITON, ''])
def test_a_cpu_without_bfloat16_and_no_gpu_is_refused(cpuinfo):
    assert not native_bfloat16(cpuinfo, gpu=False)
    assert machine_refusal(cpuinfo=cpuinfo, gpu=False, environ={}) == REFUSAL


@pytest.mark.parametrize('cpuinfo', [ZEN4, AMX_ONLY])
def test_avx512_bf16_or_amx_bf16_is_accepted(cpuinfo):
    assert native_bfloat16(cpuinfo, gpu=False)
    assert machine_refusal(cpuinfo=cpuinfo, gpu=False, environ={}) is None


def test_a_visible_gpu_or_the_override_is_accepted():
    assert machine_refusal(cpuinfo=ZEN3, gpu=True, environ={}) is None
    assert machine_refusal(cpuinfo=ZEN3, gpu=False,
                           environ={ALLOW_ENV: '1'}) is None
    assert machine_refusal(cpuinfo=ZEN3, gpu=False,
                           environ={ALLOW_ENV: '0'}) == REFUSAL
    named = machine_refusal('algorithm_params.config.precision bfloat16',
                            cpuinfo=ZEN3, gpu=False, environ={})
    assert named.startswith('algorithm_params.config.precision bfloat16: ')


def test_nvidia_gpus_are_read_from_the_driver_and_cuda_visible_devices(
        tmp_path):
    gpus = tmp_path / 'gpus'
    assert not nvidia_gpu_visible(str(gpus), environ={})  # no driver
    gpus.mkdir()
    assert not nvidia_gpu_visible(str(gpus), environ={})  # no GPU
    (gpus / '0000:00:04.0').mkdir()
    assert nvidia_gpu_visible(str(gpus), environ={})
    assert nvidia_gpu_visible(str(gpus),
                              environ={'CUDA_VISIBLE_DEVICES': '0'})
    for hidden in ('', '-1', '-1,0'):
        assert not nvidia_gpu_visible(
            str(gpus), environ={'CUDA_VISIBLE_DEVICES': hidden})


def test_the_command_refuses_bfloat16_here_before_ray_and_tensorflow(
        tmp_path):
    environ = {key: value for key, value in os.environ.items()
               if key != ALLOW_ENV}
    if machine_refusal(environ=environ) is None:
        pytest.skip('this machine multiplies bfloat16 natively')
    result = run_cli('run_example_local', 'examples.development',
                     '--algorithm', 'SAC', '--universe', 'gym', '--domain',
                     'Pendulum', '--task', 'v1', '--precision', 'bfloat16',
                     '--local-dir', tmp_path / 'results', environ=environ,
                     env={'TMPDIR': str(tmp_path)}, timeout=300)
    assert_one_line_error(result, REFUSAL)
    # Ray writes its session folder under TMPDIR as it starts.
    assert not (tmp_path / 'ray').exists()


def test_the_benchmark_refuses_bfloat16_here_before_tensorflow():
    environ = {key: value for key, value in os.environ.items()
               if key != ALLOW_ENV}
    if machine_refusal(environ=environ) is None:
        pytest.skip('this machine multiplies bfloat16 natively')
    environ['PYTHONPATH'] = os.pathsep.join([FAKE_TENSORFLOW_STARTUP,
                                             REPO_ROOT])
    result = subprocess.run(
        [sys.executable, 'benchmarks/precision_update.py', '--widths', '8'],
        cwd=REPO_ROOT, env=environ, capture_output=True, text=True,
        timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        'precision_update.py: error: '
        + REFUSAL.replace('--precision bfloat16', 'bfloat16 updates')]
    assert TENSORFLOW_IMPORTED not in result.stderr


# The option, through the variant ------------------------------------------

def test_precision_goes_into_the_algorithms_config(monkeypatch, capsys):
    from softlearning import experiments
    monkeypatch.setenv(ALLOW_ENV, '1')
    default = experiments.variant_spec(algorithm='SAC', cpus=2)
    assert default['algorithm_params']['config']['precision'] == 'float32'
    # The networks' precision is the update's: not a key of theirs.
    assert 'precision' not in default['Q_params']['config']
    assert 'precision' not in default['policy_params']['config']
    capsys.readouterr()
    tqc = experiments.variant_spec(algorithm='TQC', precision='bfloat16',
                                   cpus=2)['algorithm_params']['config']
    assert (tqc['precision'], tqc['jit_compile']) == ('bfloat16', False)
    assert "without the preset's XLA" in capsys.readouterr().err
    kept = experiments.variant_spec(
        algorithm='TQC', precision='bfloat16', cpus=2,
        config={'algorithm_params.config.jit_compile': True})
    assert kept['algorithm_params']['config']['jit_compile'] is True
    assert 'kept, as you set it' in capsys.readouterr().err
    with pytest.raises(experiments.ExperimentError,
                       match="Unknown precision 'float16'; valid: float32, "
                             "bfloat16"):
        experiments.variant_spec(cpus=2, config={
            'algorithm_params.config.precision': 'float16'})


def test_a_searched_precision_is_checked_value_by_value(monkeypatch):
    """A grid over precisions: each value is one of them, and bfloat16
    among them is refused on a CPU without BF16 (here faked)."""
    from softlearning import experiments
    from softlearning.utils import machine
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    monkeypatch.setattr(machine, 'read_cpuinfo', lambda: ZEN3)
    monkeypatch.setattr(machine, 'nvidia_gpu_visible', lambda **_: False)
    grid = {'algorithm_params.config.precision': {
        'grid_search': ['float32', 'bfloat16']}}
    with pytest.raises(experiments.ExperimentError) as error:
        experiments.variant_spec(cpus=2, config=grid)
    assert str(error.value) == REFUSAL.replace(
        '--precision bfloat16', 'algorithm_params.config.precision bfloat16')
    # A cluster's trials run on its nodes: not checked here.
    assert experiments.experiment(run='cluster', config=grid)
    with pytest.raises(experiments.ExperimentError, match="Unknown precision"
                                                          " 'half'"):
        experiments.variant_spec(cpus=2, config={
            'algorithm_params.config.precision': {
                'grid_search': ['float32', 'half']}})


def test_xla_is_off_under_bfloat16_unless_the_user_asks():
    from softlearning.algorithms.compilation import resolve_jit_compile
    assert not resolve_jit_compile('auto', extension='AVX-512', gpu=True,
                                   precision='bfloat16')
    assert resolve_jit_compile('auto', extension='AVX-512', gpu=False)
    assert resolve_jit_compile(True, precision='bfloat16') is True
    assert xla_notice('float32', True, given=False) == (True, None)
    assert xla_notice('bfloat16', 'auto', given=False) == ('auto', None)
    assert xla_notice('bfloat16', True, given=False)[0] is False
    assert xla_notice('bfloat16', True, given=True)[0] is True


def test_the_trainable_builds_every_network_in_the_updates_precision(
        monkeypatch):
    from softlearning.experiments.trial.build import build_components
    monkeypatch.setenv(ALLOW_ENV, '1')
    variant = tiny_variant(algorithm='TD3', domain='Pendulum', task='v1',
                           precision='bfloat16')
    components = build_components(variant, seed=1)
    networks = [components.policy.model, *(Q.model for Q in components.Qs),
                *(Q.model for Q in components.algorithm.Q_targets),
                components.algorithm._policy_target.model]
    assert [network_precision(model) for model in networks] == [
        'bfloat16'] * len(networks)


def test_an_update_refuses_networks_of_another_precision():
    from softlearning import environments, policies
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    policy = policies.get({'class_name': 'FeedforwardGaussianPolicy',
                           'config': {'hidden_layer_sizes': (4,)}}, env)
    assert network_precision(policy.model) == 'float32'
    with pytest.raises(ValueError, match=r'SAC updates in bfloat16, but not '
                                         r'all its networks do \(policy: '):
        check_networks('bfloat16', {'policy': policy.model}, 'SAC')
    assert check_networks('float32', {'policy': policy.model},
                          'SAC') == 'float32'


# bfloat16 updates (with the override: this machine may lack BF16) -----------

def _mixed_and_float32(class_name, **settings):
    """A float32 and a bfloat16 algorithm from the same weights, and the
    float32 one's pool (300 uniform transitions)."""
    float32, _, _, pool, sampler, uniform = make_algorithm(
        class_name, seed=3, **settings)
    mixed = make_algorithm(class_name, seed=3, precision='bfloat16',
                           **settings)[0]
    fill_pool(pool, sampler, uniform)
    assign_values(checkpointed_variables(mixed),
                  values_of(checkpointed_variables(float32)))
    return float32, mixed, pool


def _matmul_dtypes(algorithm):
    """The dtypes of the matrix products of one traced update."""
    spec = tf.nest.map_structure(
        lambda batches: tf.TensorSpec(batches.shape[1:], batches.dtype),
        batch_signature(algorithm._pool))
    graph = tf.function(algorithm._update, input_signature=[spec],
                        autograph=False).get_concrete_function().graph
    return [op.get_attr('T').name for op in graph.get_operations()
            if op.type == 'MatMul']


def _assert_float32_state(algorithm):
    """Every number a checkpoint keeps (weights, running statistics, the
    optimizers' slots) is float32; only counters and random states are
    integers."""
    dtypes = {variable.dtype for variables in
              checkpointed_variables(algorithm).values()
              for variable in variables}
    assert dtypes <= {tf.float32, tf.int64}, dtypes
    slots = [variable for optimizer in algorithm._optimizers.values()
             for variable in optimizer.variables[1:]]
    assert slots and {slot.dtype for slot in slots} == {tf.float32}


@contextlib.contextmanager
def _eagerly():
    """Updates run op by op: one update of SimbaV2's costs a second so, and
    ten to trace (the compiled path is every algorithm's epoch below)."""
    tf.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        tf.config.run_functions_eagerly(False)


def _assert_close_to_float32(float32, mixed, pool):
    """One update of each on the same minibatch (eagerly): finite
    diagnostics within bfloat16's reach of float32's. Measured on Pendulum
    (SAC and TD3 at widths 16, 64 and 256; SimbaV2's networks at 16 and
    128; ten minibatches of 256 each): losses above 1 within 0.2% of
    float32's, values below 1 within 0.004 of them (bfloat16's 8
    significant bits: 2^-8 = 0.0039). The bound, 2% of max(|value|, 1), is
    five times the worst seen; and bfloat16 does differ from float32
    somewhere."""
    batch = as_tensors(pool.random_batch(256))
    with _eagerly():
        expected = float32._counted_update(batch)
        got = mixed._counted_update(batch)
    assert set(got) == set(expected)
    for key in expected:
        a, b = float(expected[key]), float(got[key])
        assert math.isfinite(b), key
        assert abs(a - b) <= 0.02 * max(abs(a), 1.0), (key, a, b)
    assert any(float(expected[key]) != float(got[key]) for key in expected)


def test_a_bfloat16_sac_update_is_float32s_within_bfloat16s_reach():
    float32, mixed, pool = _mixed_and_float32('SAC')
    # The hidden layers multiply in bfloat16, the output layers in float32.
    dense = mixed._policy.model.layers
    assert [layer.compute_dtype for layer in dense] == [
        'bfloat16', 'bfloat16', 'float32']
    assert dense[0].variable_dtype == 'float32'
    assert set(_matmul_dtypes(float32)) == {'float32'}
    assert {'bfloat16', 'float32'} == set(_matmul_dtypes(mixed))
    _assert_close_to_float32(float32, mixed, pool)
    _assert_float32_state(mixed)


def test_a_bfloat16_categorical_simbav2_update_is_float32s_within_reach():
    """SimbaV2's networks (hyperspherical normalizations, scalers, LERP
    blocks) with categorical critics (101 atoms): the SimbaV2 preset's
    update, at 16 units."""
    float32, mixed, pool = _mixed_and_float32(
        'SAC',
        Q_config={'network': 'simbav2', 'categorical': {
            'n_atoms': 101, 'v_min': -5.0, 'v_max': 5.0}},
        policy_config={'network': 'simbav2', 'hidden_layer_sizes': (16,)})
    assert mixed._critic_head.support is not None
    _assert_close_to_float32(float32, mixed, pool)
    _assert_float32_state(mixed)
    # The optimizer's constraint keeps the float32 kernels on the sphere.
    kernel = mixed.Qs[0].model.layers[1].dense.kernel
    np.testing.assert_allclose(np.linalg.norm(kernel.numpy(), axis=0), 1.0,
                               rtol=1e-5)


# Smaller than the presets where their size costs time and tests nothing
# here (REDQ's ten critics, 20 updates per step).
SMALLER = {'REDQ': {'Q_params.config.n_Q_functions': 3},
           'DroQ': {}}


def _bfloat16_variant(name, **options):
    config = dict(SMALLER.get(name, {}))
    if name in SMALLER:
        config.update({'algorithm_params.config.n_train_repeat': 2,
                       'algorithm_params.config.policy_delay': 2})
    return tiny_variant(algorithm=name, domain='Pendulum', task='v1',
                        precision='bfloat16', config=config, **options)


# One agent per kind of network and update an algorithm builds: plain MLP
# critics (SAC, and SQL's value network), deterministic actors with a
# target policy (TD3), batch renormalization without target networks
# (CrossQ), dropout and layer normalization with many critics (DroQ),
# hyperspherical SimbaV2 networks, categorical critics over normalized
# MLPs (FastTD3); the conformance tests train every registered one in
# float32, and the trial hands every network the update's precision in one
# place (test_the_trainable_builds_every_network_in_the_updates_precision).
BFLOAT16_EPOCHS = ('SAC', 'SQL', 'TD3', 'CrossQ', 'DroQ', 'SimbaV2', 'FastTD3')


@pytest.mark.parametrize('name', BFLOAT16_EPOCHS)
def test_each_kind_of_agent_trains_an_epoch_in_bfloat16(
        name, monkeypatch):
    monkeypatch.setenv(ALLOW_ENV, '1')
    runner = make_runner(_bfloat16_variant(name, epochs=1))
    result = runner.train()
    assert result['num_train_steps'] > 0
    for key in runner.algorithm.training_diagnostic_keys:
        assert math.isfinite(result[key]), key
    assert network_precision(runner.policy.model) == 'bfloat16'
    _assert_float32_state(runner.algorithm)


def test_a_bfloat16_checkpoint_resumes_exactly_and_loads_as_float32(
        tmp_path, monkeypatch):
    """It resumes exactly in bfloat16; its policy loads as float32 for
    simulate and export (the same weights as the numpy policy's); a float32
    run starts from it and trains."""
    from softlearning import environments
    from softlearning.experiments.trial.policy_loading import (
        load_numpy_policy, load_policy)
    monkeypatch.setenv(ALLOW_ENV, '1')
    variant = _bfloat16_variant('SAC')
    checkpoint = tmp_path / 'checkpoint_000002'
    runner = make_runner(variant)
    runner.train()
    assert_resume_is_exact(variant, checkpoint, runner=runner)
    environment = environments.get_environment_from_params(
        variant['environment_params']['training'])
    policy = load_policy(str(checkpoint), variant, environment)
    assert network_precision(policy.model) == 'float32'
    saved = [w for w in load_numpy_policy(str(checkpoint), variant,
                                          environment).get_weights()]
    loaded = policy.get_weights()
    assert [w.dtype for w in loaded] == [np.float32] * len(loaded)
    for a, b in zip(saved, loaded):
        np.testing.assert_array_equal(a, b)
    float32 = copy.deepcopy(variant)
    float32['algorithm_params']['config']['precision'] = 'float32'
    runner = make_runner(float32)
    runner.load_checkpoint(str(checkpoint))
    np.testing.assert_array_equal(runner.policy.get_weights()[0], saved[0])
    result = runner.train()
    assert result['num_train_steps'] > 0
    assert math.isfinite(result['Q_loss'])
