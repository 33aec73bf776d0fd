"""Every registered algorithm meets the same contract, built from its preset
as a trial builds it (checkpoint_helpers.tiny_variant, ExperimentRunner on
Pendulum-v1 with 16-16 networks). Register an algorithm
(``softlearning.algorithms.ALGORITHMS``) and its preset
(``softlearning.experiments.presets.ALGORITHMS``) and these tests cover it:

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

from algorithm_helpers import as_tensors
from checkpoint_helpers import assert_resume_is_exact, make_runner, tiny_variant
from softlearning import algorithms
from softlearning.experiments import presets

NAMES = sorted(presets.ALGORITHMS)


def variant(name):
    return tiny_variant(algorithm=name, domain='Pendulum', task='v1',
                        epochs=3)


def trained_runner(name):
    """A runner of ``name``'s tiny variant after one epoch: its pool holds
    100 steps, 40 of them trained on."""
    runner = make_runner(variant(name))
    return runner, runner.train()


def test_every_preset_trains_its_registered_algorithm():
    assert set(presets.ALGORITHMS) == set(algorithms.ALGORITHMS)
    for name in NAMES:
        assert variant(name)['algorithm_params']['class_name'] == name


@pytest.mark.parametrize('name', NAMES)
def test_an_update_returns_the_named_scalars_an_epoch_reports(name):
    runner, result = trained_runner(name)
    keys = runner.algorithm.training_diagnostic_keys
    assert keys and all(isinstance(key, str) for key in keys)
    for key in keys:
        assert math.isfinite(result[key]), key
    diagnostics = runner.algorithm._update(
        as_tensors(runner.pool.random_batch(32)))
    assert tuple(diagnostics) == keys
    for key, value in diagnostics.items():
        assert value.shape == () and np.isfinite(float(value)), key


def _state(algorithm):
    """Every number an update changes: the networks' weights (running
    statistics included), the optimizers' slots, the random generator's
    state and the update counter."""
    state = {}
    for name, saveable in algorithm.tf_saveables().items():
        if hasattr(saveable, 'get_weights'):
            values = saveable.get_weights()
        elif hasattr(saveable, 'variables'):
            values = [variable.numpy() for variable in saveable.variables]
        elif isinstance(saveable, tf.random.Generator):
            values = [saveable.state.numpy()]
        else:
            values = [np.asarray(saveable.numpy())]
        state[name] = values
    return state


@pytest.mark.parametrize('name', NAMES)
def test_fused_updates_equal_single_updates(name):
    """The fusion changes dispatch, not the math: from the same state, on
    the same minibatches."""
    fused, _ = trained_runner(name)
    single, _ = trained_runner(name)
    before = _state(fused.algorithm)
    batches = fused.pool.random_batches(4, 32)
    fused.algorithm._fused_updates(as_tensors(batches))
    for i in range(4):
        single.algorithm._fused_updates(as_tensors(
            tf.nest.map_structure(lambda x: x[i:i + 1], batches)))
    after_fused, after_single = (_state(fused.algorithm),
                                 _state(single.algorithm))
    assert after_fused.keys() == after_single.keys()
    changed = False
    for key in after_fused:
        for a, b, start in zip(after_fused[key], after_single[key],
                               before[key]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6,
                                       err_msg=f'{name} {key}')
            changed |= not np.array_equal(a, start)
    assert changed


@pytest.mark.parametrize('name', NAMES)
def test_the_numpy_mirror_acts_as_the_tensorflow_policy(name):
    """Sampler actors act with a TensorFlow-free copy of the policy,
    loaded with the learner's weights (after updates: normalization
    statistics moved)."""
    from softlearning.policies import get_numpy_policy
    runner, _ = trained_runner(name)
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
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(numpy_policy.actions_np(observations),
                                   expected, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize('name', NAMES)
def test_a_restored_checkpoint_continues_exactly(name, tmp_path):
    """Epoch 3 after restoring epoch 2's checkpoint == epoch 3 of the run
    that never stopped, every diagnostic compared with ==."""
    assert_resume_is_exact(variant(name), tmp_path / 'checkpoint_000002')
