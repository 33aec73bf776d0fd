"""POMDP wrappers: each known split selects the simulator's positions or
velocities, the previous action is observed, episode state round-trips,
and unknown environments are one clear error."""

import numpy as np
import pytest

from checkpoint_helpers import variant_for
from softlearning.environments import (get_environment,
                                       get_environment_from_params)
from softlearning.environments.partial_observation import (
    OBSERVATION_SPLITS, PartiallyObserved, observation_split)

# gymnasium MuJoCo: (domain, root coordinates left out of the observation).
MUJOCO_ROOT_EXCLUDED = {'HalfCheetah': 1, 'Hopper': 1, 'Walker2d': 1,
                        'Swimmer': 2, 'Ant': 2, 'Humanoid': 2,
                        'InvertedPendulum': 0}


def test_pendulum_positions_are_cos_sin_and_velocity_is_theta_dot():
    env = get_environment('gym', 'Pendulum', 'v1')
    positions = PartiallyObserved(env, 'positions')
    observation = positions.reset(seed=0)
    theta, theta_dot = env.unwrapped.state
    assert positions.observation_shapes == {'observations': (2,)}
    np.testing.assert_allclose(observation['observations'],
                               [np.cos(theta), np.sin(theta)], rtol=1e-6)
    velocities = PartiallyObserved(get_environment('gym', 'Pendulum', 'v1'),
                                   'velocities')
    observation = velocities.reset(seed=0)
    np.testing.assert_allclose(observation['observations'], [theta_dot],
                               rtol=1e-6)


@pytest.mark.parametrize('domain', sorted(MUJOCO_ROOT_EXCLUDED))
def test_mujoco_splits_are_qpos_and_qvel(domain):
    """After a few steps (nonzero velocities): positions == qpos without the
    root's excluded coordinates, velocities == qvel."""
    env = get_environment('gym', domain, 'v5')
    env.reset(seed=1)
    for _ in range(3):
        full, *_ = env.step(np.full(env.action_shape, 0.3, np.float32))
    data = env.unwrapped.data
    skip = MUJOCO_ROOT_EXCLUDED[domain]
    full = full['observations']
    positions = full[observation_split('gym', domain, 'positions')
                     ['observations']]
    velocities = full[observation_split('gym', domain, 'velocities')
                      ['observations']]
    np.testing.assert_allclose(positions, data.qpos[skip:], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(velocities, np.clip(data.qvel, -10, 10),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('domain', sorted(OBSERVATION_SPLITS['dm_control']))
def test_dm_control_splits_name_existing_observations(domain):
    from softlearning.environments.adapters.dm_control_adapter import (
        _import_suite)
    task = next(task for name, task in _import_suite().ALL_TASKS
                if name == domain)
    env = get_environment('dm_control', domain, task)
    for part in ('positions', 'velocities'):
        wrapped = PartiallyObserved(env, part)
        observation = wrapped.reset(seed=0)
        assert set(observation) == set(OBSERVATION_SPLITS['dm_control']
                                       [domain][part])
        assert set(observation) < set(env.observation_keys)


@pytest.mark.parametrize('domain', sorted(OBSERVATION_SPLITS['pybullet']))
def test_bullet_splits_match_the_robots_joints(domain):
    env = get_environment('pybullet', domain, 'v0')
    full = env.reset(seed=0)['observations']
    robot = env.unwrapped.robot
    n_joints = len(robot.ordered_joints)
    assert full.shape == (8 + 2 * n_joints + len(robot.foot_list),)
    positions = PartiallyObserved(env, 'positions').reset(seed=0)
    joint_positions = [joint.current_relative_position()[0]
                       for joint in robot.ordered_joints]
    np.testing.assert_allclose(positions['observations'][5:],
                               joint_positions, rtol=1e-5, atol=1e-6)
    velocities = PartiallyObserved(env, 'velocities').reset(seed=0)
    assert velocities['observations'].shape == (3 + n_joints,)


def test_previous_action_is_observed_and_reset_to_zero():
    env = PartiallyObserved(get_environment('gym', 'Pendulum', 'v1'),
                            'positions', previous_action=True)
    assert env.observation_shapes == {'observations': (2,),
                                      'previous_action': (1,)}
    observation = env.reset(seed=0)
    np.testing.assert_array_equal(observation['previous_action'], [0.0])
    observation, *_ = env.step(np.array([0.5], np.float32))
    np.testing.assert_array_equal(observation['previous_action'], [0.5])
    observation, *_ = env.step(np.array([3.0], np.float32))
    np.testing.assert_array_equal(observation['previous_action'], [1.0])
    # Mid-episode state carries the previous action.
    state = env.get_episode_state()
    expected, *_ = env.step(np.array([-0.25], np.float32))
    env.set_episode_state(state)
    observation, *_ = env.step(np.array([-0.25], np.float32))
    np.testing.assert_allclose(observation['observations'],
                               expected['observations'])
    np.testing.assert_array_equal(observation['previous_action'], [-0.25])
    assert env.reset(seed=1)['previous_action'][0] == 0.0


def test_everything_else_is_the_wrapped_environments():
    inner = get_environment('gym', 'Pendulum', 'v1')
    env = PartiallyObserved(inner, 'velocities')
    assert env.action_shape == inner.action_shape
    assert env.universe == 'gym' and env.domain == 'Pendulum'
    assert env.action_bounds[1] == pytest.approx(inner.action_bounds[1])


def test_environment_params_build_the_wrapper():
    env = get_environment_from_params({
        'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1', 'kwargs': {},
        'pomdp': {'observe': 'positions', 'previous_action': False}})
    assert isinstance(env, PartiallyObserved)
    assert env.observation_shapes == {'observations': (2,)}


def test_environment_without_a_split_is_one_clear_error():
    with pytest.raises(ValueError) as error:
        observation_split('gym', 'MountainCarContinuous', 'positions')
    message = str(error.value)
    assert 'gym/MountainCarContinuous' in message
    assert 'gym/Pendulum' in message and 'dm_control/cartpole' in message
    with pytest.raises(ValueError, match='valid: positions, velocities'):
        observation_split('gym', 'Pendulum', 'angles')


def test_cli_pomdp_reaches_training_and_evaluation_environments():
    variant = variant_for('--universe', 'dm_control', '--domain', 'cartpole',
                          '--task', 'swingup', '--pomdp', 'positions',
                          '--pomdp-previous-action', 'true')
    for params in variant['environment_params'].values():
        assert params['pomdp'] == {'observe': 'positions',
                                   'previous_action': True}


@pytest.mark.parametrize('options, message', [
    (['--domain', 'MountainCarContinuous', '--task', 'v0', '--pomdp',
      'positions'], 'split of gym/MountainCarContinuous'),
    (['--pomdp-previous-action', 'true'], '--pomdp-previous-action needs'),
])
def test_cli_pomdp_bad_input_is_one_clear_error(options, message):
    with pytest.raises(ValueError, match=message):
        variant_for('--universe', 'gym', *options)
