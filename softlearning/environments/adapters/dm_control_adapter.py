"""Adapter for the dm_control suite (observations are dicts; the stepping
rules, action repeat included, are dm_control_gymnasium.py's, which the
peer libraries' runs use too)."""

import numpy as np
from gymnasium import spaces

from .dm_control_gymnasium import (
    check_action_repeat, episode_steps, import_suite as _import_suite, load,
    repeat_step, reseed)
from .softlearning_env import SoftlearningEnv


def registered_domains():
    """{domain: sorted tasks} of the dm_control suite."""
    suite = _import_suite()
    domains = {}
    for domain, task in suite.ALL_TASKS:
        domains.setdefault(domain, []).append(task)
    return {domain: sorted(tasks) for domain, tasks in domains.items()}


def validate_domain_task(domain, task):
    domains = registered_domains()
    if domain not in domains:
        raise ValueError(
            f"Unknown dm_control domain '{domain}'. Valid domains: "
            f"{', '.join(sorted(domains))}")
    if task not in domains[domain]:
        raise ValueError(
            f"Unknown dm_control task '{task}' for domain '{domain}'. Valid "
            f"tasks: {', '.join(domains[domain])}")


def _as_vector(value):
    """dm_control reports some observations as scalars; store them as (1,)."""
    return np.asarray(value, dtype=np.float32).reshape(-1)


class DmControlAdapter(SoftlearningEnv):
    """Wraps ``dm_control.suite.load(domain, task)``."""

    def __init__(self, domain, task, observation_keys=None, seed=None,
                 environment_kwargs=None, task_kwargs=None,
                 render_kwargs=None, render_observations=False,
                 action_repeat=1):
        """``render_observations=True`` adds a 'pixels' observation: the
        (height, width, 3) frame of ``render_kwargs`` rendered every step.
        ``action_repeat``: simulator steps per action (rewards summed)."""
        super().__init__('dm_control', domain, task, observation_keys)
        validate_domain_task(domain, task)
        self._action_repeat = check_action_repeat(action_repeat)
        self._env = load(domain, task, seed=seed,
                         environment_kwargs=environment_kwargs,
                         task_kwargs=task_kwargs)
        self._render_kwargs = {'width': 84, 'height': 84, 'camera_id': 0,
                               **(render_kwargs or {})}

        action_spec = self._env.action_spec()
        self._set_action_bounds(action_spec.minimum, action_spec.maximum)
        full_space = spaces.Dict({
            key: spaces.Box(-np.inf, np.inf,
                            shape=(int(np.prod(spec.shape)),),
                            dtype=np.float32)
            for key, spec in self._env.observation_spec().items()})
        self._render_observations = bool(render_observations)
        if self._render_observations:
            full_space = spaces.Dict({**full_space.spaces, 'pixels': spaces.Box(
                0, 255, shape=(self._render_kwargs['height'],
                               self._render_kwargs['width'], 3),
                dtype=np.float32)})
        self._observation_space = self._select_observation_space(full_space)

    @property
    def unwrapped(self):
        return self._env

    @property
    def physics(self):
        return self._env.physics

    @property
    def physical_parameters(self):
        if not hasattr(self, '_parameters'):
            from .mujoco_parameters import MujocoParameters
            self._parameters = MujocoParameters(
                self._env.physics.model.ptr, self._describe())
        return self._parameters

    @property
    def max_episode_steps(self):
        return episode_steps(self._env, self._action_repeat)

    def _observation(self, time_step):
        observation = dict(time_step.observation)
        if self._render_observations and 'pixels' in self.observation_keys:
            observation['pixels'] = self.render().astype(np.float32)
        return {key: (observation[key] if key == 'pixels'
                      else _as_vector(observation[key]))
                for key in self.observation_keys}

    def reset(self, seed=None):
        if seed is not None:
            reseed(self._env, seed)
        return self._observation(self._env.reset())

    def step(self, action):
        time_step, reward, terminated, truncated = repeat_step(
            self._env, self._denormalize_action(action), self._action_repeat)
        return self._observation(time_step), reward, terminated, truncated, {}

    # Mid-episode state (checkpoints, filming) ----------------------------
    #
    # MuJoCo serializes the physics exactly (mjSTATE_INTEGRATION includes the
    # solver's warm start); the task's RNG and the environment's step count
    # complete the episode.

    def get_episode_state(self):
        import mujoco
        model, data = self._env.physics.model.ptr, self._env.physics.data.ptr
        spec = mujoco.mjtState.mjSTATE_INTEGRATION
        physics = np.empty(mujoco.mj_stateSize(model, spec))
        mujoco.mj_getState(model, data, physics, spec)
        return {
            'mujoco': physics,
            'step_count': self._env._step_count,
            'reset_next_step': self._env._reset_next_step,
            'random': self._env.task.random.get_state(),
        }

    def set_episode_state(self, state):
        import mujoco
        physics = self._env.physics
        mujoco.mj_setState(physics.model.ptr, physics.data.ptr,
                           state['mujoco'],
                           mujoco.mjtState.mjSTATE_INTEGRATION)
        physics.forward()
        self._env._step_count = state['step_count']
        self._env._reset_next_step = state['reset_next_step']
        self._env.task.random.set_state(state['random'])

    def render(self, width=None, height=None, camera_id=None):
        return self._env.physics.render(
            height=height or self._render_kwargs['height'],
            width=width or self._render_kwargs['width'],
            camera_id=(self._render_kwargs['camera_id']
                       if camera_id is None else camera_id))

    def close(self):
        self._env.close()
