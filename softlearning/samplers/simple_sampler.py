"""In-process sampler: steps one environment with a policy, fills the pool."""

import collections

import numpy as np

from softlearning.curriculum.randomization import EnvironmentStateSetter

from .utils import epoch_path_statistics


class SimpleSampler:

    def __init__(self, max_path_length, store_last_n_paths=10, seed=None):
        self._max_path_length = int(max_path_length)
        self._store_last_n_paths = store_last_n_paths
        self._seed = seed
        self.environment = self.policy = self.pool = None
        self._last_n_paths = collections.deque(maxlen=store_last_n_paths)
        self._recent_returns = collections.deque(maxlen=store_last_n_paths)
        self._recent_lengths = collections.deque(maxlen=store_last_n_paths)
        self._epoch_returns, self._epoch_lengths = [], []
        self._current_observation = None
        self._current_path = []
        self._path_length = 0
        self._path_return = 0.0
        self._total_samples = 0
        self._num_paths = 0

    def initialize(self, environment, policy, pool):
        self.environment, self.policy, self.pool = environment, policy, pool
        self._environment_state = EnvironmentStateSetter(
            environment, seed=self._seed)

    def set_environment_state(self, state):
        """Physical parameters for the environment (see curriculum/): numbers
        apply now, {'low', 'high'} ranges are drawn from every episode."""
        self._environment_state.set(state)

    def set_policy(self, policy):
        self.policy = policy

    @property
    def total_samples(self):
        return self._total_samples

    @property
    def last_n_paths(self):
        return list(self._last_n_paths)

    def _reset_environment(self):
        seed = None
        if self._num_paths == 0 and self._seed is not None:
            seed = self._seed  # later resets continue the seeded stream
        self._environment_state.before_reset()
        self._current_observation = self.environment.reset(seed=seed)

    def sample(self, n_steps=1, policy=None):
        """Takes ``n_steps`` environment steps with ``policy`` (default: the
        sampler's policy) and adds the transitions to the pool."""
        policy = policy or self.policy
        for _ in range(n_steps):
            self._step(policy)
        return n_steps

    def _step(self, policy):
        if self._current_observation is None:
            self._reset_environment()
        observation = self._current_observation
        action = policy.action(observation)
        next_observation, reward, terminated, truncated, _ = (
            self.environment.step(action))
        self._path_length += 1
        self._path_return += reward
        self._total_samples += 1
        self.pool.add_sample(observation, action, reward, terminated,
                             next_observation)
        self._current_path.append((observation, action, reward, terminated))

        if (terminated or truncated
                or self._path_length >= self._max_path_length):
            self._finish_path()
        else:
            self._current_observation = next_observation

    def _finish_path(self):
        observations, actions, rewards, terminals = zip(*self._current_path)
        self._last_n_paths.append({
            'observations': {key: np.stack([o[key] for o in observations])
                             for key in observations[0]},
            'actions': np.stack(actions),
            'rewards': np.asarray(rewards, dtype=np.float32)[:, None],
            'terminals': np.asarray(terminals, dtype=np.float32)[:, None],
        })
        for returns, lengths in ((self._recent_returns, self._recent_lengths),
                                 (self._epoch_returns, self._epoch_lengths)):
            returns.append(self._path_return)
            lengths.append(self._path_length)
        self._num_paths += 1
        self._current_path = []
        self._path_length = 0
        self._path_return = 0.0
        self._current_observation = None

    # Checkpoint state ------------------------------------------------------

    _STATE_ATTRIBUTES = ('_current_observation', '_current_path',
                         '_path_length', '_path_return', '_total_samples',
                         '_num_paths', '_epoch_returns', '_epoch_lengths')
    _STATE_DEQUES = ('_last_n_paths', '_recent_returns', '_recent_lengths')

    def get_state(self):
        """Everything needed to continue the current path, including the
        environment's mid-episode state where the environment can save it
        (``get_episode_state``); otherwise the path is cut here and the
        restored sampler starts a fresh episode."""
        state = {name: getattr(self, name) for name in self._STATE_ATTRIBUTES}
        state.update({name: list(getattr(self, name))
                      for name in self._STATE_DEQUES})
        state['environment'] = self.environment.get_episode_state()
        return state

    def set_state(self, state):
        for name in self._STATE_ATTRIBUTES:
            setattr(self, name, state[name])
        for name in self._STATE_DEQUES:
            getattr(self, name).clear()
            getattr(self, name).extend(state[name])
        if state['environment'] is not None:
            self.environment.set_episode_state(state['environment'])
        elif self._current_observation is not None:
            # The environment cannot resume this episode: drop the partial
            # path and let the next step reset (from the env's own RNG).
            self._current_path, self._path_length = [], 0
            self._path_return, self._current_observation = 0.0, None

    def close(self):
        """Nothing to release: the environment belongs to the caller."""

    def start_epoch(self):
        """Begins a new window of training-path statistics."""
        self._epoch_returns, self._epoch_lengths = [], []

    def get_diagnostics(self):
        """Statistics of the paths finished this epoch, or of the last few
        paths when none finished this epoch (episodes longer than epochs)."""
        stats = epoch_path_statistics(
            self._epoch_returns, self._epoch_lengths,
            self._recent_returns, self._recent_lengths)
        stats['total-paths'] = self._num_paths
        return stats
