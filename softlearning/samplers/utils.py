"""Rollouts and path statistics shared by samplers and evaluation."""

import collections

import numpy as np

from .episode_stepper import PATH_FIELDS, EpisodeStepper, stack_transitions
from .vector_stepper import single_threaded_blas, step_together

STATISTIC_KEYS = ('return-mean', 'return-min', 'return-max', 'return-std',
                  'episode-length-mean', 'episode-length-min',
                  'episode-length-max')


def path_statistics(returns, lengths, successes=None):
    """Return/length summary of a set of finished paths. The keys are the
    same with no paths (values NaN), so result tables keep their columns.
    With ``successes`` (each path's ``FinishedEpisode.success``), also
    'success-rate': the mean over the paths whose environment reported one;
    no such key when none did, so tasks without goals keep their columns."""
    if len(returns) == 0:
        return {**{key: float('nan') for key in STATISTIC_KEYS},
                'episodes': 0}
    returns = np.asarray(returns, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.float64)
    stats = {
        'return-mean': float(returns.mean()),
        'return-min': float(returns.min()),
        'return-max': float(returns.max()),
        'return-std': float(returns.std()),
        'episode-length-mean': float(lengths.mean()),
        'episode-length-min': float(lengths.min()),
        'episode-length-max': float(lengths.max()),
        'episodes': int(len(returns)),
    }
    reported = [float(s) for s in successes or () if s is not None]
    if reported:
        stats['success-rate'] = float(np.mean(reported))
    return stats


def _successes(successes, count):
    """Successes as saved, or Nones for checkpoints written before
    successes were kept."""
    return [None] * count if successes is None else list(successes)


class EpisodeLog:
    """Returns, lengths and successes of finished episodes, for a sampler's
    diagnostics: this epoch's, and the last few (reported in epochs in which
    none finished: episodes longer than epochs)."""

    def __init__(self, store_last_n_paths=10):
        self.recent_returns = collections.deque(maxlen=store_last_n_paths)
        self.recent_lengths = collections.deque(maxlen=store_last_n_paths)
        self.recent_successes = collections.deque(maxlen=store_last_n_paths)
        self.epoch_returns, self.epoch_lengths = [], []
        self.epoch_successes = []
        self.num_paths = 0
        # Whether the environment reports successes (set by the sampler
        # from its steps, or by an episode that had one): the statistics
        # then hold 'success-rate' in every epoch, NaN before any episode
        # ended, so that result tables have its column from the first.
        self.reports_success = False

    def add(self, path_return, length, success=None):
        """A finished episode (a ``FinishedEpisode``'s fields)."""
        for log in ((self.recent_returns, self.recent_lengths,
                     self.recent_successes),
                    (self.epoch_returns, self.epoch_lengths,
                     self.epoch_successes)):
            for values, value in zip(log, (path_return, length, success)):
                values.append(value)
        self.num_paths += 1
        self.reports_success = self.reports_success or success is not None

    def start_epoch(self):
        self.epoch_returns, self.epoch_lengths = [], []
        self.epoch_successes = []

    def set_epoch(self, returns, lengths, successes=None):
        """This epoch's episodes, from a checkpoint (``successes`` None: a
        checkpoint written before they were kept)."""
        self.epoch_returns, self.epoch_lengths = list(returns), list(lengths)
        self.epoch_successes = _successes(successes, len(self.epoch_returns))
        self._note_successes(self.epoch_successes)

    def set_recent(self, returns, lengths, successes=None):
        """The last few episodes, from a checkpoint (``successes`` None: a
        checkpoint written before they were kept)."""
        returns = list(returns)
        for deque, values in ((self.recent_returns, returns),
                              (self.recent_lengths, lengths),
                              (self.recent_successes,
                               _successes(successes, len(returns)))):
            deque.clear()
            deque.extend(values)
        self._note_successes(self.recent_successes)

    def _note_successes(self, successes):
        self.reports_success = self.reports_success or any(
            success is not None for success in successes)

    def statistics(self):
        """Statistics of the paths finished this epoch, or of the last few
        paths when none finished this epoch, and the count of all paths."""
        if self.epoch_returns:
            stats = path_statistics(self.epoch_returns, self.epoch_lengths,
                                    self.epoch_successes)
        else:
            stats = path_statistics(self.recent_returns, self.recent_lengths,
                                    self.recent_successes)
        if self.reports_success:
            stats.setdefault('success-rate', float('nan'))
        stats['total-paths'] = self.num_paths
        return stats


def path_summary(finished):
    """What a path holds of its ``FinishedEpisode``: 'return', 'length' and
    'success' (None where the environment reports none)."""
    return {'return': float(finished.path_return),
            'length': finished.length, 'success': finished.success}


def rollout(environment, policy, path_length, render_kwargs=None, seed=None):
    """Runs one episode (at most ``path_length`` steps, the first reset with
    ``seed``) and returns the path as a dict of stacked arrays plus its
    return, length and success (``path_summary``). With ``render_kwargs``
    it also renders a frame after the reset and after every step."""
    stepper = EpisodeStepper(environment, path_length, seed=seed)
    stepper.start_episode()
    frames = []
    if render_kwargs is not None:
        frames.append(environment.render(**render_kwargs))
    transitions, finished = [], None
    while finished is None:
        transition, finished = stepper.step(policy)
        transitions.append(transition)
        if render_kwargs is not None:
            frames.append(environment.render(**render_kwargs))
    path = stack_transitions(transitions, PATH_FIELDS)
    path.update(path_summary(finished))
    if render_kwargs is not None:
        path['frames'] = np.stack(frames)
    return path


def rollouts(n_paths, environment, policy, path_length, render_kwargs=None,
             seed=None):
    return [rollout(environment, policy, path_length, render_kwargs,
                    seed=None if seed is None else seed + i)
            for i in range(n_paths)]


def parallel_rollouts(environments, policy, path_length, seeds):
    """The episodes ``rollouts`` runs from reset seeds ``seeds`` (episode i
    on seed ``seeds[i]``), stepped as one vector over ``environments`` (as
    many episodes at a time as there are environments), one policy call per
    step for all running episodes. The paths are those of ``rollouts``, in
    the same order; with a deterministic policy, the same to the last digit
    (numpy networks act in float64, models/numpy_mlp.py)."""
    single_threaded_blas()
    paths = []
    for start in range(0, len(seeds), len(environments)):
        steppers = [EpisodeStepper(environment, path_length, seed=int(seed))
                    for environment, seed in zip(
                        environments, seeds[start:start + len(environments)])]
        transitions = [[] for _ in steppers]
        finished = [None] * len(steppers)
        while any(episode is None for episode in finished):
            running = [i for i, episode in enumerate(finished)
                       if episode is None]
            for i, (transition, finished[i]) in zip(running, step_together(
                    [steppers[i] for i in running], policy)):
                transitions[i].append(transition)
        for episode_transitions, episode in zip(transitions, finished):
            path = stack_transitions(episode_transitions, PATH_FIELDS)
            path.update(path_summary(episode))
            paths.append(path)
    return paths
