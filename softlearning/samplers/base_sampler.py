"""What the training loop (algorithms/rl_algorithm.py), the curriculum and
the experiment runner use of a sampler.

A sampler steps environments with a policy and adds the transitions to the
replay pool. ``SimpleSampler`` steps one environment in the learner's
process; ``RemoteSampler`` steps one per Ray actor.
"""

import abc

from .utils import EpisodeLog


class Sampler(abc.ABC):

    # Whether the algorithm runs its evaluation episodes through
    # ``evaluate`` (in the sampler's own processes) rather than on its own
    # evaluation environment; see RemoteSampler.evaluates_on_actors.
    evaluates_on_actors = False

    def __init__(self, max_path_length, store_last_n_paths=10, seed=None):
        self._max_path_length = int(max_path_length)
        self._store_last_n_paths = store_last_n_paths
        self._seed = seed
        self.environment = self.policy = self.pool = None
        self._episodes = EpisodeLog(store_last_n_paths)
        self._total_samples = 0

    @staticmethod
    def params_from_variant(variant):
        """Constructor arguments taken from the whole variant, beyond
        ``sampler_params['config']`` (what remote actors rebuild their
        components from)."""
        return {}

    def initialize(self, environment, policy, pool):
        """The learner's environment, policy and pool; sampling starts after
        this."""
        self.environment, self.policy, self.pool = environment, policy, pool

    def set_policy(self, policy):
        self.policy = policy

    @abc.abstractmethod
    def sample(self, n_steps, policy=None):
        """Takes ``n_steps`` environment steps with ``policy`` (default: the
        learner's) and adds them to the pool; returns what the added
        transitions' rewards were, in each episode's order: a dict of
        ``COLLECTED_FIELDS`` arrays, one entry per transition (the
        algorithm's reward statistics read them)."""

    def evaluate(self, n_episodes, first_seed, deterministic=True,
                 physical_parameters=None):
        """Evaluation episodes in the sampler's processes, where
        ``evaluates_on_actors``: returns (returns, lengths, successes), a
        success None where the environment reports none."""
        raise NotImplementedError(
            f"{type(self).__name__} does not evaluate; the algorithm "
            "evaluates on its own environment.")

    # Physical parameters (the curriculum) ----------------------------------

    @abc.abstractmethod
    def set_physical_parameters(self, values):
        """Physical parameters for every environment the sampler steps:
        numbers apply now, {'low', 'high'} ranges are drawn from every
        episode (curriculum/randomization.py)."""

    @abc.abstractmethod
    def get_physical_parameters(self):
        """The physical parameters in effect, one dict per environment the
        sampler steps."""

    # Counters and diagnostics ------------------------------------------------

    @property
    def total_samples(self):
        return self._total_samples

    def start_epoch(self):
        """Begins a new window of training-path statistics."""
        self._episodes.start_epoch()

    def get_diagnostics(self):
        """Statistics of the paths finished this epoch, or of the last few
        paths when none finished this epoch (episodes longer than epochs)."""
        return self._episodes.statistics()

    # Checkpoint state ------------------------------------------------------

    @abc.abstractmethod
    def get_state(self):
        """What a checkpoint needs to continue sampling where it stopped."""

    @abc.abstractmethod
    def set_state(self, state):
        """Continues from ``get_state()`` (also of older checkpoints)."""

    def close(self):
        """Releases what the sampler started (nothing by default)."""
