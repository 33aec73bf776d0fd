"""Pixel observations: frame stacking and action repeat (read off the
frames of an environment that counts its steps), pixel settings per domain,
rendering gymnasium's MuJoCo tasks (in a subprocess: OSMesa must not share
a process with TensorFlow), and bad pixel input as one clear error."""

import numpy as np
import pytest

from conftest import assert_one_line_error, run_cli
from pixel_helpers import CountingEnvironment
from softlearning.environments.pixels import Pixels, pixel_settings


def frame_values(observation, frame_stack=3):
    """The count each stacked frame shows, oldest first."""
    pixels = observation['pixels']
    return [int(pixels[..., 3 * i:3 * i + 3].flat[0])
            for i in range(frame_stack)]


# Frame stacking and action repeat ----------------------------------------------

def test_frames_are_stacked_oldest_first_and_start_with_the_first_frame():
    environment = Pixels(CountingEnvironment(), image_size=8, frame_stack=3,
                         action_repeat=2)
    assert environment.observation_shapes == {'pixels': (8, 8, 9)}
    observation = environment.reset()
    assert observation['pixels'].dtype == np.uint8
    assert frame_values(observation) == [0, 0, 0]
    assert frame_values(environment.step(np.zeros(1))[0]) == [0, 0, 2]
    assert frame_values(environment.step(np.zeros(1))[0]) == [0, 2, 4]
    assert frame_values(environment.step(np.zeros(1))[0]) == [2, 4, 6]


def test_action_repeat_sums_rewards_and_stops_at_a_termination():
    environment = Pixels(CountingEnvironment(terminate_at=7), image_size=8,
                         action_repeat=3)
    environment.reset()
    assert environment.step(np.zeros(1))[1:3] == (3.0, False)
    assert environment.step(np.zeros(1))[1:3] == (3.0, False)
    # The termination comes at the first of the third step's repeats: the
    # step stops there, with that repeat's reward and frame.
    observation, reward, terminated, truncated, _ = environment.step(
        np.zeros(1))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert frame_values(observation)[-1] == 7
    assert environment.wrapped.count == 7


def test_a_time_limit_inside_the_repeats_ends_the_step_as_a_truncation():
    environment = Pixels(CountingEnvironment(), image_size=8,
                         action_repeat=4)
    environment.wrapped.truncate_at = 6
    environment.reset()
    assert environment.step(np.zeros(1))[1:4] == (4.0, False, False)
    assert environment.step(np.zeros(1))[1:4] == (2.0, False, True)
    assert environment.wrapped.count == 6


def test_pixels_only_false_keeps_the_state_observations():
    environment = Pixels(CountingEnvironment(), image_size=8,
                         pixels_only=False)
    observation = environment.reset()
    assert set(observation) == {'pixels', 'count'}
    assert set(environment.observation_keys) == {'pixels', 'count'}


def test_episode_state_holds_the_frame_stack():
    environment = Pixels(CountingEnvironment(), image_size=8, action_repeat=2)
    environment.reset()
    environment.step(np.zeros(1))
    state = environment.get_episode_state()
    expected = environment.step(np.zeros(1))[0]
    environment.reset()
    environment.set_episode_state(state)
    np.testing.assert_array_equal(environment.step(np.zeros(1))[0]['pixels'],
                                  expected['pixels'])


def test_pixel_settings_defaults_per_domain_and_bad_values():
    assert pixel_settings('dm_control', 'cartpole')['action_repeat'] == 8
    assert pixel_settings('dm_control', 'cheetah')['action_repeat'] == 4
    assert pixel_settings('dm_control', 'walker')['action_repeat'] == 2
    assert pixel_settings('gym', 'HalfCheetah')['action_repeat'] == 4
    assert pixel_settings('dm_control', 'cartpole', {'action_repeat': 2})[
        'action_repeat'] == 2
    with pytest.raises(ValueError, match='Valid choices: image_size, frame_stack'):
        pixel_settings('dm_control', 'cartpole', {'frames': 3})
    with pytest.raises(ValueError, match='frame_stack must be a positive'):
        pixel_settings('dm_control', 'cartpole', {'frame_stack': 0})


def test_building_an_environment_resolves_its_pixel_settings_once(
        monkeypatch):
    """The settings are resolved once, and give both the adapter's frame
    size and the wrapper's."""
    from softlearning import environments
    from softlearning.environments import pixels
    resolved, adapter_kwargs = [], []

    def counting_pixel_settings(*args):
        resolved.append(args)
        return pixel_settings(*args)

    def adapter(universe, domain, task, kwargs):
        adapter_kwargs.append(kwargs)
        return CountingEnvironment()

    monkeypatch.setattr(pixels, 'pixel_settings', counting_pixel_settings)
    monkeypatch.setattr(environments, 'get_environment', adapter)
    environment = environments.get_environment_from_params({
        'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5',
        'kwargs': {'observation_keys': None}, 'pixels': {'image_size': 16}})
    assert resolved == [('gym', 'HalfCheetah', {'image_size': 16})]
    assert adapter_kwargs == [{'observation_keys': None,
                               'render_mode': 'rgb_array', 'width': 16,
                               'height': 16, 'camera_id': 0}]
    assert isinstance(environment, Pixels)
    assert (environment.image_size, environment.action_repeat) == (16, 4)


RENDER_GYMNASIUM_MUJOCO = """
from softlearning.environments import rendering
rendering.configure_offscreen_rendering()
import numpy as np
from softlearning.environments import get_environment_from_params
environment = get_environment_from_params({
    'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5', 'kwargs': {},
    'pixels': {'image_size': 48, 'frame_stack': 2}})
first = environment.reset(seed=0)['pixels']
after = environment.step(np.ones(6))[0]['pixels']
print(first.shape, first.dtype, int(environment.action_repeat),
      bool(np.array_equal(first[..., 3:], after[..., :3])),
      bool(np.any(first[..., 3:] != after[..., 3:])), int(first.std() > 0))
"""


def test_gymnasium_mujoco_renders_pixels():
    """In a process without TensorFlow, as sampler actors render: frames of
    the chosen size, the stack shifting by one frame per step."""
    from conftest import run_python
    result = run_python(RENDER_GYMNASIUM_MUJOCO, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == (
        '(48, 48, 6) uint8 4 True True 1'), result.stdout


# Bad input ----------------------------------------------------------------------------

def _variant_error(*options):
    from checkpoint_helpers import variant_for
    with pytest.raises(ValueError) as error:
        variant_for(*options)
    return str(error.value)


def test_pixels_of_an_environment_that_cannot_render_sizes():
    message = _variant_error('--universe', 'gym', '--domain', 'Pendulum',
                             '--task', 'v1', '--observation', 'pixels')
    assert 'gym/Pendulum cannot render frames of a chosen size' in message
    assert '--universe dm_control --domain cartpole' in message
    message = _variant_error('--universe', 'pybullet', '--domain',
                             'HalfCheetahBulletEnv', '--task', 'v0',
                             '--observation', 'pixels')
    assert 'pybullet/HalfCheetahBulletEnv cannot render' in message


def test_pixels_need_sac_with_its_gaussian_policy():
    message = _variant_error('--universe', 'dm_control', '--domain',
                             'cartpole', '--task', 'swingup', '--observation',
                             'pixels', '--algorithm', 'TD3')
    assert 'Valid: --algorithm SAC' in message


def test_missing_osmesa_names_what_to_install(monkeypatch):
    import ctypes.util
    find_library = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, 'find_library', lambda name: (
        None if name == 'OSMesa' else find_library(name)))
    monkeypatch.setenv('MUJOCO_GL', 'osmesa')
    message = _variant_error('--universe', 'dm_control', '--domain',
                             'cartpole', '--task', 'swingup',
                             '--observation', 'pixels')
    assert 'libOSMesa is not installed' in message
    assert 'apt-get install libosmesa6' in message


def test_bad_pixel_settings_through_the_command_line():
    result = run_cli('run_example_local', 'examples.development',
                     '--universe', 'dm_control', '--domain', 'cartpole',
                     '--task', 'swingup', '--observation', 'pixels',
                     '--config',
                     'environment_params.training.pixels.frame_stack=0')
    assert_one_line_error(
        result, 'pixels frame_stack must be a positive integer, got 0')
