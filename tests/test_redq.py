"""REDQ (algorithms/redq.py) and SAC's policy delay: the target's minimum
over a random subset of the target critics against a direct computation,
the policy's objective over the ensemble's mean, the delayed actor steps,
and fused == single updates."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_fused_equals_single,
                               filled_algorithm, make_algorithm)

N_CRITICS, SUBSET = 5, 2
REDQ_SETTINGS = {'Q_class': 'feedforward_Q_functions',
                 'Q_config': {'n_Q_functions': N_CRITICS},
                 'target_subset_size': SUBSET}


def redq(**settings):
    return filled_algorithm('REDQ', **{**REDQ_SETTINGS, **settings})


def test_target_subsets_are_random_subsets_of_the_ensemble():
    algorithm, _, _ = redq()
    subsets = [algorithm.target_subset(tf.constant([i, 7])).numpy()
               for i in range(40)]
    for subset in subsets:
        assert len(set(subset)) == SUBSET
        assert set(subset) <= set(range(N_CRITICS))
    assert set(np.concatenate(subsets)) == set(range(N_CRITICS))
    np.testing.assert_array_equal(
        algorithm.target_subset(tf.constant([3, 7])), subsets[3])


def test_target_is_the_minimum_over_the_subset():
    algorithm, policy, pool = redq()
    batch = as_tensors(pool.random_batch(8))
    alpha, seed = 0.2, tf.constant([4, 5], tf.int32)
    targets = algorithm._Q_targets_for(batch, alpha, seed).numpy()
    next_actions, next_log_pis = policy.actions_and_log_probs(
        batch['next_observations'], seed=seed)
    subset = algorithm.target_subset(seed).numpy()
    next_Q = np.min([algorithm.Q_targets[i](batch['next_observations'],
                                            next_actions).numpy()
                     for i in subset], axis=0)
    expected = (batch['rewards'].numpy() + 0.99
                * (1 - batch['terminals'].numpy())
                * (next_Q - alpha * next_log_pis.numpy()))
    np.testing.assert_allclose(targets, expected, rtol=1e-5, atol=1e-5)


def test_policy_climbs_the_ensemble_mean():
    algorithm, _, pool = redq()
    batch = as_tensors(pool.random_batch(8))
    value = algorithm._policy_Q(batch['observations'], batch['actions'])
    mean = np.mean([Q(batch['observations'], batch['actions']).numpy()
                    for Q in algorithm.Qs], axis=0)
    np.testing.assert_allclose(value.numpy(), mean, rtol=1e-5)


def test_subset_larger_than_the_ensemble_is_an_error():
    with pytest.raises(ValueError, match='target_subset_size'):
        make_algorithm('REDQ', **{**REDQ_SETTINGS, 'target_subset_size': 6})


def test_delayed_actor_steps_every_policy_delay_updates():
    algorithm, policy, pool = redq(policy_delay=3)
    batches = as_tensors(pool.random_batches(6, 32))
    changed, last_policy_loss = [], None
    for i in range(6):
        before = [w.copy() for w in policy.get_weights()]
        alpha = algorithm.alpha
        diagnostics = algorithm._fused_updates(tf.nest.map_structure(
            lambda x: x[i:i + 1], batches))
        moved = any(not np.array_equal(a, b)
                    for a, b in zip(before, policy.get_weights()))
        assert moved == (algorithm.alpha != alpha)
        changed.append(moved)
        if not moved and last_policy_loss is not None:
            # Between actor steps the last step's diagnostics are reported.
            assert float(diagnostics['policy_loss']) == last_policy_loss
        last_policy_loss = float(diagnostics['policy_loss'])
    assert changed == [False, False, True, False, False, True]


def test_fused_updates_equal_single_updates():
    fused, single = assert_fused_equals_single(
        'REDQ', **{**REDQ_SETTINGS, 'policy_delay': 2})
    np.testing.assert_allclose(fused.alpha, single.alpha, rtol=1e-6)
