"""In-process sampler: steps one environment with a policy, fills the pool."""

import collections

import numpy as np

from .episode_stepper import EpisodeStepper
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
        self._current_path = []  # the running episode's transitions
        self._total_samples = 0
        self._stepper = None

    def initialize(self, environment, policy, pool):
        self.environment, self.policy, self.pool = environment, policy, pool
        self._stepper = EpisodeStepper(environment, self._max_path_length,
                                       seed=self._seed)

    def set_environment_state(self, state):
        """Physical parameters for the environment (see curriculum/): numbers
        apply now, {'low', 'high'} ranges are drawn from every episode."""
        self._stepper.environment_state.set(state)

    def set_policy(self, policy):
        self.policy = policy

    @property
    def total_samples(self):
        return self._total_samples

    @property
    def last_n_paths(self):
        return list(self._last_n_paths)

    def sample(self, n_steps=1, policy=None):
        """Takes ``n_steps`` environment steps with ``policy`` (default: the
        sampler's policy) and adds the transitions to the pool."""
        policy = policy or self.policy
        for _ in range(n_steps):
            self._step(policy)
        return n_steps

    def _step(self, policy):
        transition, finished = self._stepper.step(policy)
        self._total_samples += 1
        self.pool.add_sample(*transition)
        self._current_path.append(transition[:4])
        if finished is not None:
            self._finish_path(*finished)

    def _finish_path(self, path_return, path_length):
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
            returns.append(path_return)
            lengths.append(path_length)
        self._current_path = []

    # Checkpoint state ------------------------------------------------------

    _STATE_ATTRIBUTES = ('_current_path', '_total_samples', '_epoch_returns',
                         '_epoch_lengths')
    _STATE_DEQUES = ('_last_n_paths', '_recent_returns', '_recent_lengths')

    def get_state(self):
        """Everything needed to continue the current path (see
        ``EpisodeStepper.get_state``)."""
        state = {name: getattr(self, name) for name in self._STATE_ATTRIBUTES}
        state.update({name: list(getattr(self, name))
                      for name in self._STATE_DEQUES})
        state['stepper'] = self._stepper.get_state()
        return state

    def set_state(self, state):
        if 'stepper' not in state:
            state = _from_layout_without_stepper(state)
        for name in self._STATE_ATTRIBUTES:
            setattr(self, name, state[name])
        for name in self._STATE_DEQUES:
            getattr(self, name).clear()
            getattr(self, name).extend(state[name])
        if not self._stepper.set_state(state['stepper']):
            self._current_path = []  # the environment could not resume it

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
        stats['total-paths'] = self._stepper.num_paths if self._stepper else 0
        return stats


def _from_layout_without_stepper(state):
    """Sampler state of checkpoints written before the episode stepper."""
    state = dict(state)
    state['stepper'] = {
        'observation': state.pop('_current_observation'),
        'path_length': state.pop('_path_length'),
        'path_return': state.pop('_path_return'),
        'num_paths': state.pop('_num_paths'),
        'environment': state.pop('environment'),
    }
    return state
