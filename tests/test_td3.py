"""TD3 and DDPG: target smoothing, the policy delay, DDPG as TD3's special
case, the deterministic policy's numpy half, fused updates, exact resume and
the variant checks."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, fill_pool, make_algorithm
from checkpoint_helpers import variant_for
from softlearning import policies
from test_numpy_policies import ACTION_SHAPE, OBSERVATION_SHAPES, observations


def make_td3(**config):
    return make_algorithm('TD3', **config)


def make_ddpg(**config):
    return make_algorithm('DDPG', Q_class='feedforward_Q_function', **config)


def weights_of(*networks):
    return [w.copy() for network in networks for w in network.get_weights()]


def changed(before, after):
    return any(not np.array_equal(a, b) for a, b in zip(before, after))


# Target policy smoothing ------------------------------------------------------

@pytest.mark.parametrize('noise, clip', [(0.2, 0.5), (5.0, 0.3)])
def test_target_smoothing_adds_clipped_noise_and_clips_actions(noise, clip):
    td3, env, policy, pool, sampler, uniform = make_td3(
        target_noise=noise, target_noise_clip=clip)
    # Saturated target actions, so the final clip to [-1, 1] matters too.
    td3.policy_target.set_weights(
        [w * 8.0 for w in td3.policy_target.get_weights()])
    fill_pool(pool, sampler, uniform)
    next_observations = as_tensors(pool.random_batch(64))['next_observations']
    seed = tf.constant([3, 4], tf.int32)
    smoothed = td3._smoothed_target_actions(next_observations, seed).numpy()
    mu = td3.policy_target.actions(next_observations).numpy()
    epsilon = np.clip(noise * tf.random.stateless_normal(mu.shape, seed),
                      -clip, clip)
    np.testing.assert_allclose(smoothed, np.clip(mu + epsilon, -1, 1),
                               rtol=1e-6, atol=1e-6)
    assert np.all(np.abs(smoothed - mu) <= clip + 1e-6)
    assert np.all(np.abs(smoothed) <= 1.0)
    if noise > clip:
        assert np.any(np.isclose(np.abs(epsilon), clip))


def test_td3_targets_take_the_min_of_twin_targets_and_stop_at_terminals():
    td3, env, policy, pool, sampler, uniform = make_td3(discount=0.9,
                                                        reward_scale=2.0)
    fill_pool(pool, sampler, uniform)
    batch = pool.random_batch(8)
    batch['terminals'][:] = 0.0
    batch['terminals'][:4] = 1.0
    seed = tf.constant([7, 8], tf.int32)
    targets = td3._y_for(as_tensors(batch), seed).numpy()
    next_actions = td3._smoothed_target_actions(
        as_tensors(batch)['next_observations'], seed)
    next_Q = np.minimum(*[Q(batch['next_observations'], next_actions).numpy()
                          for Q in td3.Q_targets])
    rewards = batch['rewards']
    np.testing.assert_allclose(targets[:4], 2.0 * rewards[:4], rtol=1e-6)
    np.testing.assert_allclose(targets[4:],
                               2.0 * rewards[4:] + 0.9 * next_Q[4:],
                               rtol=1e-5)


# The policy delay -------------------------------------------------------------

@pytest.mark.parametrize('delay', [2, 3])
def test_policy_and_targets_update_every_policy_delay_updates(delay):
    td3, env, policy, pool, sampler, uniform = make_td3(policy_delay=delay)
    fill_pool(pool, sampler, uniform)
    policy_updates, target_updates, Q_updates = [], [], []
    for _ in range(2 * delay):
        before = (weights_of(policy), weights_of(*td3.Q_targets,
                                                 td3.policy_target),
                  weights_of(*td3.Qs))
        td3._fused_updates(as_tensors(pool.random_batches(1, 32)))
        policy_updates.append(changed(before[0], weights_of(policy)))
        target_updates.append(changed(
            before[1], weights_of(*td3.Q_targets, td3.policy_target)))
        Q_updates.append(changed(before[2], weights_of(*td3.Qs)))
    expected = [(i + 1) % delay == 0 for i in range(2 * delay)]
    assert policy_updates == expected
    assert target_updates == expected
    assert all(Q_updates)
    assert int(td3._train_step_counter) == 2 * delay


def test_td3_refuses_a_separate_target_update_interval():
    with pytest.raises(ValueError, match='policy_delay'):
        make_td3(target_update_interval=3)
    with pytest.raises(ValueError, match='policy_delay must be >= 1'):
        make_td3(policy_delay=0)


# DDPG: the special case ---------------------------------------------------------

def test_ddpg_is_td3_with_one_Q_no_smoothing_and_no_delay():
    ddpg, env, policy, pool, sampler, uniform = make_ddpg()
    assert len(ddpg.Qs) == 1
    fill_pool(pool, sampler, uniform)
    next_observations = as_tensors(pool.random_batch(16))['next_observations']
    np.testing.assert_array_equal(
        ddpg._smoothed_target_actions(next_observations,
                                      tf.constant([1, 2], tf.int32)),
        ddpg.policy_target.actions(next_observations))
    for _ in range(3):
        before = weights_of(policy, ddpg.policy_target)
        ddpg._fused_updates(as_tensors(pool.random_batches(1, 32)))
        after = weights_of(policy, ddpg.policy_target)
        n_policy = len(policy.get_weights())
        assert changed(before[:n_policy], after[:n_policy])
        assert changed(before[n_policy:], after[n_policy:])


def test_ddpg_refuses_twin_Q_functions():
    with pytest.raises(ValueError, match='one Q-function'):
        make_algorithm('DDPG')


def test_training_epochs_yield_td3_diagnostics():
    td3 = make_td3(fused_steps=25)[0]
    last = list(td3.train())[-1]
    assert last['num_train_steps'] == 300
    for key in ('Q_loss', 'Q_value-mean', 'policy_loss'):
        assert np.isfinite(last[key]), key
    assert last['policy_delay'] == 2


# The deterministic policy ----------------------------------------------------------

def deterministic_policies(exploration_noise=0.1, seed=0, **config):
    params = {'class_name': 'FeedforwardDeterministicPolicy',
              'config': {'hidden_layer_sizes': (8, 8),
                         'exploration_noise': exploration_noise, **config}}

    class Spec:
        observation_shapes = OBSERVATION_SHAPES
        action_shape = ACTION_SHAPE
    tf_policy = policies.get(params, Spec, seed=seed)
    np_policy = policies.get_numpy_policy(params, Spec, seed=seed)
    np_policy.set_weights(tf_policy.get_weights())
    return tf_policy, np_policy


def test_numpy_deterministic_policy_equals_tensorflow_policy():
    tf_policy, np_policy = deterministic_policies()
    batch = observations(16)
    mu = tf_policy.actions(as_tensors(batch)).numpy()
    assert np.all(np.abs(mu) < 1.0) and np.std(mu) > 1e-3
    with np_policy.set_deterministic(True), tf_policy.set_deterministic(True):
        np.testing.assert_allclose(np_policy.actions_np(batch), mu,
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(tf_policy.actions_np(batch), mu,
                                   rtol=1e-5, atol=1e-6)


def test_exploration_noise_is_gaussian_around_mu_and_clipped():
    tf_policy, np_policy = deterministic_policies(exploration_noise=0.1)
    batch = {key: np.repeat(value[:1], 20000, axis=0)
             for key, value in observations(1).items()}
    mu = tf_policy.actions(as_tensors(batch)).numpy()
    noisy = np_policy.actions_np(batch)
    assert np.all(np.abs(noisy) <= 1.0)
    inside = np.abs(mu) < 0.6  # far from the clip at +-1
    deviations = (noisy - mu)[inside]
    assert abs(deviations.mean()) < 0.005
    assert abs(deviations.std() - 0.1) < 0.005
    # No noise: mu itself.
    quiet = deterministic_policies(exploration_noise=0.0)[1]
    quiet.set_weights(tf_policy.get_weights())
    np.testing.assert_allclose(quiet.actions_np(batch),
                               mu, rtol=1e-5, atol=1e-6)


def test_random_actions_replace_a_share_of_the_noisy_ones():
    """random_action_probability=0.3 (the HER papers'): about 30% of the
    steps act uniformly in [-1, 1], the others with mu(s) and its noise;
    evaluation acts with mu(s); the numpy copy a sampler actor acts with
    and the target policy keep the setting."""
    tf_policy, np_policy = deterministic_policies(
        exploration_noise=0.0, random_action_probability=0.3)
    np_policy.set_weights(tf_policy.get_weights())
    batch = {key: np.repeat(value[:1], 20000, axis=0)
             for key, value in observations(1).items()}
    mu = tf_policy.actions(as_tensors(batch)).numpy()
    for policy in (tf_policy, np_policy):
        actions = policy.actions_np(batch)
        random = np.any(np.abs(actions - mu) > 1e-5, axis=1)
        assert abs(random.mean() - 0.3) < 0.015, random.mean()
        # A random step replaces the whole action, not single components.
        assert (np.abs(actions[random] - mu[random]) > 1e-5).mean() > 0.99
        uniform = actions[random]
        assert np.all(np.abs(uniform) <= 1.0)
        assert abs(uniform.mean()) < 0.02
        assert abs(uniform.std() - 1 / np.sqrt(3)) < 0.02
        with policy.set_deterministic(True):
            np.testing.assert_allclose(policy.actions_np(batch), mu,
                                       rtol=1e-5, atol=1e-6)
    assert np_policy.random_action_probability == 0.3
    assert tf_policy.clone().random_action_probability == 0.3
    with pytest.raises(ValueError, match='random_action_probability'):
        deterministic_policies(random_action_probability=1.5)


def test_target_policy_is_a_copy_with_its_own_weights():
    tf_policy, _ = deterministic_policies()
    target = tf_policy.clone()
    assert target.exploration_noise == tf_policy.exploration_noise
    for a, b in zip(target.get_weights(), tf_policy.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not set(map(id, target.trainable_variables)) & set(
        map(id, tf_policy.trainable_variables))


# Exact resume through the runner ------------------------------------------------------

# Variants ---------------------------------------------------------------------------

def test_variants_pick_each_algorithms_policy_and_Q_functions():
    base = ['--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1']
    td3 = variant_for('--algorithm', 'TD3', *base)
    assert td3['policy_params']['class_name'] == 'FeedforwardDeterministicPolicy'
    assert td3['policy_params']['config']['exploration_noise'] == 0.1
    assert td3['Q_params']['class_name'] == 'double_feedforward_Q_function'
    assert td3['algorithm_params']['config']['policy_delay'] == 2
    ddpg = variant_for('--algorithm', 'DDPG', *base)
    assert ddpg['algorithm_params']['class_name'] == 'DDPG'
    assert ddpg['Q_params']['class_name'] == 'feedforward_Q_function'
    assert 'policy_delay' not in ddpg['algorithm_params']['config']


@pytest.mark.parametrize('options, message', [
    (['--algorithm', 'SAC', '--config',
      'algorithm_params.config.target_noise_clip=0.3'],
     "Unknown key 'target_noise_clip' in algorithm_params.config: SAC "
     "accepts"),
    (['--algorithm', 'SAC', '--config',
      'algorithm_params.config.target_noise=0.1'],
     "Unknown key 'target_noise'"),
    (['--algorithm', 'SAC', '--policy', 'deterministic'],
     'valid policies for SAC: gaussian'),
    (['--algorithm', 'TD3', '--policy', 'gaussian'],
     'valid policies for TD3: deterministic'),
])
def test_td3_options_elsewhere_are_one_clear_error(options, message):
    with pytest.raises(ValueError, match=message):
        variant_for(*options, '--universe', 'gym', '--domain', 'Pendulum',
                    '--task', 'v1')
