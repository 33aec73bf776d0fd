"""dm_control's stepping rules, shared by softlearning's DmControlAdapter and
by the peer libraries' runs (benchmarks/peer_worker.py), so that both see
the same observations, rewards, episode ends and start states.

Needs numpy, gymnasium and dm_control only (no softlearning, no
TensorFlow): the peers' interpreter loads this file by its path.

- An action is repeated ``action_repeat`` times (the frames' rewards
  summed, stopping at the episode's last frame): with 2, dm_control's
  1,000-frame episodes are 500 agent steps, as in MR.Q's published
  state-based DMC results.
- A zero discount at the last step is a true terminal, any other last step
  a time limit.
- ``reset(seed)`` re-seeds the task's random state, which draws the start
  state: the same seed gives the same episode start in both libraries.
- Observations: the named arrays, each flattened, in sorted key order
  (gymnasium's Dict space order, which softlearning's networks concatenate).
"""

import warnings

import numpy as np


def import_suite():
    """dm_control.suite (without a display, its default GLFW backend warns
    at import; rendering, when wanted, is configured explicitly)."""
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message='.*DISPLAY.*')
        from dm_control import suite
    return suite


def load(domain, task, seed=None, environment_kwargs=None, task_kwargs=None):
    """``dm_control.suite.load``, the task's random state seeded."""
    task_kwargs = dict(task_kwargs or {})
    task_kwargs.setdefault('random', seed)
    return import_suite().load(domain, task, task_kwargs=task_kwargs,
                               environment_kwargs=environment_kwargs or {})


def check_action_repeat(action_repeat):
    if (not isinstance(action_repeat, (int, np.integer))
            or isinstance(action_repeat, bool) or action_repeat < 1):
        raise ValueError(f"action_repeat must be a positive integer, got "
                         f"{action_repeat!r}")
    return int(action_repeat)


def reseed(environment, seed):
    """The task's random state, which draws each episode's start state."""
    environment.task._random = np.random.RandomState(seed)


def repeat_step(environment, action, action_repeat):
    """(last time step, summed reward, terminated, truncated) of
    ``action`` (in the environment's own units) repeated up to
    ``action_repeat`` times."""
    reward = 0.0
    for _ in range(action_repeat):
        time_step = environment.step(action)
        reward += float(time_step.reward or 0.0)
        if time_step.last():
            break
    terminated = time_step.last() and time_step.discount == 0.0
    truncated = time_step.last() and not terminated
    return time_step, reward, bool(terminated), bool(truncated)


def episode_steps(environment, action_repeat):
    """Agent steps of a time-limited episode (None: no limit)."""
    limit = environment._step_limit
    if limit == float('inf'):
        return None
    return -(-int(limit) // action_repeat)


def flat_observation(observation):
    """The named arrays, each flattened to float32, in sorted key order."""
    return np.concatenate([
        np.asarray(observation[key], dtype=np.float32).reshape(-1)
        for key in sorted(observation)])


def parse_id(environment_id):
    """'dm_control/dog-run' (the peers' and random scores' id) ->
    ('dog', 'run')."""
    domain, task = environment_id.split('/', 1)[1].split('-', 1)
    return domain, task


def gymnasium_environment(domain, task, action_repeat=1, seed=None):
    """A gymnasium.Env of a dm_control task with the rules above and flat
    observations (for libraries that take Box observations)."""
    import gymnasium
    from gymnasium import spaces

    class DmControlTask(gymnasium.Env):
        metadata = {'render_modes': []}

        def __init__(self):
            self.repeat = check_action_repeat(action_repeat)
            self.environment = load(domain, task, seed=seed)
            spec = self.environment.action_spec()
            self.low, self.high = spec.minimum, spec.maximum
            self.action_space = spaces.Box(-1.0, 1.0, shape=spec.shape,
                                           dtype=np.float32)
            size = sum(int(np.prod(s.shape)) for s in
                       self.environment.observation_spec().values())
            self.observation_space = spaces.Box(
                -np.inf, np.inf, shape=(size,), dtype=np.float32)

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                reseed(self.environment, seed)
            time_step = self.environment.reset()
            return flat_observation(time_step.observation), {}

        def step(self, action):
            # Actions in [-1, 1], scaled to the task's bounds as
            # softlearning's adapters do.
            action = np.clip(action, -1.0, 1.0)
            action = self.low + (action + 1.0) * 0.5 * (self.high - self.low)
            time_step, reward, terminated, truncated = repeat_step(
                self.environment, action, self.repeat)
            return (flat_observation(time_step.observation), reward,
                    terminated, truncated, {})

    return DmControlTask()
