"""REDQ (algorithms/redq.py) and SAC's policy delay: the target's minimum
over a random subset of the target critics against a direct computation,
the policy's objective over the ensemble's mean, the delayed actor steps,
DroQ's dropout masks and its exact resume. Fused == single updates, for
REDQ and DroQ (whose masks come from each critic's own generator, so K
fused updates draw the masks of K single ones), is the registry's
conformance test (test_registry_conformance.py)."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, filled_algorithm, make_algorithm

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
    targets = algorithm._y_for(batch, alpha, seed).numpy()
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
            lambda x: x[i:i + 1], batches))['diagnostics']
        moved = any(not np.array_equal(a, b)
                    for a, b in zip(before, policy.get_weights()))
        assert moved == (algorithm.alpha != alpha)
        changed.append(moved)
        if not moved and last_policy_loss is not None:
            # Between actor steps the last step's diagnostics are reported.
            assert float(diagnostics['policy_loss']) == last_policy_loss
        last_policy_loss = float(diagnostics['policy_loss'])
    assert changed == [False, False, True, False, False, True]


# DroQ: REDQ's update on dropout + LayerNorm critics ---------------------------

DROQ_SETTINGS = {'Q_class': 'feedforward_Q_functions',
                 'Q_config': {'n_Q_functions': 2, 'dropout_rate': 0.3,
                              'layer_norm': True},
                 'target_subset_size': 2, 'policy_delay': 2}


def test_droq_critics_have_layer_norm_and_fresh_dropout_masks():
    import tf_keras as keras
    algorithm, _, pool = filled_algorithm('DroQ', **DROQ_SETTINGS)
    Q = algorithm.Qs[0]
    kinds = [type(layer) for layer in Q.model.layers]
    assert kinds == [keras.layers.Dense, keras.layers.LayerNormalization,
                     keras.layers.Activation] * 2 + [keras.layers.Dense]
    batch = as_tensors(pool.random_batch(64))
    first = Q(batch['observations'], batch['actions']).numpy()
    second = Q(batch['observations'], batch['actions']).numpy()
    plain = Q.model(tf.concat([batch['observations']['observations'],
                               batch['actions']], axis=-1)).numpy()
    # Each evaluation draws its own masks; the model alone has none.
    assert not np.allclose(first, second)
    assert not np.allclose(first, plain)
    # Without dropout the two agree.
    Q.dropout_rate = 0.0
    np.testing.assert_allclose(
        Q(batch['observations'], batch['actions']).numpy(), plain,
        rtol=1e-6)


@pytest.mark.slow
def test_droq_with_n_step_returns_resumes_exactly(tmp_path):
    """The dropout generators' state, the n-step pool's episode tags and the
    running episodes of three environments per sampler are in the
    checkpoint, and evaluation (from fixed seeds: one vector of episodes)
    needs none: epoch 3 after a restore == epoch 3 of the run that never
    stopped (one run for all, to keep CI short)."""
    from checkpoint_helpers import assert_resume_is_exact, tiny_variant
    variant = tiny_variant(algorithm='DroQ', domain='Pendulum', task='v1',
                           epochs=3, n_step=3, envs_per_sampler=3,
                           max_path_length=40, config={
                               'algorithm_params.config.n_train_repeat': 2,
                               'algorithm_params.config.policy_delay': 2,
                               'algorithm_params.config.eval_n_episodes': 3,
                               'algorithm_params.config.eval_seed': 10})
    assert variant['sampler_params']['config']['envs_per_sampler'] == 3
    assert variant['Q_params']['config']['dropout_rate'] == 0.01
    assert variant['replay_pool_params'] == {
        'class_name': 'NStepReplayPool',
        'config': {'max_size': int(1e6), 'n_step': 3}}
    assert_resume_is_exact(variant, tmp_path / 'checkpoint_000002',
                           ('Q_loss', 'Q_value-mean', 'policy_loss',
                            'alpha_loss', 'alpha', 'entropy'))
