"""Every registered algorithm meets the same contract, built from its preset
as a trial builds it (checkpoint_helpers.tiny_variant, ExperimentRunner on
Pendulum-v1 with 16-16 networks). Register an algorithm with its preset
(``softlearning.algorithms.ALGORITHMS``) and these tests cover it:

- an update returns a dict of named scalars, the columns an epoch reports;
- K updates in one compiled call == K calls of one update each;
- the numpy mirror that sampler actors run acts as the TensorFlow policy;
- a restored checkpoint continues exactly as the run that never stopped.

Each algorithm's own file (test_sac.py, test_td3.py, ...) checks its math.
"""

import math

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (
    as_tensors, assign_values, checkpointed_variables, values_of)
from checkpoint_helpers import (
    assert_resume_is_exact, make_runner, tiny_variant)
from softlearning import algorithms

NAMES = sorted(algorithms.ALGORITHMS)


# A preset's updates per environment step above this run at this many here
# (the policy as often relative to them): the contract does not depend on
# the ratio, and REDQ's 20 updates of ten critics per step were most of
# these tests' time.
MAX_UPDATES_PER_STEP = 2
# An ensemble above this many critics (REDQ's ten) runs with this many:
# tracing ten critics' update was most of REDQ's time here, and the
# contract does not depend on the ensemble's size.
MAX_CRITICS = 3
# Presets whose update compiles with XLA run here without it: each runner
# built compiles its own (SimbaV2's tripled its tests' time, 54 s against
# 20); the contract under XLA is checked with TQC's preset, and the
# learning tests train CrossQ, REDQ and SimbaV2 compiled with it.
WITHOUT_XLA = ('CrossQ', 'REDQ', 'SimbaV2')


def variant(name):
    # Epochs enough for the fixture's runner to serve every test below
    # (they train it 3 more times) in whatever order they run.
    options = dict(algorithm=name, domain='Pendulum', task='v1', epochs=5)
    preset = tiny_variant(**options)
    config = {}
    if (preset['algorithm_params']['config']['n_train_repeat']
            > MAX_UPDATES_PER_STEP):
        config = {
            'algorithm_params.config.n_train_repeat': MAX_UPDATES_PER_STEP,
            'algorithm_params.config.policy_delay': MAX_UPDATES_PER_STEP}
    if preset['Q_params']['config'].get('n_Q_functions', 2) > MAX_CRITICS:
        config['Q_params.config.n_Q_functions'] = MAX_CRITICS
    if name in WITHOUT_XLA:
        config['algorithm_params.config.jit_compile'] = False
    return tiny_variant(**options, config=config) if config else preset


@pytest.fixture(scope='module', params=NAMES)
def trained(request):
    """(name, runner) of ``name``'s tiny variant after one epoch: its pool
    holds 100 steps, 40 of them trained on; one runner per algorithm for
    the checks below (building and tracing is most of their cost)."""
    runner = make_runner(variant(request.param))
    runner.train()
    return request.param, runner


def test_every_preset_trains_its_registered_algorithm():
    for name in NAMES:
        assert variant(name)['algorithm_params']['class_name'] == name


def test_fused_updates_equal_single_updates(trained):
    """From the same state (every checkpointed number set back between the
    two), on the same minibatches: K updates in one compiled call == K
    calls of one update each (the fusion changes dispatch, not the math)."""
    name, runner = trained
    algorithm = runner.algorithm
    variables = checkpointed_variables(algorithm)
    start = values_of(variables)
    batches = as_tensors(runner.pool.random_batches(4, 32))
    fused = algorithm._fused_updates(batches)['diagnostics']
    after_fused = values_of(variables)
    assign_values(variables, start)
    singles = [algorithm._fused_updates(tf.nest.map_structure(
        lambda x: x[i:i + 1], batches))['diagnostics'] for i in range(4)]
    after_single = values_of(variables)
    # The call's means are the updates' means; its peaks, their largest.
    for key in algorithm.training_diagnostic_keys:
        np.testing.assert_allclose(
            float(fused[key]), np.mean([float(one[key]) for one in singles]),
            rtol=1e-4, atol=1e-6, err_msg=f'{name} {key}')
    for key in algorithm.training_peak_keys:
        np.testing.assert_allclose(
            float(fused[key]),
            max(float(one[key.removesuffix('-max')]) for one in singles),
            rtol=1e-5, atol=1e-6, err_msg=f'{name} {key}')
    changed = False
    for key in after_fused:
        for a, b, before in zip(after_fused[key], after_single[key],
                                start[key]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6,
                                       err_msg=f'{name} {key}')
            changed |= not np.array_equal(a, before)
    assert changed


def test_an_update_returns_the_named_scalars_an_epoch_reports(trained):
    name, runner = trained
    keys = runner.algorithm.training_diagnostic_keys
    assert keys and all(isinstance(key, str) for key in keys)
    result = runner.train()
    for key in keys:
        assert math.isfinite(result[key]), (name, key)
    # Every agent with critics reports its largest single-update loss.
    assert result['Q_loss-max'] >= result['Q_loss'] * (1 - 1e-6), name
    # (The update's own and its critic head's: categorical critics add
    # their clipped share.)
    diagnostics = runner.algorithm._update_with_head_diagnostics(
        as_tensors(runner.pool.random_batch(32)))
    assert tuple(diagnostics) == keys
    for key, value in diagnostics.items():
        assert value.shape == () and np.isfinite(float(value)), (name, key)


def test_the_numpy_mirror_acts_as_the_tensorflow_policy(trained):
    """Sampler actors act with a TensorFlow-free copy of the policy,
    loaded with the learner's weights (after updates: normalization
    statistics moved)."""
    from softlearning.policies import get_numpy_policy
    name, runner = trained
    policy = runner.policy
    policy.refresh_numpy_weights()
    numpy_policy = get_numpy_policy(runner._variant['policy_params'],
                                    runner.training_environment)
    numpy_policy.set_weights(policy.get_weights())
    observations = runner.pool.random_batch(10)['observations']
    with policy.set_deterministic(True), \
            numpy_policy.set_deterministic(True):
        expected = policy.actions(as_tensors(observations)).numpy()
        np.testing.assert_allclose(policy.actions_np(observations), expected,
                                   rtol=1e-4, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(numpy_policy.actions_np(observations),
                                   expected, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


@pytest.mark.slow
def test_a_restored_checkpoint_continues_exactly(trained, tmp_path):
    """Epoch 3 after restoring epoch 2's checkpoint == epoch 3 of the run
    that never stopped, every diagnostic compared with ==. The run is the
    fixture's runner (what the other tests did to it is state a checkpoint
    keeps too)."""
    name, runner = trained
    assert_resume_is_exact(variant(name), tmp_path / 'checkpoint_000002',
                           runner=runner)
