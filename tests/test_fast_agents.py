"""FastTD3 and FastSAC: the per-episode exploration noise (its draws, numpy
== TensorFlow, through a sampler's episodes), FastTD3's update without a
target policy (targets from the policy itself, critics' copies every
update, the policy climbing the smaller critic), AdamW's decay, the
normalized MLP networks and the presets' variants. The registry's
conformance tests cover the rest (fused == single updates, exact resume,
the numpy mirror)."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, filled_algorithm
from checkpoint_helpers import variant_for
from softlearning import environments, policies
from softlearning.algorithms.observation_statistics import (
    ObservationStatistics)
from softlearning.policies.exploration_noise import ExplorationNoise
from softlearning.samplers.episode_stepper import EpisodeStepper
from test_numpy_policies import ACTION_SHAPE, OBSERVATION_SHAPES, observations

SCHEDULE = {'std_min': 0.05, 'std_max': 0.3}


class Spec:
    observation_shapes = OBSERVATION_SHAPES
    action_shape = ACTION_SHAPE


def deterministic_policies(exploration_noise=SCHEDULE, seed=0, **config):
    """(TensorFlow policy, its numpy half with the same weights and seed).
    The weights are the numpy policy's, which its seed decides (Keras's
    initial weights depend on what the process ran before)."""
    params = {'class_name': 'FeedforwardDeterministicPolicy',
              'config': {'hidden_layer_sizes': (8, 8),
                         'exploration_noise': exploration_noise, **config}}
    tf_policy = policies.get(params, Spec, seed=seed)
    np_policy = policies.get_numpy_policy(params, Spec, seed=seed)
    tf_policy.set_weights(np_policy.get_weights())
    return tf_policy, np_policy


def one_observation(seed=0):
    return {key: value[0] for key, value in observations(1, seed).items()}


# The per-episode exploration noise -----------------------------------------

def test_each_episode_draws_its_std_between_std_min_and_std_max():
    _, policy = deterministic_policies()
    stds = []
    for episode in range(2000):
        _, state = policy.step(one_observation(), None)
        stds.append(state)
        for _ in range(3):  # the episode keeps its std
            _, kept = policy.step(one_observation(), state)
            assert kept == state
    stds = np.array(stds)
    assert np.all((stds >= 0.05) & (stds <= 0.3))
    # Uniform on the range: its ends reached, its quarters about equal.
    assert stds.min() < 0.06 and stds.max() > 0.29
    counts = np.histogram(stds, bins=4, range=(0.05, 0.3))[0]
    assert counts.min() > 0.8 * counts.mean()


def test_an_episodes_actions_are_gaussian_around_mu_with_its_std():
    _, policy = deterministic_policies()
    observation = one_observation()
    with policy.set_deterministic():
        mu, state = policy.step(observation, None)
    assert state is None  # acting deterministically draws nothing
    _, std = policy.step(observation, None)
    actions = np.array([policy.step(observation, std)[0]
                        for _ in range(20000)])
    assert np.all(np.abs(actions) <= 1.0)
    deviations = actions - mu
    assert np.all(np.abs(mu) < 0.6)  # far from the clip at +-1
    np.testing.assert_allclose(deviations.mean(0), 0.0, atol=0.01)
    np.testing.assert_allclose(deviations.std(0), std, rtol=0.03)


def test_numpy_policy_steps_as_the_tensorflow_policy():
    """Same random state, same weights: the same stds and the same
    actions, step by step (the learner's process acts with the TensorFlow
    policy's numpy mirror, sampler actors with the numpy policy)."""
    tf_policy, np_policy = deterministic_policies(seed=5)
    np_policy.set_np_random_state(tf_policy.get_np_random_state())
    tf_state = np_state = None
    for step in range(30):
        if step % 10 == 0:
            tf_state = np_state = None  # a new episode
        observation = one_observation(step)
        tf_action, tf_state = tf_policy.step(observation, tf_state)
        np_action, np_state = np_policy.step(observation, np_state)
        assert tf_state == np_state
        np.testing.assert_allclose(tf_action, np_action, rtol=1e-5,
                                   atol=1e-6)
    # ... and mu is the TensorFlow network's.
    batch = observations(16)
    with np_policy.set_deterministic():
        np.testing.assert_allclose(
            np_policy.actions_np(batch),
            tf_policy.actions(as_tensors(batch)).numpy(), rtol=1e-5,
            atol=1e-6)


def test_a_batch_without_states_draws_a_std_per_row():
    _, policy = deterministic_policies({'std_min': 0.0, 'std_max': 0.4})
    batch = {key: np.repeat(value[:1], 5000, axis=0)
             for key, value in observations(1).items()}
    with policy.set_deterministic():
        mu = policy.actions_np(batch)
    deviations = policy.actions_np(batch) - mu
    # A mixture of N(0, s^2), s ~ U(0, 0.4): variance E[s^2] = 0.4^2 / 3.
    np.testing.assert_allclose(deviations.std(), 0.4 / np.sqrt(3),
                               rtol=0.05)


def test_a_fixed_std_keeps_td3s_acting_and_random_stream():
    """TD3's exploration_noise=0.1: no state, no draw beyond the noise
    (its runs and checkpoints stay as they were)."""
    _, policy = deterministic_policies(0.1, seed=3)
    reference = policies.get_numpy_policy(
        {'class_name': 'FeedforwardDeterministicPolicy',
         'config': {'hidden_layer_sizes': (8, 8)}}, Spec, seed=3)
    reference.set_weights(policy.get_weights())
    action, state = policy.step(one_observation(), None)
    assert state is None
    np.testing.assert_array_equal(
        action, reference.actions_np(observations(1))[0])
    assert policy.exploration_noise == 0.1


def test_a_sampler_keeps_the_std_through_an_episode_and_redraws_it():
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    policy = policies.get(
        {'class_name': 'FeedforwardDeterministicPolicy',
         'config': {'hidden_layer_sizes': (8,),
                    'exploration_noise': SCHEDULE}}, env, seed=0)
    stepper = EpisodeStepper(env, max_path_length=5, seed=0)
    stds = []
    for _ in range(4):
        episode = []
        for _ in range(5):
            stepper.step(policy)
            episode.append(stepper.policy_state)
        stds.append(episode[0])
        # Kept to the episode's last step, which resets it.
        assert episode[:-1] == [episode[0]] * 4 and episode[-1] is None
        assert 0.05 <= episode[0] <= 0.3
    assert len(set(stds)) == 4


@pytest.mark.parametrize('setting, message', [
    ({'std_min': 0.1}, "takes a standard deviation or"),
    ({'std_min': 0.1, 'std_max': 0.4, 'std': 1}, "takes a standard"),
    ({'std_min': 0.5, 'std_max': 0.4}, '0 <= std_min <= std_max'),
    (-0.1, '0 <= std_min <= std_max')])
def test_bad_exploration_noise_is_one_clear_error(setting, message):
    with pytest.raises(ValueError, match=message):
        ExplorationNoise(setting)


def test_a_recurrent_policy_refuses_a_per_episode_std():
    with pytest.raises(ValueError, match='feedforward policies'):
        policies.get({'class_name': 'RecurrentDeterministicPolicy',
                      'config': {'hidden_layer_sizes': (8,),
                                 'exploration_noise': SCHEDULE}}, Spec)


# FastTD3's update ------------------------------------------------------------

def fast_td3(**config):
    return filled_algorithm('FastTD3', **config)


def weights_of(*networks):
    return [w.copy() for network in networks for w in network.get_weights()]


def changed(before, after):
    return any(not np.array_equal(a, b) for a, b in zip(before, after))


def test_fast_td3_targets_read_the_policy_itself():
    algorithm, policy, pool = fast_td3(target_noise=0.0)
    assert algorithm.policy_target is policy
    assert 'policy_target' not in algorithm.tf_saveables()
    batch = as_tensors(pool.random_batch(16))
    np.testing.assert_array_equal(
        algorithm._smoothed_target_actions(batch['next_observations'],
                                           tf.constant([1, 2], tf.int32)),
        policy.actions(batch['next_observations']))


def test_fast_td3_moves_critics_copies_every_update_the_policy_every_2nd():
    algorithm, policy, pool = fast_td3(policy_delay=2, tau=0.1)
    policy_steps, target_steps = [], []
    for _ in range(4):
        before = weights_of(policy), weights_of(*algorithm.Q_targets)
        algorithm._fused_updates(as_tensors(pool.random_batches(1, 32)))
        policy_steps.append(changed(before[0], weights_of(policy)))
        target_steps.append(changed(before[1],
                                    weights_of(*algorithm.Q_targets)))
    assert policy_steps == [False, True, False, True]
    assert all(target_steps)


def test_fast_td3_policy_climbs_the_smaller_critic():
    algorithm, policy, pool = fast_td3()
    batch = as_tensors(pool.random_batch(64))
    observations_ = batch['observations']
    actions = policy.actions(observations_)
    Q_values = [Q(observations_, actions).numpy() for Q in algorithm.Qs]
    algorithm._update_policy(batch, observations_)
    np.testing.assert_allclose(float(algorithm._policy_loss),
                               -np.minimum(*Q_values).mean(), rtol=1e-5)
    assert not np.isclose(float(algorithm._policy_loss),
                          -Q_values[0].mean(), rtol=1e-5)


@pytest.mark.parametrize('name', ['FastTD3', 'FastSAC'])
def test_critics_and_policy_decay_their_weights_as_adamw(name):
    algorithm, policy, _ = filled_algorithm(name, weight_decay=0.1,
                                            Q_lr=0.5)
    optimizers = algorithm.tf_saveables()
    assert optimizers['Q_optimizer'].weight_decay == 0.1
    assert optimizers['policy_optimizer'].weight_decay == 0.1
    if name == 'FastSAC':  # the temperature's Adam, as the authors'
        assert optimizers['alpha_optimizer'].weight_decay is None
    # A step on zero gradients (Adam's moments stay 0) only decays:
    # w <- w - learning_rate * weight_decay * w.
    variables = algorithm.Qs[0].model.trainable_variables
    before = [v.numpy() for v in variables]
    optimizers['Q_optimizer'].apply_gradients(
        [(tf.zeros_like(v), v) for v in variables])
    for value, variable in zip(before, variables):
        np.testing.assert_allclose(variable.numpy(), value * (1 - 0.05),
                                   rtol=1e-6, atol=1e-7)


def test_weight_decay_zero_is_plain_adam():
    algorithm, _, _ = filled_algorithm('FastTD3', weight_decay=0.0)
    assert algorithm.tf_saveables()['Q_optimizer'].weight_decay is None


# The normalized MLP ---------------------------------------------------------

@pytest.mark.parametrize('class_name', ['FeedforwardDeterministicPolicy',
                                        'FeedforwardGaussianPolicy'])
def test_normalized_mlp_policies_act_in_numpy_as_in_tensorflow(class_name):
    params = {'class_name': class_name,
              'config': {'hidden_layer_sizes': (16, 8),
                         'network': 'normalized_mlp'}}
    policy = policies.get(params, Spec, seed=0)
    batch = {key: 5.0 + 3.0 * value
             for key, value in observations(64).items()}
    ObservationStatistics([policy.model]).update(as_tensors(batch))
    normalization = policy.model.layers[0]
    assert np.all(np.abs(normalization.mean.numpy()) > 3.0)
    policy.refresh_numpy_weights()
    numpy_policy = policies.get_numpy_policy(params, Spec, seed=1)
    numpy_policy.set_weights(policy.get_weights())
    with policy.set_deterministic(), numpy_policy.set_deterministic():
        expected = (
            policy.actions(as_tensors(batch)).numpy()
            if class_name == 'FeedforwardDeterministicPolicy'
            else policy.actions_np(batch))
        np.testing.assert_allclose(numpy_policy.actions_np(batch), expected,
                                   rtol=1e-4, atol=1e-5)


def test_normalized_mlp_critics_normalize_observations_not_actions():
    from softlearning.value_functions import get
    Qs = get({'class_name': 'double_feedforward_Q_function',
              'config': {'hidden_layer_sizes': (16,),
                         'network': 'normalized_mlp',
                         'categorical': {'n_atoms': 11, 'v_min': -1.0,
                                         'v_max': 1.0}}}, Spec)
    normalization = Qs[0].model.layers[0]
    assert normalization.size == sum(s[0] for s in OBSERVATION_SHAPES.values())
    assert Qs[0].model.output_shape == (None, 11)


def test_normalized_mlp_refuses_batch_renorm():
    with pytest.raises(ValueError, match='normalized_mlp'):
        policies.get({'class_name': 'FeedforwardGaussianPolicy',
                      'config': {'network': 'normalized_mlp',
                                 'batch_renorm': True}}, Spec)


# The presets ---------------------------------------------------------------

PENDULUM = ['--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1']


def test_presets_pick_the_fast_agents_parts():
    td3 = variant_for('--algorithm', 'FastTD3', *PENDULUM)
    sac = variant_for('--algorithm', 'FastSAC', *PENDULUM)
    assert td3['policy_params']['config']['exploration_noise'] == {
        'std_min': 0.001, 'std_max': 0.4}
    assert sac['policy_params']['class_name'] == 'FeedforwardGaussianPolicy'
    assert sac['algorithm_params']['config']['initial_alpha'] == 0.001
    for variant in (td3, sac):
        config = variant['algorithm_params']['config']
        assert (config['n_train_repeat'], config['policy_delay'],
                config['tau'], config['weight_decay']) == (2, 2, 0.1, 0.1)
        assert variant['replay_pool_params'] == {
            'class_name': 'NStepReplayPool',
            'config': {'n_step': 3, 'max_size': int(1e6)}}
        for params in (variant['policy_params'], variant['Q_params']):
            assert params['config']['network'] == 'normalized_mlp'
        assert variant['Q_params']['config']['categorical'] == {
            'n_atoms': 101, 'v_min': -1600.0, 'v_max': 0.0}


def test_n_step_option_sets_the_presets_n():
    variant = variant_for('--algorithm', 'FastTD3', '--n-step', '5',
                          *PENDULUM)
    assert variant['replay_pool_params']['config']['n_step'] == 5


HALF_CHEETAH = ['--universe', 'gym', '--domain', 'HalfCheetah', '--task', 'v5']


@pytest.mark.parametrize('name', ['FastTD3', 'FastSAC'])
def test_presets_step_eight_environments_two_updates_per_four_steps(name):
    """On MuJoCo; Pendulum keeps one environment and two updates per step
    (what the learning tests calibrate); --envs-per-sampler overrides K
    and keeps the ratio; other agents step one environment."""
    def settings(*options):
        variant = variant_for('--algorithm', name, *options)
        config = variant['algorithm_params']['config']
        return (variant['sampler_params']['config']['envs_per_sampler'],
                config['n_train_repeat'], config['train_every_n_steps'])
    assert settings(*HALF_CHEETAH) == (8, 2, 4)
    assert settings(*PENDULUM) == (1, 2, 1)
    assert settings(*HALF_CHEETAH, '--envs-per-sampler', '1') == (1, 2, 4)
    sac = variant_for('--algorithm', 'SAC', *HALF_CHEETAH)
    assert sac['sampler_params']['config']['envs_per_sampler'] == 1


def test_fast_td3_trains_on_eight_environments_at_its_presets_ratio():
    from checkpoint_helpers import make_runner, tiny_variant
    variant = tiny_variant(algorithm='FastTD3', epochs=1, epoch_length=100,
                           exploration=60)
    runner = make_runner(variant)
    result = runner.train()
    assert len(runner.sampler._stepper) == 8
    # Steps 61-100 owe 2 updates per multiple of 4: 20.
    assert result['num_train_steps'] == 20
    assert result['total_timestep'] == 100
    runner.stop()
