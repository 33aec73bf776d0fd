import numpy as np
import pytest
import tensorflow as tf

from softlearning import (algorithms, environments, policies, replay_pools,
                          samplers, value_functions)
from softlearning.utils.random import set_seed


def make_sac(seed=0, pool_size=2000, **config):
    set_seed(seed)
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    policy = policies.get({'class_name': 'FeedforwardGaussianPolicy',
                           'config': {'hidden_layer_sizes': (16, 16)}},
                          env, seed=seed)
    Qs = value_functions.get({'class_name': 'double_feedforward_Q_function',
                              'config': {'hidden_layer_sizes': (16, 16)}}, env)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': pool_size}}, env, seed=seed)
    sampler = samplers.get({'class_name': 'SimpleSampler',
                            'config': {'max_path_length': 200}}, seed=seed)
    sampler.initialize(env, policy, pool)
    uniform = policies.get({'class_name': 'UniformPolicy'}, env, seed=seed + 1)
    params = {'n_epochs': 2, 'epoch_length': 200, 'batch_size': 32,
              'n_initial_exploration_steps': 100, 'eval_n_episodes': 1,
              'max_path_length': 200, **config}
    sac = algorithms.get({'class_name': 'SAC', 'config': params},
                         training_environment=env, evaluation_environment=env,
                         policy=policy, Qs=Qs, pool=pool, sampler=sampler,
                         initial_exploration_policy=uniform, seed=seed)
    return sac, env, policy, pool, sampler, uniform


def fill_pool(pool, sampler, uniform, n=300):
    sampler.sample(n, uniform)


def as_tensors(batch):
    return tf.nest.map_structure(tf.convert_to_tensor, batch)


def test_target_entropy_auto_is_minus_action_dimension():
    sac = make_sac()[0]
    assert sac._target_entropy == -1.0
    assert make_sac(target_entropy=-0.5)[0]._target_entropy == -0.5


def test_targets_start_as_copies_and_follow_polyak_arithmetic():
    sac = make_sac()[0]
    for Q, Q_target in zip(sac.Qs, sac.Q_targets):
        for w, w_target in zip(Q.get_weights(), Q_target.get_weights()):
            np.testing.assert_array_equal(w, w_target)
    for Q in sac.Qs:
        Q.set_weights([np.full_like(w, 2.0) for w in Q.get_weights()])
    for Q_target in sac.Q_targets:
        Q_target.set_weights([np.full_like(w, 1.0)
                              for w in Q_target.get_weights()])
    sac._update_targets(0.25)  # 0.25 * 2 + 0.75 * 1
    for Q_target in sac.Q_targets:
        for w in Q_target.get_weights():
            np.testing.assert_allclose(w, 1.25, rtol=1e-6)


def test_terminals_stop_bootstrapping_truncations_do_not():
    sac, env, policy, pool, sampler, uniform = make_sac(
        discount=0.9, reward_scale=2.0)
    fill_pool(pool, sampler, uniform)
    batch = pool.random_batch(8)
    batch['terminals'][:] = 0.0
    batch['terminals'][:4] = 1.0
    alpha, seed = tf.constant(0.5), tf.constant([7, 8], dtype=tf.int32)
    targets = sac._Q_targets_for(as_tensors(batch), alpha, seed).numpy()

    # Reference: the same next actions (same seed), computed by hand.
    next_actions, next_log_pis = policy.actions_and_log_probs(
        batch['next_observations'], seed=seed)
    next_Q = np.minimum(
        *[Q(batch['next_observations'], next_actions).numpy()
          for Q in sac.Q_targets])
    soft_value = next_Q - 0.5 * next_log_pis.numpy()
    rewards = batch['rewards']
    np.testing.assert_allclose(targets[:4], 2.0 * rewards[:4], rtol=1e-6)
    np.testing.assert_allclose(
        targets[4:], 2.0 * rewards[4:] + 0.9 * soft_value[4:], rtol=1e-5)


@pytest.mark.parametrize('start, n, every, repeat, expected', [
    (0, 50, 1, 1, 50), (0, 50, 2, 1, 25), (1, 4, 2, 3, 6), (3, 1, 4, 1, 1),
    (0, 3, 4, 1, 0),
])
def test_updates_owed(start, n, every, repeat, expected):
    sac = make_sac(train_every_n_steps=every, n_train_repeat=repeat,
                   fused_steps=every * 4)[0]
    assert sac._updates_owed(start, n) == expected


def test_fused_steps_must_be_multiple_of_train_every_n_steps():
    with pytest.raises(ValueError, match='multiple'):
        make_sac(train_every_n_steps=3, fused_steps=4)


def test_fused_updates_equal_single_updates():
    """K updates in one compiled call == K calls of one update each, on the
    same minibatches (the fusion changes dispatch, not the math)."""
    fused, _, _, pool, sampler, uniform = make_sac(seed=3)
    single, _, _, single_pool, single_sampler, single_uniform = make_sac(seed=3)
    fill_pool(pool, sampler, uniform)
    batches = pool.random_batches(6, 32)
    fused._fused_updates(as_tensors(batches))
    for i in range(6):
        single._fused_updates(as_tensors(
            tf.nest.map_structure(lambda x: x[i:i + 1], batches)))
    pairs = [(fused._policy.get_weights(), single._policy.get_weights())]
    pairs += [(a.get_weights(), b.get_weights())
              for a, b in zip(fused.Qs + fused.Q_targets,
                              single.Qs + single.Q_targets)]
    for weights_a, weights_b in pairs:
        for a, b in zip(weights_a, weights_b):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fused.alpha, single.alpha, rtol=1e-6)
    assert int(fused._train_step_counter) == int(single._train_step_counter) == 6


def test_training_epochs_yield_diagnostics():
    sac = make_sac(fused_steps=25)[0]
    epochs = list(sac.train())
    assert [d['epoch'] for d in epochs] == [1, 2]
    last = epochs[-1]
    assert last['total_timestep'] == 400
    # 300 steps after the 100 warm-up steps, one update each.
    assert last['num_train_steps'] == 300
    for key in ('Q_loss', 'policy_loss', 'alpha_loss', 'alpha', 'entropy',
                'Q_value-mean'):
        assert np.isfinite(last[key]), key
    assert np.isfinite(last['evaluation']['return-mean'])
    assert last['evaluation']['episode-length-mean'] == 200
    assert set(last['times']) >= {'sample', 'train', 'evaluation', 'epoch'}
    # Same columns in every epoch, even without updates.
    assert set(epochs[0]) == set(last)
