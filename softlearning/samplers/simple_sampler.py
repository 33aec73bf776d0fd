"""In-process sampler: steps one environment with a policy, fills the pool."""

import collections

import numpy as np

from .base_sampler import Sampler
from .episode_stepper import PATH_FIELDS, EpisodeStepper, stack_transitions


class SimpleSampler(Sampler):

    def __init__(self, max_path_length, store_last_n_paths=10, seed=None):
        super().__init__(max_path_length, store_last_n_paths, seed)
        self._last_n_paths = collections.deque(maxlen=store_last_n_paths)
        # The running episode's (observation, action, reward, terminated).
        self._current_path = []
        self._stepper = None

    def initialize(self, environment, policy, pool):
        super().initialize(environment, policy, pool)
        self._stepper = EpisodeStepper(environment, self._max_path_length,
                                       seed=self._seed)

    def set_physical_parameters(self, values):
        self._stepper.physical_parameters.set(values)

    def get_physical_parameters(self):
        return [self.environment.get_physical_parameters()]

    @property
    def last_n_paths(self):
        return list(self._last_n_paths)

    def sample(self, n_steps=1, policy=None):
        """Takes ``n_steps`` environment steps with ``policy`` (default: the
        sampler's policy) and adds the transitions to the pool; returns
        their ``COLLECTED_FIELDS`` (``Sampler.sample``)."""
        policy = policy or self.policy
        transitions = [self._step(policy) for _ in range(n_steps)]
        return {'rewards': np.array([t.reward for t in transitions],
                                    np.float32),
                'episodes': np.array([t.episode for t in transitions],
                                     np.int64),
                'episode_steps': np.array([t.step for t in transitions],
                                          np.int64)}

    def _step(self, policy):
        transition, finished = self._stepper.step(policy)
        self._total_samples += 1
        self.pool.add_sample(*transition)
        self._current_path.append(transition[:4])
        if finished is not None:
            self._last_n_paths.append(
                stack_transitions(self._current_path, PATH_FIELDS))
            self._episodes.add(*finished)
            self._current_path = []
        return transition

    # Checkpoint state ------------------------------------------------------
    #
    # The layout (attribute names as keys) is that of checkpoints written
    # before the sampler base class; keep it.

    def get_state(self):
        """Everything needed to continue the current path (see
        ``EpisodeStepper.get_state``)."""
        episodes = self._episodes
        return {
            '_current_path': self._current_path,
            '_total_samples': self._total_samples,
            '_epoch_returns': episodes.epoch_returns,
            '_epoch_lengths': episodes.epoch_lengths,
            '_last_n_paths': list(self._last_n_paths),
            '_recent_returns': list(episodes.recent_returns),
            '_recent_lengths': list(episodes.recent_lengths),
            'stepper': self._stepper.get_state(),
        }

    def set_state(self, state):
        if 'stepper' not in state:
            state = _from_layout_without_stepper(state)
        self._current_path = state['_current_path']
        self._total_samples = state['_total_samples']
        self._last_n_paths.clear()
        self._last_n_paths.extend(state['_last_n_paths'])
        episodes = self._episodes
        episodes.epoch_returns = state['_epoch_returns']
        episodes.epoch_lengths = state['_epoch_lengths']
        episodes.set_recent(state['_recent_returns'],
                            state['_recent_lengths'])
        episodes.num_paths = state['stepper']['num_paths']
        if not self._stepper.set_state(state['stepper']):
            self._current_path = []  # the environment could not resume it


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
