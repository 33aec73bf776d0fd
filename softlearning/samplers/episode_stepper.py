"""The per-episode loop every sampler shares.

``SimpleSampler`` (in the learner's process) and ``SamplerWorker`` (in Ray
actors) both step one environment episode after episode with an
``EpisodeStepper``. It resets the environment when an episode ends (the
first reset with the sampler's seed, later ones continuing the
environment's own RNG, each after the curriculum's per-episode draws), caps
episodes at ``max_path_length`` (a truncation: the transition still
bootstraps), and keeps the running episode's observation, return and
length. Per-episode state that agents add belongs here, so both samplers
get it: a recurrent policy's LSTM state (``policy_state``, None at each
episode's start, see ``BasePolicy.step``), and each transition's episode id
and step within the episode, from which a sequence pool tells where episodes
begin and end (replay_pools/sequence_replay_pool.py).
"""

import collections

from softlearning.curriculum.randomization import EnvironmentStateSetter

Transition = collections.namedtuple(
    'Transition',
    'observation action reward terminated next_observation episode step')

# Episode ids: the stepper's seed (distinct per sampler actor) above, its
# count of finished episodes below.
EPISODES_PER_SEED = 2 ** 32


class EpisodeStepper:

    def __init__(self, environment, max_path_length, seed=None):
        self.environment = environment
        self.max_path_length = int(max_path_length)
        self._seed = seed
        # Curriculum values (numbers, or ranges drawn every episode).
        self.environment_state = EnvironmentStateSetter(environment,
                                                        seed=seed)
        self.observation = None  # None: the next step starts an episode
        self.policy_state = None
        self.path_length = 0
        self.path_return = 0.0
        self.num_paths = 0

    def _reset(self):
        seed = self._seed if self.num_paths == 0 else None
        self.environment_state.before_reset()
        self.observation = self.environment.reset(seed=seed)

    def step(self, policy):
        """One environment step with ``policy``. Returns the transition and,
        when this step ended the episode, its (return, length), else None.
        ``terminated`` is true only for a true termination."""
        if self.observation is None:
            self._reset()
        observation = self.observation
        action, self.policy_state = policy.step(observation,
                                                self.policy_state)
        next_observation, reward, terminated, truncated, _ = (
            self.environment.step(action))
        transition = Transition(observation, action, reward, terminated,
                                next_observation, self.episode_id,
                                self.path_length)
        self.path_length += 1
        self.path_return += reward
        if not (terminated or truncated
                or self.path_length >= self.max_path_length):
            self.observation = next_observation
            return transition, None
        finished = (self.path_return, self.path_length)
        self.num_paths += 1
        self._start_new_episode()
        return transition, finished

    def _start_new_episode(self):
        self.observation = None
        self.policy_state = None
        self.path_length, self.path_return = 0, 0.0

    @property
    def episode_id(self):
        return (self._seed or 0) * EPISODES_PER_SEED + self.num_paths

    # Checkpoint state ------------------------------------------------------

    def get_state(self):
        """The running episode, including the environment's mid-episode state
        where it can save one (``get_episode_state``)."""
        return {
            'observation': self.observation,
            'path_length': self.path_length,
            'path_return': self.path_return,
            'num_paths': self.num_paths,
            'policy_state': self.policy_state,
            'environment': self.environment.get_episode_state(),
        }

    def set_state(self, state):
        """Continues the saved episode. Returns False when the environment
        cannot restore it: the episode is then cut here and the next step
        starts a fresh one (from the environment's own RNG)."""
        self.num_paths = state['num_paths']
        self.observation = state['observation']
        self.path_length = state['path_length']
        self.path_return = state['path_return']
        self.policy_state = state.get('policy_state')
        if state['environment'] is not None:
            self.environment.set_episode_state(state['environment'])
            return True
        if self.observation is not None:
            self._start_new_episode()
            return False
        return True
