"""Parallel sampler: N Ray actors, each stepping its own environment copies
(``envs_per_sampler`` of them, one by default).

The learner keeps one ``RemoteSampler``; each of its actors runs a
``SamplerWorker`` (sampler_worker.py), and ``ActorPool`` (actor_pool.py)
starts them and replaces dead ones.

Per ``sample(n_steps, policy)`` call:
1. the learner's policy weights are put in the object store once and every
   actor loads them (not per step: the actors act in numpy);
2. the ``n_steps`` are split over the actors, which step their environments
   and send their transitions back in one batch each;
3. the batches go into the learner's replay pool with ``pool.add_samples``.

When the algorithm passes its uniform warm-up policy instead of the learner's
policy, the actors act with their own copy of the exploration policy.

Actors never import TensorFlow, so they can render observations with OSMesa
(softlearning/environments/rendering.py): an environment with pixel
observations is collected, and evaluated, by actors, not by the learner.

A dead actor (a crashed simulator, a lost node) is replaced by a new one
with the same physical parameters and a new seed, and its share of the
steps is collected again; the sampling call does not fail for it.

Asynchronous mode (``asynchronous=True``): right after handing back a batch
each actor starts on the next one with the weights it has, so collection
overlaps training. Data is then collected with the weights of the previous
``sample`` call: the policy lag is at most one call (``fused_steps``
environment steps of the learner) and is reported as 'policy-lag-mean' /
'policy-lag-max' (in weight versions) in the diagnostics.
"""

import numpy as np
import ray

from .actor_pool import ActorPool
from .base_sampler import Sampler
from .episode_stepper import COLLECTED_FIELDS
from .sampler_worker import SamplerWorker  # noqa: F401 (older imports)
from .vector_stepper import check_envs_per_sampler, check_vector_mode


def split_steps(n_steps, n_actors):
    """``n_steps`` as evenly as possible over the actors (earlier ones take
    the remainder)."""
    base, remainder = divmod(int(n_steps), n_actors)
    return [base + (i < remainder) for i in range(n_actors)]


class RemoteSampler(Sampler):

    def __init__(self, max_path_length, num_samplers=2, sampler_cpus=1,
                 environment_params=None, policy_params=None,
                 exploration_policy_params=None, seed=None,
                 store_last_n_paths=10, asynchronous=False,
                 actor_options=None, evaluation_environment_params=None,
                 encoder_params=None, envs_per_sampler=1,
                 vector_mode='sync'):
        if int(num_samplers) < 1:
            raise ValueError(f"num_samplers must be >= 1, got {num_samplers}")
        if environment_params is None or policy_params is None:
            raise ValueError(
                "RemoteSampler needs environment_params and policy_params "
                "(build it with samplers.get_from_variant(variant)).")
        super().__init__(max_path_length, store_last_n_paths,
                         seed=0 if seed is None else int(seed))
        self._num_samplers = int(num_samplers)
        self._exploration_policy_params = (
            exploration_policy_params
            or {'class_name': 'UniformPolicy', 'config': {}})
        self._asynchronous = bool(asynchronous)
        self._evaluation_environment_params = evaluation_environment_params
        self._actor_pool = ActorPool(
            self._num_samplers,
            {'environment_params': environment_params,
             'policy_params': policy_params,
             'exploration_policy_params': self._exploration_policy_params,
             'max_path_length': self._max_path_length,
             'evaluation_environment_params': evaluation_environment_params,
             'encoder_params': encoder_params,
             'envs_per_sampler': check_envs_per_sampler(envs_per_sampler),
             'vector_mode': check_vector_mode(vector_mode)},
            seed=self._seed, cpus=sampler_cpus, actor_options=actor_options,
            # A request sent to a dead actor never comes back.
            on_replace=lambda index: self._pending.pop(index, None))
        self._weights_version = 0
        self._pending = {}  # asynchronous mode: actor index -> request
        self._epoch_lags = []

    @staticmethod
    def params_from_variant(variant):
        """What the actors rebuild their environment and policies from."""
        return {
            'environment_params': variant['environment_params']['training'],
            'evaluation_environment_params': variant['environment_params'].get(
                'evaluation'),
            'policy_params': variant['policy_params'],
            'exploration_policy_params': variant.get(
                'exploration_policy_params'),
            'encoder_params': variant.get('encoder_params'),
        }

    def initialize(self, environment, policy, pool):
        super().initialize(environment, policy, pool)
        self._actor_pool.start()

    def close(self):
        self._actor_pool.close()
        self._pending = {}

    @property
    def actors(self):
        return self._actor_pool.actors

    @property
    def num_samplers(self):
        return self._num_samplers

    @property
    def actor_restarts(self):
        return self._actor_pool.restarts

    def get_actor_weights(self):
        return self._actor_pool.call_all('get_weights')

    # Checkpoints ------------------------------------------------------------

    def get_state(self):
        """Counters, recent path statistics, the physical parameters pushed
        to the actors, and each actor's running episode (with a recurrent
        policy's LSTM state), so that a restored run continues every actor's
        episode where it was. In asynchronous mode actors are
        mid-collection when a checkpoint is taken: their episodes are not
        saved, and after a restore every actor starts a fresh one."""
        return {
            'total_samples': self._total_samples,
            'num_paths': self._episodes.num_paths,
            'recent_returns': list(self._episodes.recent_returns),
            'recent_lengths': list(self._episodes.recent_lengths),
            'recent_successes': list(self._episodes.recent_successes),
            'physical_parameters': dict(
                self._actor_pool.physical_parameters),
            'weights_version': self._weights_version,
            'actors': (None if self._asynchronous
                       else self._actor_pool.call_all('get_state')),
        }

    def set_state(self, state):
        self._total_samples = state['total_samples']
        self._episodes.num_paths = state['num_paths']
        # Checkpoints written before successes were kept have none.
        self._episodes.set_recent(state['recent_returns'],
                                  state['recent_lengths'],
                                  state.get('recent_successes'))
        self._weights_version = state['weights_version']
        # Checkpoints written before the rename call them environment_state.
        physical_parameters = state.get('physical_parameters',
                                        state.get('environment_state'))
        if physical_parameters:
            self.set_physical_parameters(physical_parameters)
        actor_states = state.get('actors')  # older checkpoints: none
        if actor_states and len(actor_states) == self._num_samplers:
            self._actor_pool.call_each('set_state', {
                index: (actor_state,)
                for index, actor_state in enumerate(actor_states)})

    # Physical parameters (curriculum) ----------------------------------------

    def set_physical_parameters(self, values):
        """Pushes physical parameters to every actor's environment (and
        remembers them for replacement actors)."""
        self._actor_pool.physical_parameters.update(values)
        self._actor_pool.call_all('set_physical_parameters', values)

    def get_physical_parameters(self):
        return [values for actor_values in
                self._actor_pool.call_all('get_physical_parameters')
                for values in actor_values]

    # Sampling ----------------------------------------------------------------

    def _policy_name(self, policy):
        # Checked against the numpy class (UniformPolicy derives from
        # NumpyUniformPolicy), which imports no TensorFlow.
        from softlearning.policies import numpy_policies
        if policy is None or policy is self.policy:
            return 'policy'
        exploration_class = numpy_policies.NUMPY_POLICIES.get(
            self._exploration_policy_params['class_name'])
        if exploration_class is not None and isinstance(policy,
                                                        exploration_class):
            return 'exploration'
        raise TypeError(
            f"RemoteSampler can act with the learner's policy or the "
            f"exploration policy "
            f"({self._exploration_policy_params['class_name']}), not "
            f"{type(policy).__name__}.")

    def _sample_call(self, n_steps, policy_name, weights):
        version = self._weights_version
        return lambda actor: actor.sample.remote(n_steps, policy_name,
                                                 weights, version)

    def _send(self, index, n_steps, policy_name, weights):
        """A sample request sent to actor ``index``, not waited for."""
        reference = self._sample_call(n_steps, policy_name, weights)(
            self.actors[index])
        return reference, n_steps, policy_name

    def sample(self, n_steps, policy=None):
        """Collects ``n_steps`` transitions over the actors into the pool."""
        policy_name = self._policy_name(policy)
        weights = None
        if policy_name == 'policy':
            self._weights_version += 1
            weights = ray.put(self.policy.get_weights())
        shares = split_steps(n_steps, self._num_samplers)
        requests = {}
        for index, share in enumerate(shares):
            if index in self._pending:
                requests[index] = self._pending.pop(index)
            elif share > 0:
                requests[index] = self._send(index, share, policy_name,
                                             weights)
        collected = []
        for index, (reference, share, name) in requests.items():
            # A dead actor's share is asked again of its replacement, with
            # this call's weights.
            result = self._actor_pool.call(
                index, self._sample_call(share, name, weights), reference)
            self._add_result(result)
            collected.append(result['samples'])
            if self._asynchronous and shares[index] > 0:
                # Keep this actor busy while the learner trains.
                self._pending[index] = self._send(
                    index, shares[index], policy_name, weights)
        return {field: np.concatenate([np.reshape(samples[field], -1)
                                       for samples in collected]
                                      or [np.zeros(0)])
                for field in COLLECTED_FIELDS}

    def _add_result(self, result):
        samples = result['samples']
        count = len(samples['actions'])
        self.pool.add_samples(samples)
        self._total_samples += count
        for episode in zip(result['returns'], result['lengths'],
                           result['successes']):
            self._episodes.add(*episode)
        self._episodes.reports_success = (self._episodes.reports_success
                                          or result['reports_success'])
        if result['version'] is not None:
            self._epoch_lags.append(self._weights_version - result['version'])
        return count

    # Evaluation --------------------------------------------------------------

    @property
    def evaluates_on_actors(self):
        """Whether evaluation episodes run here: environments that render
        their observations cannot be stepped in the learner (rendering.py)."""
        from softlearning.environments.rendering import renders_observations
        return bool(self._evaluation_environment_params
                    and renders_observations(
                        self._evaluation_environment_params))

    def evaluate(self, n_episodes, first_seed, deterministic=True,
                 physical_parameters=None):
        """``n_episodes`` episodes of the evaluation environment with the
        learner's current policy, spread over the actors; episode i starts
        from seed ``first_seed + i``. Returns (returns, lengths,
        successes), a success None where the environment reports none."""
        weights = ray.put(self.policy.get_weights())
        seeds = np.arange(n_episodes) + int(first_seed)
        shares = {index: seeds[index::self._num_samplers]
                  for index in range(self._num_samplers)}
        results = self._actor_pool.call_each('evaluate', {
            index: (share, deterministic, weights, physical_parameters)
            for index, share in shares.items() if len(share)})
        episodes = [episode for index in sorted(results)
                    for episode in results[index]]
        if not episodes:
            return [], [], []
        return tuple(list(column) for column in zip(*episodes))

    # Diagnostics -------------------------------------------------------------

    def start_epoch(self):
        super().start_epoch()
        self._epoch_lags = []

    def get_diagnostics(self):
        """SimpleSampler's keys, plus the actors' count, restarts and the
        policy lag of the data collected this epoch."""
        stats = super().get_diagnostics()
        stats['num-samplers'] = self._num_samplers
        stats['actor-restarts'] = self.actor_restarts
        lags = self._epoch_lags or [float('nan')]
        stats['policy-lag-mean'] = float(np.mean(lags))
        stats['policy-lag-max'] = float(np.max(lags))
        return stats
