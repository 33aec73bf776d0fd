"""TQC (algorithms/tqc.py): the quantile Huber loss and the truncated
target against direct numpy computations on fixed inputs, the ensemble of
quantile critics, and fused == single updates."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_fused_equals_single,
                               filled_algorithm, make_algorithm)
from softlearning.algorithms.tqc import quantile_huber_loss

N_CRITICS, N_QUANTILES, DROP = 3, 5, 2
TQC_SETTINGS = {
    'Q_class': 'feedforward_Q_functions',
    'Q_config': {'n_Q_functions': N_CRITICS, 'n_quantiles': N_QUANTILES},
    'top_quantiles_to_drop_per_net': DROP}


def numpy_quantile_huber(quantiles, targets, kappa=1.0):
    """Written out loop by loop, as in the paper."""
    batch, n = quantiles.shape
    loss = np.zeros((batch, n, targets.shape[1]))
    for b in range(batch):
        for m in range(n):
            tau = (m + 0.5) / n
            for j, target in enumerate(targets[b]):
                u = target - quantiles[b, m]
                huber = (0.5 * u ** 2 if abs(u) <= kappa
                         else kappa * (abs(u) - 0.5 * kappa))
                loss[b, m, j] = abs(tau - (u < 0)) * huber
    return loss


@pytest.mark.parametrize('kappa', [1.0, 0.3])
def test_quantile_huber_loss_matches_its_definition(kappa):
    rng = np.random.default_rng(0)
    quantiles = rng.normal(size=(4, 5)).astype(np.float32)
    targets = rng.normal(scale=2.0, size=(4, 7)).astype(np.float32)
    np.testing.assert_allclose(
        quantile_huber_loss(tf.constant(quantiles), tf.constant(targets),
                            kappa).numpy(),
        numpy_quantile_huber(quantiles, targets, kappa), rtol=1e-5,
        atol=1e-6)


def test_a_hand_computed_case():
    # One quantile (tau = 0.5) at 0, targets 2 and -0.5: the Huber loss is
    # linear beyond 1 (2 - 0.5 = 1.5) and quadratic within (0.125), each
    # weighted by |0.5 - 1{u < 0}| = 0.5.
    loss = quantile_huber_loss(tf.zeros((1, 1)), tf.constant([[2.0, -0.5]]))
    np.testing.assert_allclose(loss.numpy(), [[[0.75, 0.0625]]])


def tqc(**settings):
    return filled_algorithm('TQC', **{**TQC_SETTINGS, **settings})


def test_critics_are_an_ensemble_of_quantile_networks():
    algorithm, _, pool = tqc()
    batch = as_tensors(pool.random_batch(8))
    assert len(algorithm.Qs) == len(algorithm.Q_targets) == N_CRITICS
    for Q in algorithm.Qs:
        assert Q(batch['observations'], batch['actions']).shape == (
            8, N_QUANTILES)


def test_target_keeps_the_smallest_atoms_of_all_target_critics():
    algorithm, policy, pool = tqc()
    batch = as_tensors(pool.random_batch(8))
    alpha, seed = 0.3, tf.constant([1, 2], tf.int32)
    targets = algorithm._y_for(batch, alpha, seed).numpy()
    next_actions, next_log_pis = policy.actions_and_log_probs(
        batch['next_observations'], seed=seed)
    atoms = np.concatenate([
        Q(batch['next_observations'], next_actions).numpy()
        for Q in algorithm.Q_targets], axis=-1)
    kept = np.sort(atoms, axis=-1)[:, :N_CRITICS * (N_QUANTILES - DROP)]
    expected = (batch['rewards'].numpy() + 0.99
                * (1 - batch['terminals'].numpy())
                * (kept - alpha * next_log_pis.numpy()))
    assert targets.shape == (8, N_CRITICS * (N_QUANTILES - DROP))
    np.testing.assert_allclose(targets, expected, rtol=1e-5, atol=1e-5)


def test_policy_climbs_the_mean_of_all_atoms():
    algorithm, _, pool = tqc()
    batch = as_tensors(pool.random_batch(8))
    value = algorithm._policy_Q(batch['observations'], batch['actions'])
    atoms = np.concatenate([Q(batch['observations'], batch['actions'])
                            .numpy() for Q in algorithm.Qs], axis=-1)
    np.testing.assert_allclose(value.numpy()[:, 0], atoms.mean(axis=-1),
                               rtol=1e-5)


def test_too_many_dropped_atoms_is_an_error():
    with pytest.raises(ValueError, match='top_quantiles_to_drop_per_net'):
        make_algorithm('TQC', **{**TQC_SETTINGS,
                                 'top_quantiles_to_drop_per_net': 5})


def test_fused_updates_equal_single_updates():
    fused, single = assert_fused_equals_single('TQC', **TQC_SETTINGS)
    np.testing.assert_allclose(fused.alpha, single.alpha, rtol=1e-6)

