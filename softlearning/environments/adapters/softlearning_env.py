"""The one environment interface every algorithm and sampler talks to.

Adapters wrap gymnasium, dm_control and pybullet environments so that
- observations are always a dict of float32 arrays (``observation_space`` is a
  ``gymnasium.spaces.Dict``), selected and ordered by ``observation_keys``
  (rendered frames, environments/pixels.py, are uint8);
- actions are always in [-1, 1] and rescaled here to the simulator's bounds;
- ``step`` returns ``(observation, reward, terminated, truncated, info)`` with
  terminated (a true end: do not bootstrap) and truncated (a time limit:
  bootstrap) kept apart;
- physical parameters can be read and set with ``get_physical_parameters``/
  ``set_physical_parameters``, which the domain-randomization curriculum
  uses. (``get_state``/``set_state`` mean checkpoint state everywhere else:
  pools, samplers, the curriculum's schedule.)
"""

import warnings

import numpy as np
from gymnasium import spaces

from softlearning.utils.registry import check_keys


def normalized_action_space(shape):
    return spaces.Box(low=-1.0, high=1.0, shape=shape, dtype=np.float32)


# Old name -> new name of the physical-parameter accessors.
RENAMED = {'supported_state_keys': 'supported_physical_parameters',
           'get_state': 'get_physical_parameters',
           'set_state': 'set_physical_parameters'}


class SoftlearningEnv:
    """Base class of the adapters. Subclasses implement the ``_``-methods."""

    def __init__(self, universe, domain, task, observation_keys=None):
        self.universe = universe
        self.domain = domain
        self.task = task
        self._requested_observation_keys = (
            tuple(observation_keys) if observation_keys else None)

    # Spaces --------------------------------------------------------------

    @property
    def observation_space(self):
        return self._observation_space

    @property
    def action_space(self):
        return self._action_space

    @property
    def observation_keys(self):
        return tuple(self._observation_space.spaces.keys())

    @property
    def observation_shapes(self):
        return {key: space.shape
                for key, space in self._observation_space.spaces.items()}

    @property
    def action_shape(self):
        return self._action_space.shape

    def _select_observation_space(self, full_space):
        """Keep (and order) only the requested observation keys."""
        keys = self._requested_observation_keys or tuple(full_space.spaces)
        check_keys(
            keys, sorted(full_space.spaces),
            f'observation_keys for {self.universe}/{self.domain}/{self.task}')
        return spaces.Dict({key: full_space.spaces[key] for key in keys})

    def _filter_observation(self, observation):
        return {key: observation[key] for key in self.observation_keys}

    # Actions -------------------------------------------------------------

    def _set_action_bounds(self, low, high):
        self._action_low = np.asarray(low, dtype=np.float64)
        self._action_high = np.asarray(high, dtype=np.float64)
        if not (np.isfinite(self._action_low).all()
                and np.isfinite(self._action_high).all()):
            raise ValueError(
                f"{self._describe()} has actions without finite bounds "
                f"(low {self._action_low.tolist()}, high "
                f"{self._action_high.tolist()}); softlearning's policies act "
                "in [-1, 1], scaled to the bounds: give the action space "
                "finite low and high.")
        self._action_space = normalized_action_space(self._action_low.shape)

    @property
    def action_bounds(self):
        """The simulator's (low, high); actions given to ``step`` are in
        [-1, 1] and mapped linearly onto these."""
        return self._action_low.copy(), self._action_high.copy()

    def _denormalize_action(self, action):
        """Map an action in [-1, 1] to the simulator's [low, high]."""
        action = np.clip(action, -1.0, 1.0)
        return (self._action_low
                + (action + 1.0) * 0.5 * (self._action_high - self._action_low))

    # Interface -----------------------------------------------------------

    def reset(self, seed=None):
        raise NotImplementedError

    def step(self, action):
        raise NotImplementedError

    def render(self, width=None, height=None, camera_id=None):
        """Returns an RGB frame (H, W, 3) as uint8."""
        raise NotImplementedError

    def seed(self, seed):
        self.reset(seed=seed)

    def close(self):
        pass

    # Mid-episode state (checkpoints) ---------------------------------------

    def get_episode_state(self):
        """A picklable snapshot of the running episode (simulator state,
        step count, RNG) that ``set_episode_state`` continues exactly, or
        None where the adapter cannot save one (then a restored sampler
        starts a fresh episode)."""
        return None

    def set_episode_state(self, state):
        raise NotImplementedError(
            f"{type(self).__name__} cannot restore an episode state.")

    # Physical parameters (domain randomization) --------------------------

    def get_physical_parameters(self):
        """Current physical parameters set with ``set_physical_parameters``,
        as a dict ``{name: multiplier}``."""
        parameters = self.physical_parameters
        return {} if parameters is None else parameters.get()

    def set_physical_parameters(self, values):
        """Set physical parameters from a dict ``{name: value}``.

        The built-in adapters support the keys in
        ``supported_physical_parameters`` (see physical_parameters.py:
        'mass', 'friction', 'damping' as multipliers for all elements, or
        'mass/<body>' etc. for one); anything else is a clear error. Your
        own environment takes part in the curriculum by overriding this
        method (and ``supported_physical_parameters``).
        """
        if not values:
            return
        parameters = self.physical_parameters
        if parameters is None:
            raise ValueError(
                f"{type(self).__name__} ({self.universe}/{self.domain}/"
                f"{self.task}) has no settable physical parameters "
                f"{sorted(values)}; supported: "
                f"{sorted(self.supported_physical_parameters)}")
        parameters.set(values)

    @property
    def supported_physical_parameters(self):
        """The names ``set_physical_parameters`` accepts."""
        parameters = self.physical_parameters
        return () if parameters is None else parameters.supported_keys

    @property
    def physical_parameters(self):
        """A PhysicalParameters of the simulator, or None (no parameters)."""
        return None

    # The names before ``*_physical_parameters`` (one release) ------------

    def __init_subclass__(cls, **kwargs):
        """An environment class written against the old names
        (``supported_state_keys``, ``get_state``/``set_state`` meaning
        physical parameters) keeps working, with a DeprecationWarning."""
        super().__init_subclass__(**kwargs)
        for old, new in RENAMED.items():
            if old in vars(cls) and new not in vars(cls):
                warnings.warn(
                    f"{cls.__name__}.{old} is deprecated: name it {new} "
                    "(get_state/set_state mean checkpoint state).",
                    DeprecationWarning, stacklevel=2)
                setattr(cls, new, vars(cls)[old])

    @property
    def supported_state_keys(self):
        warnings.warn("supported_state_keys is deprecated: use "
                      "supported_physical_parameters", DeprecationWarning,
                      stacklevel=2)
        return self.supported_physical_parameters

    def get_state(self):
        warnings.warn("an environment's get_state is deprecated: use "
                      "get_physical_parameters", DeprecationWarning,
                      stacklevel=2)
        return self.get_physical_parameters()

    def set_state(self, values):
        warnings.warn("an environment's set_state is deprecated: use "
                      "set_physical_parameters", DeprecationWarning,
                      stacklevel=2)
        return self.set_physical_parameters(values)

    def _describe(self):
        return f"{self.universe}/{self.domain}/{self.task}"

    def __repr__(self):
        return (f"{type(self).__name__}({self.universe}/{self.domain}/"
                f"{self.task}, observation_keys={self.observation_keys}, "
                f"action_shape={self.action_shape})")
