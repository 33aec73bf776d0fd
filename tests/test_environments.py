import numpy as np
import pytest

from softlearning.environments import (UNIVERSES, get_environment,
                                       resolve_task)


@pytest.mark.parametrize('universe, domain, task, keys', [
    ('gym', 'Pendulum', 'v1', ('observations',)),
    ('gym', 'HalfCheetah', 'v5', ('observations',)),
    ('dm_control', 'cheetah', 'run', ('position', 'velocity')),
    ('pybullet', 'HalfCheetahBulletEnv', 'v0', ('observations',)),
])
def test_adapter_interface(universe, domain, task, keys):
    env = get_environment(universe, domain, task)
    assert env.observation_keys == keys
    observation = env.reset(seed=0)
    assert set(observation) == set(keys)
    for key in keys:
        assert observation[key].dtype == np.float32
        assert observation[key].shape == env.observation_shapes[key]
    assert np.all(env.action_space.low == -1.0)
    assert np.all(env.action_space.high == 1.0)
    next_observation, reward, terminated, truncated, info = env.step(
        np.zeros(env.action_shape, dtype=np.float32))
    assert set(next_observation) == set(keys)
    assert np.isfinite(reward)
    assert isinstance(terminated, bool) and isinstance(truncated, bool)
    env.close()


def test_actions_are_rescaled_to_simulator_bounds():
    env = get_environment('gym', 'Pendulum', 'v1')  # torque bounds [-2, 2]
    assert np.allclose(env._denormalize_action(np.array([-1.0])), [-2.0])
    assert np.allclose(env._denormalize_action(np.array([1.0])), [2.0])
    assert np.allclose(env._denormalize_action(np.array([0.25])), [0.5])
    # Out-of-range actions are clipped, never extrapolated.
    assert np.allclose(env._denormalize_action(np.array([3.0])), [2.0])


def test_dm_control_observation_keys_select_and_order():
    env = get_environment('dm_control', 'cheetah', 'run',
                          {'observation_keys': ('velocity',)})
    observation = env.reset(seed=0)
    assert list(observation) == ['velocity']
    assert observation['velocity'].shape == (9,)


def test_unknown_observation_key_names_valid_keys():
    with pytest.raises(ValueError, match=r"'speed'.*position"):
        get_environment('dm_control', 'cheetah', 'run',
                        {'observation_keys': ('speed',)})


def test_same_seed_same_episode():
    first = get_environment('gym', 'HalfCheetah', 'v5').reset(seed=3)
    second = get_environment('gym', 'HalfCheetah', 'v5').reset(seed=3)
    other = get_environment('gym', 'HalfCheetah', 'v5').reset(seed=4)
    np.testing.assert_array_equal(first['observations'],
                                  second['observations'])
    assert not np.array_equal(first['observations'], other['observations'])


def test_time_limit_is_truncation_not_termination():
    env = get_environment('gym', 'Pendulum', 'v1')  # 200-step limit
    env.reset(seed=0)
    for step in range(200):
        _, _, terminated, truncated, _ = env.step(np.zeros(1))
        assert not terminated
    assert truncated and step == 199


def test_dm_control_time_limit_is_truncation():
    env = get_environment('dm_control', 'cartpole', 'swingup',
                          {'task_kwargs': {'time_limit': 0.05}})
    env.reset(seed=0)
    done = False
    for _ in range(100):
        _, _, terminated, truncated, _ = env.step(np.zeros(1))
        if terminated or truncated:
            done = True
            break
    assert done and truncated and not terminated


def test_falling_hopper_terminates():
    env = get_environment('gym', 'Hopper', 'v5')
    env.reset(seed=0)
    for _ in range(1000):
        _, _, terminated, truncated, _ = env.step(np.ones(3))
        if terminated or truncated:
            break
    assert terminated and not truncated


@pytest.mark.parametrize('universe, domain, task, message', [
    ('gymm', 'Pendulum', 'v1', r"Unknown universe 'gymm'.*gym, dm_control, pybullet"),
    ('gym', 'Pendulumm', 'v1', r"Unknown gym domain 'Pendulumm'.*Pendulum"),
    ('gym', 'Pendulum', 'v9', r"Unknown gym task 'v9'.*Valid tasks: v1"),
    ('dm_control', 'cheetahh', 'run', r"Unknown dm_control domain.*cheetah"),
    ('dm_control', 'cheetah', 'fly', r"Unknown dm_control task 'fly'.*run"),
    ('pybullet', 'HalfCheetah', 'v0', r"Unknown pybullet domain.*HalfCheetahBulletEnv"),
])
def test_bad_environment_names_list_valid_choices(universe, domain, task,
                                                  message):
    with pytest.raises(ValueError, match=message):
        resolve_task(universe, domain, task)


def test_retired_gym_versions_map_to_newest(capsys):
    assert resolve_task('gym', 'HalfCheetah', 'v3') == 'v5'
    assert resolve_task('gym', 'Hopper', 'v2') == 'v5'
    assert 'HalfCheetah-v5' in capsys.readouterr().err
    # Existing versions are left alone.
    assert resolve_task('gym', 'HalfCheetah', 'v4') == 'v4'


def test_universes():
    assert set(UNIVERSES) == {'gym', 'dm_control', 'pybullet'}


@pytest.mark.parametrize('universe, domain, task', [
    ('gym', 'HalfCheetah', 'v5'),
    ('dm_control', 'cheetah', 'run'),
    ('dm_control', 'cartpole', 'swingup'),
])
def test_episode_state_continues_exactly(universe, domain, task):
    """A saved mid-episode state, restored into a fresh environment,
    continues bit for bit (checkpoints and filming rely on it)."""
    rng = np.random.default_rng(0)
    env = get_environment(universe, domain, task)
    env.reset(seed=1)
    actions = rng.uniform(-1, 1, (40, *env.action_shape))
    for action in actions[:20]:
        env.step(action)
    state = env.get_episode_state()
    expected = [env.step(action)[:4] for action in actions[20:]]

    restored = get_environment(universe, domain, task)
    restored.reset(seed=99)
    restored.set_episode_state(state)
    for action, (observation, reward, terminated, truncated) in zip(
            actions[20:], expected):
        got = restored.step(action)
        for key in observation:
            np.testing.assert_array_equal(got[0][key], observation[key])
        assert got[1:4] == (reward, terminated, truncated)
