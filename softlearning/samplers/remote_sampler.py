"""Parallel sampler: N Ray actors, each stepping its own environment copy.

The learner keeps one ``RemoteSampler``; each of its actors runs a
``SamplerWorker`` that builds its environment and policies from *params*
(the variant's), never from pickled objects, so actors start on any node.

Per ``sample(n_steps, policy)`` call:
1. the learner's policy weights are put in the object store once and every
   actor loads them (not per step: the actors act in numpy);
2. the ``n_steps`` are split over the actors, which step their environments
   and send their transitions back in one batch each;
3. the batches go into the learner's replay pool with ``pool.add_samples``.

When the algorithm passes its uniform warm-up policy instead of the learner's
policy, the actors act with their own copy of the exploration policy.

Actors never import TensorFlow: they act with the numpy versions of the
policies (softlearning/policies/numpy_policies.py), which load the learner's
``get_weights()`` list. That keeps actors light and lets them render
observations with OSMesa, which cannot share a process with TensorFlow (see
softlearning/environments/rendering.py): an environment with pixel
observations is collected by actors, not by the learner.

A dead actor (a crashed simulator, a lost node) is replaced by a new one
with the same environment state and a new seed, and its share of the steps
is collected again; the sampling call does not fail for it.

Asynchronous mode (``asynchronous=True``): right after handing back a batch
each actor starts on the next one with the weights it has, so collection
overlaps training. Data is then collected with the weights of the previous
``sample`` call: the policy lag is at most one call (``fused_steps``
environment steps of the learner) and is reported as 'policy-lag-mean' /
'policy-lag-max' (in weight versions) in the diagnostics.
"""

import collections

import numpy as np
import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from .episode_stepper import EpisodeStepper
from .utils import epoch_path_statistics

# Seeds of successive actors (and of replacements) stay apart.
ACTOR_SEED_STRIDE = 1000
RESTART_SEED_STRIDE = 100003
MAX_ATTEMPTS_PER_SHARE = 3


class SamplerWorker:
    """One environment and its policies; the body of a sampler actor."""

    def __init__(self, environment_params, policy_params,
                 exploration_policy_params, max_path_length, seed=None,
                 evaluation_environment_params=None, encoder_params=None):
        # Nothing here may import TensorFlow (see the module docstring).
        from softlearning import environments
        from softlearning.environments import rendering
        from softlearning.policies.numpy_policies import get_numpy_policy
        if rendering.renders_observations(environment_params):
            # Before the simulator's import, which reads MUJOCO_GL.
            rendering.configure_offscreen_rendering()
        self.environment = environments.get_environment_from_params(
            environment_params)
        self.policies = {
            'policy': get_numpy_policy(policy_params, self.environment,
                                       seed=seed,
                                       encoder_params=encoder_params),
            'exploration': get_numpy_policy(
                exploration_policy_params, self.environment,
                seed=None if seed is None else seed + 1),
        }
        # Built on the first ``evaluate``.
        self._evaluation_environment_params = evaluation_environment_params
        self._evaluation_environment = None
        self._max_path_length = int(max_path_length)
        self._stepper = EpisodeStepper(self.environment, max_path_length,
                                       seed=seed)
        self._seed = seed
        self._weights_version = -1

    # Control ---------------------------------------------------------------

    def set_weights(self, weights, version=None):
        self.policies['policy'].set_weights(weights)
        self._weights_version = version

    def get_weights(self):
        return self.policies['policy'].get_weights()

    def set_environment_state(self, state):
        self._stepper.environment_state.set(state)
        return self.environment.get_state()

    def get_environment_state(self):
        return self.environment.get_state()

    def get_seed(self):
        return self._seed

    # Checkpoint state --------------------------------------------------------

    def get_state(self):
        """The running episode (observation, counters, the simulator's state
        where it can save one, a recurrent policy's LSTM state) and the
        policies' random states."""
        return {'stepper': self._stepper.get_state(),
                'np_random': {name: policy.get_np_random_state()
                              for name, policy in self.policies.items()}}

    def set_state(self, state):
        for name, random_state in state['np_random'].items():
            self.policies[name].set_np_random_state(random_state)
        return self._stepper.set_state(state['stepper'])

    # Collection ------------------------------------------------------------

    def sample(self, n_steps, policy_name='policy', weights=None,
               version=None):
        """Takes ``n_steps`` steps; returns the transitions as one batch
        plus the returns/lengths of the paths that finished."""
        if weights is not None:
            self.set_weights(weights, version)
        policy = self.policies[policy_name]
        transitions, returns, lengths = [], [], []
        for _ in range(n_steps):
            transition, finished = self._stepper.step(policy)
            transitions.append(transition)
            if finished is not None:
                returns.append(finished[0])
                lengths.append(finished[1])
        return {
            'samples': _stack_transitions(transitions),
            'returns': returns,
            'lengths': lengths,
            'version': (self._weights_version if policy_name == 'policy'
                        else None),
        }


    def evaluate(self, episode_seeds, deterministic=True, weights=None,
                 environment_state=None):
        """One episode of the evaluation environment per seed, with the
        learner's policy (and the physical parameters
        ``environment_state``); returns [(return, length)]. The episodes
        start from their seeds, so no evaluation state needs
        checkpointing."""
        from softlearning import environments
        from .utils import rollout
        if weights is not None:
            self.policies['policy'].set_weights(weights)
        if self._evaluation_environment is None:
            self._evaluation_environment = (
                environments.get_environment_from_params(
                    self._evaluation_environment_params))
        if environment_state:
            self._evaluation_environment.set_state(environment_state)
        policy = self.policies['policy']
        results = []
        with policy.set_deterministic(deterministic):
            for seed in episode_seeds:
                path = rollout(self._evaluation_environment, policy,
                               self._max_path_length, seed=int(seed))
                results.append((path['return'], path['length']))
        return results


def _stack_transitions(transitions):
    (observations, actions, rewards, terminals, next_observations, episodes,
     steps) = zip(*transitions)
    return {
        'observations': {key: np.stack([o[key] for o in observations])
                         for key in observations[0]},
        'next_observations': {key: np.stack([o[key] for o in
                                             next_observations])
                              for key in next_observations[0]},
        'actions': np.stack(actions).astype(np.float32),
        'rewards': np.asarray(rewards, dtype=np.float32)[:, None],
        # Only true terminations: a time limit still bootstraps.
        'terminals': np.asarray(terminals, dtype=np.float32)[:, None],
        # Where episodes begin and end, for sequence pools.
        'episodes': np.asarray(episodes, dtype=np.int64),
        'episode_steps': np.asarray(steps, dtype=np.int64),
    }


def split_steps(n_steps, n_actors):
    """``n_steps`` as evenly as possible over the actors (earlier ones take
    the remainder)."""
    base, remainder = divmod(int(n_steps), n_actors)
    return [base + (i < remainder) for i in range(n_actors)]


class RemoteSampler:

    def __init__(self, max_path_length, num_samplers=2, sampler_cpus=1,
                 environment_params=None, policy_params=None,
                 exploration_policy_params=None, seed=None,
                 store_last_n_paths=10, asynchronous=False,
                 actor_options=None, evaluation_environment_params=None,
                 encoder_params=None):
        if int(num_samplers) < 1:
            raise ValueError(f"num_samplers must be >= 1, got {num_samplers}")
        if environment_params is None or policy_params is None:
            raise ValueError(
                "RemoteSampler needs environment_params and policy_params "
                "(build it with samplers.get_from_variant(variant)).")
        self._max_path_length = int(max_path_length)
        self._num_samplers = int(num_samplers)
        self._sampler_cpus = float(sampler_cpus)
        self._environment_params = environment_params
        self._policy_params = policy_params
        self._exploration_policy_params = (
            exploration_policy_params
            or {'class_name': 'UniformPolicy', 'config': {}})
        self._seed = 0 if seed is None else int(seed)
        self._asynchronous = bool(asynchronous)
        self._evaluation_environment_params = evaluation_environment_params
        self._encoder_params = encoder_params
        # Extra Ray actor options (e.g. a runtime_env); mostly for tests.
        self._actor_options = dict(actor_options or {})

        self.environment = self.policy = self.pool = None
        self.actors = []
        self._incarnations = []
        self._environment_state = {}
        self._weights_version = 0
        self._pending = {}  # asynchronous mode: actor index -> request
        self._recent_returns = collections.deque(maxlen=store_last_n_paths)
        self._recent_lengths = collections.deque(maxlen=store_last_n_paths)
        self._epoch_returns, self._epoch_lengths = [], []
        self._epoch_lags = []
        self._total_samples = 0
        self._num_paths = 0
        self.actor_restarts = 0

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

    # Actors ----------------------------------------------------------------

    def _actor_seed(self, index):
        return (self._seed + ACTOR_SEED_STRIDE * (index + 1)
                + RESTART_SEED_STRIDE * self._incarnations[index])

    def _scheduling_options(self, index):
        """Inside a Tune trial the actors go into the trial's placement
        group (bundle 0 is the trainer's, bundle i + 1 sampler i's), so the
        trial's reservation covers them; elsewhere they just ask for CPUs."""
        options = {'num_cpus': self._sampler_cpus}
        group = ray.util.get_current_placement_group()
        if group is not None and len(group.bundle_specs) > index + 1:
            options['scheduling_strategy'] = PlacementGroupSchedulingStrategy(
                group, placement_group_bundle_index=index + 1)
        return options

    def _start_actor(self, index):
        actor_class = ray.remote(SamplerWorker)
        actor = actor_class.options(
            **self._scheduling_options(index), **self._actor_options,
        ).remote(self._environment_params, self._policy_params,
                 self._exploration_policy_params, self._max_path_length,
                 self._actor_seed(index),
                 self._evaluation_environment_params, self._encoder_params)
        if self._environment_state:
            actor.set_environment_state.remote(self._environment_state)
        return actor

    def _replace_actor(self, index):
        ray.kill(self.actors[index], no_restart=True)
        self._incarnations[index] += 1
        self.actor_restarts += 1
        self._pending.pop(index, None)
        self.actors[index] = self._start_actor(index)

    def initialize(self, environment, policy, pool):
        self.environment, self.policy, self.pool = environment, policy, pool
        self._incarnations = [0] * self._num_samplers
        self.actors = [self._start_actor(i)
                       for i in range(self._num_samplers)]

    def set_policy(self, policy):
        self.policy = policy

    def close(self):
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors, self._pending = [], {}

    # Checkpoints ------------------------------------------------------------

    def get_state(self):
        """Counters, recent path statistics, the environment parameters
        pushed to the actors, and each actor's running episode (with a
        recurrent policy's LSTM state), so that a restored run continues
        every actor's episode where it was. In asynchronous mode actors are
        mid-collection when a checkpoint is taken: their episodes are not
        saved, and after a restore every actor starts a fresh one."""
        return {
            'total_samples': self._total_samples,
            'num_paths': self._num_paths,
            'recent_returns': list(self._recent_returns),
            'recent_lengths': list(self._recent_lengths),
            'environment_state': dict(self._environment_state),
            'weights_version': self._weights_version,
            'actors': (None if self._asynchronous else
                       [self._call_with_replacement(i, 'get_state')
                        for i in range(self._num_samplers)]),
        }

    def set_state(self, state):
        self._total_samples = state['total_samples']
        self._num_paths = state['num_paths']
        self._recent_returns.clear()
        self._recent_returns.extend(state['recent_returns'])
        self._recent_lengths.clear()
        self._recent_lengths.extend(state['recent_lengths'])
        self._weights_version = state['weights_version']
        if state['environment_state']:
            self.set_environment_state(state['environment_state'])
        actor_states = state.get('actors')  # older checkpoints: none
        if actor_states and len(actor_states) == self._num_samplers:
            for index, actor_state in enumerate(actor_states):
                self._call_with_replacement(index, 'set_state', actor_state)

    @property
    def total_samples(self):
        return self._total_samples

    @property
    def num_samplers(self):
        return self._num_samplers

    def _call_with_replacement(self, index, method, *args):
        """``actor.method(*args)``, on a fresh actor if this one is dead."""
        for attempt in range(MAX_ATTEMPTS_PER_SHARE):
            try:
                return ray.get(getattr(self.actors[index], method).remote(
                    *args))
            except RayActorError:
                if attempt == MAX_ATTEMPTS_PER_SHARE - 1:
                    raise
                self._replace_actor(index)

    # Environment state (curriculum) ----------------------------------------

    def set_environment_state(self, state):
        """Pushes physical parameters to every actor's environment (and
        remembers them for replacement actors). Returns each actor's
        environment state after the change."""
        self._environment_state.update(state)
        return [self._call_with_replacement(i, 'set_environment_state', state)
                for i in range(self._num_samplers)]

    def get_environment_states(self):
        return [self._call_with_replacement(i, 'get_environment_state')
                for i in range(self._num_samplers)]

    def get_actor_weights(self):
        return [self._call_with_replacement(i, 'get_weights')
                for i in range(self._num_samplers)]

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

    def _request(self, index, n_steps, policy_name, weights):
        return (self.actors[index].sample.remote(
            n_steps, policy_name, weights, self._weights_version),
            n_steps, policy_name)

    def _result(self, index, request, weights):
        """The actor's batch; a dead actor is replaced and asked again."""
        reference, n_steps, policy_name = request
        for attempt in range(MAX_ATTEMPTS_PER_SHARE):
            try:
                return ray.get(reference)
            except RayActorError:
                if attempt == MAX_ATTEMPTS_PER_SHARE - 1:
                    raise
                self._replace_actor(index)
                reference = self._request(
                    index, n_steps, policy_name, weights)[0]

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
                requests[index] = self._request(index, share, policy_name,
                                                weights)
        collected = 0
        for index, request in requests.items():
            result = self._result(index, request, weights)
            collected += self._add_result(result)
            if self._asynchronous and shares[index] > 0:
                # Keep this actor busy while the learner trains.
                self._pending[index] = self._request(
                    index, shares[index], policy_name, weights)
        return collected

    # Evaluation ----------------------------------------------------------------

    @property
    def evaluates_on_actors(self):
        """Whether evaluation episodes run here: environments that render
        their observations cannot be stepped in the learner (rendering.py)."""
        from softlearning.environments.rendering import renders_observations
        return bool(self._evaluation_environment_params
                    and renders_observations(
                        self._evaluation_environment_params))

    def evaluate(self, n_episodes, first_seed, deterministic=True,
                 environment_state=None):
        """``n_episodes`` episodes of the evaluation environment with the
        learner's current policy, spread over the actors; episode i starts
        from seed ``first_seed + i``. Returns (returns, lengths)."""
        weights = ray.put(self.policy.get_weights())
        seeds = np.arange(n_episodes) + int(first_seed) + self._seed
        shares = [seeds[i::self._num_samplers]
                  for i in range(self._num_samplers)]
        arguments = (deterministic, weights, environment_state)
        references = {index: self.actors[index].evaluate.remote(
            share, *arguments)
            for index, share in enumerate(shares) if len(share)}
        results = []
        for index, reference in references.items():
            try:
                results += ray.get(reference)
            except RayActorError:
                self._replace_actor(index)
                results += self._call_with_replacement(
                    index, 'evaluate', shares[index], *arguments)
        returns, lengths = zip(*results) if results else ((), ())
        return list(returns), list(lengths)

    def _add_result(self, result):
        samples = result['samples']
        count = len(samples['actions'])
        self.pool.add_samples(samples)
        self._total_samples += count
        for path_return, length in zip(result['returns'], result['lengths']):
            for returns, lengths in ((self._recent_returns,
                                      self._recent_lengths),
                                     (self._epoch_returns,
                                      self._epoch_lengths)):
                returns.append(path_return)
                lengths.append(length)
            self._num_paths += 1
        if result['version'] is not None:
            self._epoch_lags.append(self._weights_version - result['version'])
        return count

    def start_epoch(self):
        self._epoch_returns, self._epoch_lengths = [], []
        self._epoch_lags = []

    def get_diagnostics(self):
        """SimpleSampler's keys, plus the actors' count, restarts and the
        policy lag of the data collected this epoch."""
        stats = epoch_path_statistics(
            self._epoch_returns, self._epoch_lengths,
            self._recent_returns, self._recent_lengths)
        stats['total-paths'] = self._num_paths
        stats['num-samplers'] = self._num_samplers
        stats['actor-restarts'] = self.actor_restarts
        lags = self._epoch_lags or [float('nan')]
        stats['policy-lag-mean'] = float(np.mean(lags))
        stats['policy-lag-max'] = float(np.max(lags))
        return stats
