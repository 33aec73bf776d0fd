"""In-process sampler: steps ``envs_per_sampler`` environments (one by
default) with a policy, one policy call per vector step, and fills the
pool."""

import collections

import numpy as np

from .base_sampler import Sampler
from .episode_stepper import PATH_FIELDS, stack_transitions
from .vector_stepper import (VectorStepper, build_environments,
                             check_envs_per_sampler, check_vector_mode,
                             single_stepper_state)


class SimpleSampler(Sampler):

    def __init__(self, max_path_length, store_last_n_paths=10, seed=None,
                 envs_per_sampler=1, environment_params=None,
                 vector_mode='sync'):
        super().__init__(max_path_length, store_last_n_paths, seed)
        self._envs_per_sampler = check_envs_per_sampler(envs_per_sampler)
        self._vector_mode = check_vector_mode(vector_mode)
        if self._envs_per_sampler > 1 and environment_params is None:
            raise ValueError(
                "SimpleSampler with envs_per_sampler > 1 builds its other "
                "environments from environment_params (build it with "
                "samplers.get_from_variant(variant)).")
        self._environment_params = environment_params
        self._last_n_paths = collections.deque(maxlen=store_last_n_paths)
        # Each environment's running episode's (observation, action,
        # reward, terminated).
        self._current_paths = [[] for _ in range(self._envs_per_sampler)]
        self._stepper = None

    @staticmethod
    def params_from_variant(variant):
        """What its other environments are built from."""
        return {'environment_params': variant['environment_params']['training']}

    def initialize(self, environment, policy, pool):
        """``environment`` (the trial's training environment) is the first
        of ``envs_per_sampler``; the others are built like it (in processes
        of their own with ``vector_mode`` 'async')."""
        super().initialize(environment, policy, pool)
        self._stepper = VectorStepper(
            build_environments(self._environment_params,
                               self._envs_per_sampler, self._vector_mode,
                               first=environment),
            self._max_path_length, seed=self._seed)

    @property
    def environments(self):
        return self._stepper.environments

    def close(self):
        for environment in self.environments[1:]:
            environment.close()

    def set_physical_parameters(self, values):
        self._stepper.set_physical_parameters(values)

    def get_physical_parameters(self):
        return [environment.get_physical_parameters()
                for environment in self.environments]

    @property
    def last_n_paths(self):
        return list(self._last_n_paths)

    def sample(self, n_steps=1, policy=None):
        """Takes ``n_steps`` environment steps with ``policy`` (default: the
        sampler's policy) and adds the transitions to the pool, each
        environment's in order; returns their ``COLLECTED_FIELDS``
        (``Sampler.sample``)."""
        steps = self._stepper.step(policy or self.policy, n_steps)
        transitions = []
        for index, environment_steps in enumerate(steps):
            path = self._current_paths[index]
            for transition, finished in environment_steps:
                self.pool.add_sample(*transition)
                path.append(transition[:4])
                if finished is not None:
                    self._last_n_paths.append(
                        stack_transitions(path, PATH_FIELDS))
                    self._episodes.add(*finished)
                    path.clear()
                transitions.append(transition)
        self._total_samples += len(transitions)
        self._episodes.reports_success = (self._episodes.reports_success
                                          or self._stepper.reports_success)
        return {'rewards': np.array([t.reward for t in transitions],
                                    np.float32),
                'episodes': np.array([t.episode for t in transitions],
                                     np.int64),
                'episode_steps': np.array([t.step for t in transitions],
                                          np.int64)}

    # Checkpoint state ------------------------------------------------------
    #
    # The layout (attribute names as keys) is that of checkpoints written
    # before the sampler base class; older layouts are read too.

    def get_state(self):
        """Everything needed to continue every environment's current path
        (see ``VectorStepper.get_state``)."""
        episodes = self._episodes
        return {
            '_current_paths': [list(path) for path in self._current_paths],
            '_total_samples': self._total_samples,
            '_epoch_returns': episodes.epoch_returns,
            '_epoch_lengths': episodes.epoch_lengths,
            '_epoch_successes': episodes.epoch_successes,
            '_last_n_paths': list(self._last_n_paths),
            '_recent_returns': list(episodes.recent_returns),
            '_recent_lengths': list(episodes.recent_lengths),
            '_recent_successes': list(episodes.recent_successes),
            'vector': self._stepper.get_state(),
        }

    def set_state(self, state):
        if 'vector' not in state:
            state = _from_layout_of_one_environment(state)
        self._total_samples = state['_total_samples']
        self._last_n_paths.clear()
        self._last_n_paths.extend(state['_last_n_paths'])
        episodes = self._episodes
        # Checkpoints written before successes were kept have none.
        episodes.set_epoch(state['_epoch_returns'], state['_epoch_lengths'],
                           state.get('_epoch_successes'))
        episodes.set_recent(state['_recent_returns'],
                            state['_recent_lengths'],
                            state.get('_recent_successes'))
        continued = self._stepper.set_state(state['vector'])
        episodes.num_paths = self._stepper.num_paths
        # A path the environment could not resume is cut there.
        self._current_paths = [list(path) if resumed else []
                               for path, resumed in zip(
                                   state['_current_paths'], continued)]


def _from_layout_of_one_environment(state):
    """Sampler state of checkpoints written before K environments per
    sampler (and before the episode stepper)."""
    if 'stepper' not in state:
        state = _from_layout_without_stepper(state)
    state = dict(state)
    state['_current_paths'] = [state.pop('_current_path')]
    state['vector'] = single_stepper_state(state.pop('stepper'))
    return state


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
