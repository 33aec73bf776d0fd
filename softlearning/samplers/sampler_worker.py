"""The body of a sampler actor: its environments and policies.

A ``RemoteSampler`` runs one ``SamplerWorker`` per Ray actor. It builds its
environment and policies from *params* (the variant's), never from pickled
objects, so actors start on any node.

Nothing here may import TensorFlow: actors act with the numpy versions of
the policies (softlearning/policies/numpy_policies.py), which load the
learner's ``get_weights()`` list. That keeps actors light and lets them
render observations with OSMesa, which cannot share a process with
TensorFlow (see softlearning/environments/rendering.py).
"""

from .episode_stepper import FinishedEpisode, stack_transitions
from .vector_stepper import (VectorStepper, build_environments,
                             single_stepper_state)
from .utils import rollout


class SamplerWorker:
    """``envs_per_sampler`` environments and their policies; the body of a
    sampler actor."""

    def __init__(self, environment_params, policy_params,
                 exploration_policy_params, max_path_length, seed=None,
                 evaluation_environment_params=None, encoder_params=None,
                 envs_per_sampler=1, vector_mode='sync'):
        from softlearning.environments import rendering
        from softlearning.policies.numpy_policies import get_numpy_policy
        if rendering.renders_observations(environment_params):
            # Before the simulator's import, which reads MUJOCO_GL.
            rendering.configure_offscreen_rendering()
        self.environments = build_environments(
            environment_params, envs_per_sampler, vector_mode)
        self.environment = self.environments[0]
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
        self._stepper = VectorStepper(self.environments, max_path_length,
                                      seed=seed)
        self._seed = seed
        self._weights_version = -1

    # Control ---------------------------------------------------------------

    def set_weights(self, weights, version=None):
        self.policies['policy'].set_weights(weights)
        self._weights_version = version

    def get_weights(self):
        return self.policies['policy'].get_weights()

    def set_physical_parameters(self, values):
        self._stepper.set_physical_parameters(values)

    def get_physical_parameters(self):
        """One dict per environment."""
        return [environment.get_physical_parameters()
                for environment in self.environments]

    def get_seed(self):
        return self._seed

    # Checkpoint state --------------------------------------------------------

    def get_state(self):
        """Every environment's running episode (observation, counters, the
        simulator's state where it can save one, a recurrent policy's LSTM
        state) and the policies' random states."""
        return {'vector': self._stepper.get_state(),
                'np_random': {name: policy.get_np_random_state()
                              for name, policy in self.policies.items()}}

    def set_state(self, state):
        for name, random_state in state['np_random'].items():
            self.policies[name].set_np_random_state(random_state)
        vector = state.get('vector')
        if vector is None:  # checkpoints of one environment per actor
            vector = single_stepper_state(state['stepper'])
        return all(self._stepper.set_state(vector))

    # Collection ------------------------------------------------------------

    def sample(self, n_steps, policy_name='policy', weights=None,
               version=None):
        """Takes ``n_steps`` steps over the actor's environments; returns
        the transitions as one batch (each environment's in order), the
        returns, lengths and successes of the paths that finished (a
        success None where the environment reports none), and whether the
        environments report successes at all."""
        if weights is not None:
            self.set_weights(weights, version)
        steps = self._stepper.step(self.policies[policy_name], n_steps)
        transitions, finished_episodes = [], []
        for transition, finished in (step for environment_steps in steps
                                     for step in environment_steps):
            transitions.append(transition)
            if finished is not None:
                finished_episodes.append(finished)
        return {
            'samples': stack_transitions(transitions),
            'returns': [episode.path_return for episode in finished_episodes],
            'lengths': [episode.length for episode in finished_episodes],
            'successes': [episode.success for episode in finished_episodes],
            'reports_success': self._stepper.reports_success,
            'version': (self._weights_version if policy_name == 'policy'
                        else None),
        }

    def evaluate(self, episode_seeds, deterministic=True, weights=None,
                 physical_parameters=None):
        """One episode of the evaluation environment per seed, with the
        learner's policy (and ``physical_parameters``); returns a
        ``FinishedEpisode`` (return, length, success) per seed. The
        episodes start from their seeds, so no evaluation state needs
        checkpointing."""
        from softlearning import environments
        if weights is not None:
            self.policies['policy'].set_weights(weights)
        if self._evaluation_environment is None:
            self._evaluation_environment = (
                environments.get_environment_from_params(
                    self._evaluation_environment_params))
        if physical_parameters:
            self._evaluation_environment.set_physical_parameters(
                physical_parameters)
        policy = self.policies['policy']
        results = []
        with policy.set_deterministic(deterministic):
            for seed in episode_seeds:
                path = rollout(self._evaluation_environment, policy,
                               self._max_path_length, seed=int(seed))
                results.append(FinishedEpisode(
                    path['return'], path['length'], path['success']))
        return results
