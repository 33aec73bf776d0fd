"""Adapter for gymnasium environments (classic control, MuJoCo, ...)."""

import contextlib
import os
import sys
import warnings

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from softlearning.utils import file_descriptors, imports
from softlearning.utils.registry import check_keys

from .softlearning_env import SoftlearningEnv

# A Box observation is exposed under this key, as in the original softlearning.
DEFAULT_OBSERVATION_KEY = 'observations'


def _is_legacy_mujoco_py(spec):
    """gymnasium keeps v2/v3 MuJoCo ids registered, but they only raise."""
    entry_point = spec.entry_point
    return callable(entry_point) and 'mujoco_py' in getattr(
        entry_point, '__name__', '')


def _version(env_id):
    return gym.envs.registration.parse_env_id(env_id)[2]


# The attributes of a user's environment with its own physical parameters
# (supported names, setter, getter), and the names they had before (kept for
# one release).
OWN_PARAMETER_NAMES = ('supported_physical_parameters',
                       'set_physical_parameters', 'get_physical_parameters')
DEPRECATED_OWN_PARAMETER_NAMES = ('supported_state_keys', 'set_state',
                                  'get_state')


def own_parameter_names(env):
    """Which names ``env`` defines its own physical parameters under, or
    None. (gymnasium's MuJoCo environments have a ``set_state(qpos, qvel)``
    of their own: only ``supported_state_keys`` marks the old names.)"""
    if hasattr(env, OWN_PARAMETER_NAMES[0]):
        return OWN_PARAMETER_NAMES
    if hasattr(env, DEPRECATED_OWN_PARAMETER_NAMES[0]):
        warnings.warn(
            f"{type(env).__name__}: supported_state_keys, set_state and "
            "get_state are deprecated names of an environment's physical "
            "parameters; rename them supported_physical_parameters, "
            "set_physical_parameters and get_physical_parameters.",
            DeprecationWarning, stacklevel=3)
        return DEPRECATED_OWN_PARAMETER_NAMES
    return None


def _is_pybullet(spec):
    return str(spec.entry_point).startswith('pybullet_envs')


def registered_domains(include=lambda spec: not _is_pybullet(spec)):
    """{domain: sorted list of tasks (versions)} of the gymnasium registry."""
    domains = {}
    for env_id, spec in gym.registry.items():
        namespace, name, version = gym.envs.registration.parse_env_id(env_id)
        if namespace is not None or version is None:
            continue
        if _is_legacy_mujoco_py(spec) or not include(spec):
            continue
        domains.setdefault(name, []).append(f'v{version}')
    return {name: sorted(tasks, key=lambda v: int(v[1:]))
            for name, tasks in domains.items()}


def import_environment_module(domain, universe='gym', import_path=None):
    """Your own environments: a domain 'my_package.envs:Walker' imports
    ``my_package.envs`` (which registers its environments with gymnasium) and
    names its 'Walker'. Every process that builds the environment (trials,
    sampler actors, ``simulate``) does the import: from where it is
    importable, else from ``import_path``, the folder it was imported from
    when training started (the variant records it)."""
    if ':' not in domain:
        return domain
    module, _, name = domain.partition(':')
    try:
        imports.import_module(module, import_path)
    except ImportError as error:
        hint = (f"; it came from {import_path} when training started, "
                "which this machine lacks" if import_path
                and not os.path.isdir(import_path) else
                "; run from the folder that holds it, or pip install it")
        raise ValueError(
            f"Cannot import module '{module}' of {universe} domain "
            f"'{domain}': {error}{hint}") from None
    return name


def _action_space(environment_id, kwargs=None):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        env = gym.make(environment_id, disable_env_checker=True,
                       **(kwargs or {}))
    try:
        return env.action_space
    finally:
        env.close()


@contextlib.contextmanager
def native_output_discarded():
    """Simulators' own lines (MuJoCo's compiler warnings) go to the file
    descriptors, past Python's streams: an error message stays one line."""
    with open(os.devnull, 'w') as devnull, \
            file_descriptors.redirected((1, 2), devnull):
        yield


def continuous_domains(domains):
    """The names of ``domains`` ({domain: tasks}) whose newest task builds
    here with continuous (Box) actions: what softlearning can train."""
    names = []
    with native_output_discarded():
        for name, tasks in sorted(domains.items()):
            try:
                space = _action_space(f'{name}-{tasks[-1]}')
            except Exception:  # e.g. a dependency not installed
                continue
            if isinstance(space, spaces.Box):
                names.append(name)
    return names


def check_continuous_actions(environment_id, kwargs=None):
    """Raises ValueError unless ``environment_id`` builds with continuous
    (Box) actions; before any trial starts."""
    try:
        with native_output_discarded():
            space = _action_space(environment_id, kwargs)
    except Exception as error:
        raise ValueError(f"Cannot build {environment_id}: "
                         f"{type(error).__name__}: {error}") from None
    if not isinstance(space, spaces.Box):
        raise ValueError(
            f"{environment_id} has a {type(space).__name__} action space; "
            "softlearning trains continuous (Box) actions only, e.g. "
            "Pendulum, MountainCarContinuous, HalfCheetah.")


def resolve_environment_id(domain, task, universe='gym',
                           include=lambda spec: not _is_pybullet(spec)):
    """Returns a gymnasium id for ``domain``/``task`` or raises ValueError.

    Old task names from the gym era (HalfCheetah ``v2``/``v3``) point to
    environments gymnasium no longer ships; those map to the newest version
    of the domain with a one-line notice.
    """
    domain = import_environment_module(domain, universe)
    domains = registered_domains(include)
    if domain not in domains:
        raise ValueError(
            f"Unknown {universe} domain '{domain}'. Valid domains: "
            f"{', '.join(continuous_domains(domains))}")
    env_id = f'{domain}-{task}'
    spec = gym.registry.get(env_id)
    if spec is not None and include(spec) and not _is_legacy_mujoco_py(spec):
        return env_id
    newest = domains[domain][-1]
    # Registered but retired: mujoco-py based, or (gymnasium-robotics
    # registers its own copies of the v2/v3 MuJoCo tasks) not offered here.
    if spec is not None:
        new_id = f'{domain}-{newest}'
        print(f"[softlearning] Notice: {env_id} needs mujoco-py, which "
              f"gymnasium no longer ships; using {new_id} instead.",
              file=sys.stderr)
        return new_id
    raise ValueError(
        f"Unknown {universe} task '{task}' for domain '{domain}'. Valid tasks: "
        f"{', '.join(domains[domain])}")


# Observation spaces a network can take as a float array.
ARRAY_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiBinary,
                spaces.MultiDiscrete)


def flat_spaces(space, environment_id, prefix=''):
    """{key: space} of a Dict observation space, a nested Dict's keys
    joined with '.' ('robot.position'); a space that is no array is a
    ValueError naming it."""
    flat = {}
    for key, subspace in space.spaces.items():
        name = f'{prefix}{key}'
        if isinstance(subspace, spaces.Dict):
            flat.update(flat_spaces(subspace, environment_id, name + '.'))
        elif isinstance(subspace, ARRAY_SPACES):
            flat[name] = subspace
        else:
            raise ValueError(
                f"{environment_id}'s observation '{name}' is a "
                f"{type(subspace).__name__} space; softlearning takes "
                "observations that are arrays (Box, Discrete, MultiBinary, "
                "MultiDiscrete), in Dicts (nested ones too).")
    return flat


def flat_observation(observation, prefix=''):
    """A nested Dict observation as flat_spaces names its parts."""
    flat = {}
    for key, value in observation.items():
        if isinstance(value, dict):
            flat.update(flat_observation(value, f'{prefix}{key}.'))
        else:
            flat[f'{prefix}{key}'] = value
    return flat


class GymnasiumAdapter(SoftlearningEnv):
    """Wraps ``gymnasium.make(f'{domain}-{task}', **kwargs)``."""

    universe_name = 'gym'

    def __init__(self, domain, task, observation_keys=None, render_mode=None,
                 **kwargs):
        super().__init__(self.universe_name, domain, task, observation_keys)
        self._register_environments()
        env_id = resolve_environment_id(
            domain, task, self.universe_name, self._is_own_spec)
        self.environment_id = env_id
        # render_mode only when one is asked for: gymnasium passes it on
        # to the constructor, which a user's environment may not take.
        if render_mode is not None:
            kwargs['render_mode'] = render_mode
        self._env = gym.make(env_id, disable_env_checker=True, **kwargs)

        if not isinstance(self._env.action_space, spaces.Box):
            raise ValueError(
                f"{env_id} has a {type(self._env.action_space).__name__} "
                "action space; softlearning needs continuous (Box) actions.")
        self._set_action_bounds(self._env.action_space.low,
                                self._env.action_space.high)

        raw_space = self._env.observation_space
        if isinstance(raw_space, spaces.Dict):
            full_space = spaces.Dict(flat_spaces(raw_space, env_id))
            nested = any(isinstance(space, spaces.Dict)
                         for space in raw_space.spaces.values())
            self._wrap_observation = flat_observation if nested else dict
        else:
            full_space = spaces.Dict({DEFAULT_OBSERVATION_KEY: raw_space})
            self._wrap_observation = (
                lambda obs: {DEFAULT_OBSERVATION_KEY: obs})
        full_space = spaces.Dict({
            key: spaces.Box(-np.inf, np.inf, shape=space.shape,
                            dtype=np.float32)
            for key, space in full_space.spaces.items()})
        self._observation_space = self._select_observation_space(full_space)

    @staticmethod
    def _register_environments():
        """Hook for adapters whose environments live in another package:
        here gymnasium-robotics' Fetch tasks, where it is installed."""
        from .robotics import register_robotics_environments
        register_robotics_environments()

    @staticmethod
    def _is_own_spec(spec):
        from .robotics import is_fetch_spec, is_robotics_spec
        return not _is_pybullet(spec) and (
            not is_robotics_spec(spec) or is_fetch_spec(spec))

    @property
    def unwrapped(self):
        return self._env.unwrapped

    @property
    def max_episode_steps(self):
        return self._env.spec.max_episode_steps

    @property
    def compute_reward(self):
        """A goal-conditioned environment's reward function
        (``compute_reward(achieved_goal, desired_goal, info)``, vectorized
        over a leading batch axis), or None."""
        return getattr(self._env.unwrapped, 'compute_reward', None)

    # Physical parameters -------------------------------------------------
    #
    # Your own gymnasium environment takes part in the curriculum by defining
    # ``supported_physical_parameters`` and ``set_physical_parameters(dict)``
    # (and, optionally, ``get_physical_parameters()``); the adapter forwards
    # to them. Otherwise MuJoCo environments get the built-in
    # mass/friction/damping multipliers.

    def _own_parameters(self):
        """(environment, its (supported, set, get) attribute names) when the
        environment defines its own parameters, else None. Checked once: an
        environment written against the old names warns once."""
        if not hasattr(self, '_own_parameter_names'):
            self._own_parameter_names = own_parameter_names(
                self._env.unwrapped)
        if self._own_parameter_names is None:
            return None
        return self._env.unwrapped, self._own_parameter_names

    @property
    def supported_physical_parameters(self):
        own = self._own_parameters()
        if own is None:
            return super().supported_physical_parameters
        env, (supported, _, _) = own
        return tuple(getattr(env, supported))

    def set_physical_parameters(self, values):
        own = self._own_parameters()
        if own is None:
            return super().set_physical_parameters(values)
        env, (supported, setter, _) = own
        check_keys(values, getattr(env, supported),
                   'physical parameter(s)', self._describe())
        getattr(env, setter)(dict(values))

    def get_physical_parameters(self):
        own = self._own_parameters()
        if own is None:
            return super().get_physical_parameters()
        env, (_, _, getter) = own
        return dict(getattr(env, getter)()) if hasattr(env, getter) else {}

    @property
    def physical_parameters(self):
        """MuJoCo environments (those with a ``model``) have parameters."""
        if not hasattr(self, '_parameters'):
            model = getattr(self.unwrapped, 'model', None)
            self._parameters = None
            if model is not None and type(model).__name__ == 'MjModel':
                from .mujoco_parameters import MujocoParameters
                self._parameters = MujocoParameters(model, self._describe())
        return self._parameters

    def _observation(self, raw_observation):
        observation = self._wrap_observation(raw_observation)
        return {key: np.asarray(observation[key], dtype=np.float32)
                for key in self.observation_keys}

    def reset(self, seed=None):
        observation, _ = self._env.reset(seed=seed)
        return self._observation(observation)

    def step(self, action):
        observation, reward, terminated, truncated, info = self._env.step(
            self._denormalize_action(action))
        return (self._observation(observation), float(reward),
                bool(terminated), bool(truncated), info)

    # Mid-episode state ---------------------------------------------------
    #
    # MuJoCo environments keep their whole physics in ``data`` and MuJoCo
    # serializes it exactly (mj_getState with mjSTATE_INTEGRATION includes
    # the solver's warm start, so the next step is bit-identical); classic
    # control environments keep theirs in a ``state`` array. Either way we
    # also save the environment's RNG (the next reset's initial state) and
    # the TimeLimit step count.

    def _time_limit(self):
        env = self._env
        while isinstance(env, gym.Wrapper):
            if isinstance(env, gym.wrappers.TimeLimit):
                return env
            env = env.env
        return None

    def get_episode_state(self):
        unwrapped = self._env.unwrapped
        state = {'np_random': unwrapped.np_random.bit_generator.state}
        time_limit = self._time_limit()
        if time_limit is not None:
            state['elapsed_steps'] = time_limit._elapsed_steps
        if hasattr(unwrapped, 'data') and hasattr(unwrapped, 'model'):
            import mujoco
            spec = mujoco.mjtState.mjSTATE_INTEGRATION
            physics = np.empty(mujoco.mj_stateSize(unwrapped.model, spec))
            mujoco.mj_getState(unwrapped.model, unwrapped.data, physics, spec)
            state['mujoco'] = physics
        elif isinstance(getattr(unwrapped, 'state', None), np.ndarray):
            state['state'] = unwrapped.state.copy()
        else:
            return None
        if isinstance(getattr(unwrapped, 'goal', None), np.ndarray):
            # A goal-conditioned task's goal lives outside the physics.
            state['goal'] = unwrapped.goal.copy()
        return state

    def set_episode_state(self, state):
        # A reset first: gymnasium refuses to step an environment that was
        # never reset; everything it sets is overwritten below.
        self._env.reset()
        unwrapped = self._env.unwrapped
        if 'mujoco' in state:
            import mujoco
            mujoco.mj_setState(unwrapped.model, unwrapped.data,
                               state['mujoco'],
                               mujoco.mjtState.mjSTATE_INTEGRATION)
            mujoco.mj_forward(unwrapped.model, unwrapped.data)
        else:
            unwrapped.state = state['state'].copy()
        if 'goal' in state:
            unwrapped.goal = state['goal'].copy()
        unwrapped.np_random.bit_generator.state = state['np_random']
        time_limit = self._time_limit()
        if time_limit is not None:
            time_limit._elapsed_steps = state['elapsed_steps']

    def render(self, width=None, height=None, camera_id=None):
        if self._env.render_mode != 'rgb_array':
            raise ValueError(
                f"{self.environment_id} was created with render_mode="
                f"{self._env.render_mode!r}; create it with "
                "render_mode='rgb_array' to render frames.")
        return self._env.render()

    def close(self):
        self._env.close()
