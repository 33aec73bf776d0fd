"""Pixel observations: rendered frames, stacked, with action repeat.

``Pixels(environment, image_size=84, frame_stack=3, action_repeat=8)``
observes the last ``frame_stack`` rendered frames (uint8, height x width x
3 * frame_stack, channels-last, the oldest first) instead of the simulator's
state, and repeats every action ``action_repeat`` times:

- the reward of a step is the sum over its repeats;
- a termination or truncation inside the repeats ends the step there (the
  remaining repeats are not taken), and the frame is rendered after the last
  repeat taken;
- at an episode's start the stack holds the first frame ``frame_stack``
  times.

With ``pixels_only=False`` the state observations are kept beside the
'pixels' key (float32 as usual).

Rendering happens in the process that steps the environment: sampler actors,
which never import TensorFlow (see rendering.py). The learner builds this
wrapper only to read its observation and action spaces; it never resets or
steps it.

A variant asks for this with ``environment_params[...]['pixels'] = {...}`` (the
CLI's ``--observation pixels``); ``get_environment_from_params`` hands the
building to ``build_pixel_environment``, which resolves the settings once
and wraps the adapter. The per-domain action repeats below are those of the
pixel-SAC literature (PlaNet, SAC-AE, DrQ): they set how many simulator
steps one policy step covers.
"""

import collections
import ctypes.util

import numpy as np
from gymnasium import spaces

from softlearning.utils.registry import with_defaults

from .observation_wrapper import ObservationWrapper
from .rendering import default_mujoco_gl

PIXELS = 'pixels'
DEFAULTS = {'image_size': 84, 'frame_stack': 3, 'action_repeat': None,
            'pixels_only': True, 'camera_id': 0}
# {universe: {domain: repeats}}; other domains repeat DEFAULT_ACTION_REPEAT.
ACTION_REPEAT = {
    'dm_control': {'cartpole': 8, 'cheetah': 4, 'walker': 2, 'finger': 2,
                   'reacher': 4, 'ball_in_cup': 4},
}
DEFAULT_ACTION_REPEAT = 4
PIXEL_UNIVERSES = ('dm_control', 'gym')


def default_action_repeat(universe, domain):
    return ACTION_REPEAT.get(universe, {}).get(domain, DEFAULT_ACTION_REPEAT)


def pixel_settings(universe, domain, settings=None):
    """The full settings of a variant's 'pixels' entry: the defaults, then
    the given ones. Unknown or bad settings are a ValueError naming the valid
    ones."""
    settings = with_defaults(DEFAULTS, settings, 'pixels')
    if settings['action_repeat'] is None:
        settings['action_repeat'] = default_action_repeat(universe, domain)
    for key in ('image_size', 'frame_stack', 'action_repeat'):
        value = settings[key]
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"pixels {key} must be a positive integer, got "
                             f"{value!r}")
    if settings['image_size'] < 16:
        raise ValueError(f"pixels image_size {settings['image_size']} is too "
                         "small for the convolutional encoder (at least 16)")
    return settings


def _gym_renders_pixels(domain, task):
    """Whether a gymnasium environment is a MuJoCo one (whose frames have a
    size set when it is made)."""
    import gymnasium
    from .adapters.gymnasium_adapter import resolve_environment_id
    spec = gymnasium.spec(resolve_environment_id(domain, task))
    entry_point = spec.entry_point if isinstance(spec.entry_point, str) else (
        f'{spec.entry_point.__module__}:{spec.entry_point.__name__}')
    return entry_point.startswith('gymnasium.envs.mujoco')


def validate_pixel_params(environment_params):
    """Checks a variant's 'pixels' entry before anything is built: an
    environment that cannot render frames of a chosen size, or no OpenGL
    backend to render them with, is one clear error."""
    settings = environment_params.get(PIXELS)
    if not settings:
        return
    universe, domain = environment_params['universe'], environment_params[
        'domain']
    pixel_settings(universe, domain, settings)
    if environment_params.get('pomdp'):
        raise ValueError("--observation pixels and --pomdp cannot be combined "
                         "(pixels already hide the state)")
    if universe not in PIXEL_UNIVERSES or (
            universe == 'gym' and not _gym_renders_pixels(
                domain, environment_params['task'])):
        raise ValueError(
            f"--observation pixels: {universe}/{domain} cannot render frames "
            "of a chosen size. Choose a dm_control task (e.g. --universe "
            "dm_control --domain cartpole --task swingup) or a gymnasium "
            "MuJoCo one (e.g. --universe gym --domain HalfCheetah --task v5)")
    check_offscreen_rendering()


def check_offscreen_rendering():
    """Rendering without a screen needs OSMesa (CPU) or EGL (GPU): say what
    to install when the chosen backend's library is missing."""
    backend = default_mujoco_gl()
    library = {'osmesa': 'OSMesa', 'egl': 'EGL'}.get(backend)
    if library and not ctypes.util.find_library(library):
        raise ValueError(
            f"--observation pixels renders frames with MUJOCO_GL={backend}, "
            f"but lib{library} is not installed. Install OSMesa (Debian/"
            "Ubuntu: apt-get install libosmesa6; conda: conda install -c "
            "conda-forge mesalib) and run with MUJOCO_GL=osmesa, or use "
            "MUJOCO_GL=egl on a machine with a GPU.")


def build_pixel_environment(environment_params, build_state_environment):
    """The environment of ``environment_params`` (which have a 'pixels'
    entry) observing frames. Its settings are resolved here, once: they give
    the adapter's frame size (``build_state_environment(params,
    extra_adapter_kwargs)`` builds what is wrapped) and the wrapper's."""
    universe = environment_params['universe']
    settings = pixel_settings(universe, environment_params['domain'],
                              environment_params[PIXELS])
    environment = build_state_environment(
        environment_params, adapter_kwargs(universe, settings))
    return Pixels(environment, **settings)


def adapter_kwargs(universe, settings):
    """What the adapter itself needs to render at this size: gymnasium's
    MuJoCo environments fix the frame size when they are made."""
    if universe != 'gym':
        return {}
    return {'render_mode': 'rgb_array', 'width': settings['image_size'],
            'height': settings['image_size'],
            'camera_id': settings['camera_id']}


class Pixels(ObservationWrapper):
    """An environment adapter observing rendered frames (module docstring).

    Everything but observations and steps (action spaces, the physical
    parameters the curriculum sets) is the wrapped adapter's."""

    def __init__(self, environment, image_size=84, frame_stack=3,
                 action_repeat=1, pixels_only=True, camera_id=0):
        super().__init__(environment)
        self.image_size = int(image_size)
        self.frame_stack = int(frame_stack)
        self.action_repeat = int(action_repeat)
        self.pixels_only = bool(pixels_only)
        self.camera_id = int(camera_id)
        frames = spaces.Box(0, 255, (self.image_size, self.image_size,
                                     3 * self.frame_stack), np.uint8)
        kept = {} if self.pixels_only else dict(
            environment.observation_space.spaces)
        self._observation_space = spaces.Dict({PIXELS: frames, **kept})
        self._frames = collections.deque(maxlen=self.frame_stack)

    def _render(self):
        frame = self._environment.render(width=self.image_size,
                                         height=self.image_size,
                                         camera_id=self.camera_id)
        return np.asarray(frame, np.uint8)

    def _observation(self, state_observation):
        observation = {PIXELS: np.concatenate(self._frames, axis=-1)}
        if not self.pixels_only:
            observation.update(state_observation)
        return observation

    # The part that differs from the wrapped adapter -------------------------

    @property
    def max_episode_steps(self):
        limit = self._environment.max_episode_steps
        return None if limit is None else -(-limit // self.action_repeat)

    def reset(self, seed=None):
        state_observation = self._environment.reset(seed=seed)
        frame = self._render()
        self._frames.clear()
        self._frames.extend([frame] * self.frame_stack)
        return self._observation(state_observation)

    def step(self, action):
        total_reward = 0.0
        for _ in range(self.action_repeat):
            state_observation, reward, terminated, truncated, info = (
                self._environment.step(action))
            total_reward += reward
            if terminated or truncated:
                break
        self._frames.append(self._render())
        return (self._observation(state_observation), total_reward,
                terminated, truncated, info)

    def get_episode_state(self):
        state = self._environment.get_episode_state()
        if state is None:
            return None
        return {'environment': state, 'frames': list(self._frames)}

    def set_episode_state(self, state):
        self._environment.set_episode_state(state['environment'])
        self._frames.clear()
        self._frames.extend(state['frames'])

    def __repr__(self):
        return (f"Pixels({self._environment!r}, {self.image_size}x"
                f"{self.image_size}, frame_stack={self.frame_stack}, "
                f"action_repeat={self.action_repeat})")
