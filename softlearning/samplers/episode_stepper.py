"""The per-episode loop every sampler shares.

``SimpleSampler`` (in the learner's process), ``SamplerWorker`` (in Ray
actors) and ``rollout`` (evaluation, ``softlearning simulate``) all step an
environment with an ``EpisodeStepper``. It resets the environment when an
episode ends (the first reset with the sampler's seed, later ones
continuing the environment's own RNG, each after the curriculum's
per-episode draws), caps episodes at ``max_path_length`` (a truncation: the
transition still bootstraps), and keeps the running episode's observation,
return and length, and, for goal-conditioned tasks, whether the episode
succeeded. Per-episode state that agents add belongs here, so every
sampler gets it: a recurrent policy's LSTM state (``policy_state``, None at
each episode's start, see ``BasePolicy.step``), and each transition's
episode id and step within the episode, from which a sequence pool tells
where episodes begin and end (replay_pools/sequence_replay_pool.py).

``stack_transitions`` turns the transitions into arrays, for the pool (a
batch) or as a path (a finished episode).
"""

import collections
from collections.abc import Mapping

import numpy as np

from softlearning.curriculum.randomization import PhysicalParameterSetter
from softlearning.utils import non_finite

Transition = collections.namedtuple(
    'Transition',
    'observation action reward terminated next_observation episode step')


class FinishedEpisode(collections.namedtuple(
        'FinishedEpisode', 'path_return length success')):
    """What a step that ends an episode reports of it: its return, its
    length, and its success, the ``is_success`` of its last step's info
    (0.0 or 1.0) as goal-conditioned tasks (gymnasium-robotics' Fetch)
    report it, None for environments that report none. The last step's
    value, not any step's: an episode that touched its goal and left it
    failed, as SB3 and the hindsight-replay papers count it."""
    __slots__ = ()


def step_success(info):
    """The ``is_success`` of a step's info as a float, or None."""
    if not isinstance(info, Mapping) or info.get('is_success') is None:
        return None
    return float(info['is_success'])


# What a path holds: a path's transitions may be just their first four
# entries (SimpleSampler's checkpointed running path is).
PATH_FIELDS = ('observations', 'actions', 'rewards', 'terminals')
# What a batch for ``pool.add_samples`` holds.
BATCH_FIELDS = PATH_FIELDS + ('next_observations', 'episodes',
                              'episode_steps')

# What a sampler's ``sample`` returns of the transitions it added.
COLLECTED_FIELDS = ('rewards', 'episodes', 'episode_steps')


# Episode ids: the stepper's seed (distinct per sampler actor) above, its
# count of finished episodes below.
EPISODES_PER_SEED = 2 ** 32


class EpisodeStepper:

    def __init__(self, environment, max_path_length, seed=None):
        self.environment = environment
        # An environment in a process of its own starts a step before
        # ``take`` waits for it (vector_stepper.step_together); looked up
        # once, not at every step.
        self.send_step = getattr(environment, 'send_step', None)
        self.max_path_length = int(max_path_length)
        self._seed = seed
        # Curriculum values (numbers, or ranges drawn every episode).
        self.physical_parameters = PhysicalParameterSetter(environment,
                                                           seed=seed)
        self.observation = None  # None: the next step starts an episode
        self.policy_state = None
        self.path_length = 0
        self.path_return = 0.0
        self.num_paths = 0
        # Whether a step's info has carried ``is_success``: the samplers
        # then report a success rate even in epochs in which no episode
        # ended, so that result tables have the column from the first epoch.
        self.reports_success = False

    def start_episode(self):
        """Resets the environment unless an episode is running (``step``
        does it too; ``rollout`` calls it first to render the first
        frame)."""
        if self.observation is not None:
            return
        seed = self._seed if self.num_paths == 0 else None
        self.physical_parameters.before_reset()
        self.observation = self.environment.reset(seed=seed)
        non_finite.check_observation(
            self.environment, self.observation,
            f'at the reset of episode {self.num_paths}')

    def step(self, policy):
        """One environment step with ``policy``. Returns the transition and,
        when this step ended the episode, its ``FinishedEpisode``, else None.
        ``terminated`` is true only for a true termination."""
        self.start_episode()
        action, policy_state = policy.step(self.observation,
                                           self.policy_state)
        return self.take(action, policy_state)

    def take(self, action, policy_state=None):
        """The step of ``step`` after the policy acted: ``action`` in the
        running episode (started by ``start_episode``), ``policy_state``
        what the policy gave with it. Vector steppers call it after one
        policy call for all their environments."""
        observation, self.policy_state = self.observation, policy_state
        next_observation, reward, terminated, truncated, info = (
            self.environment.step(action))
        non_finite.check_step(
            self.environment, action, next_observation, reward,
            f'at step {self.path_length + 1} of episode {self.num_paths}')
        transition = Transition(observation, action, reward, terminated,
                                next_observation, self.episode_id,
                                self.path_length)
        self.path_length += 1
        self.path_return += reward
        success = step_success(info)
        self.reports_success = self.reports_success or success is not None
        if not (terminated or truncated
                or self.path_length >= self.max_path_length):
            self.observation = next_observation
            return transition, None
        finished = FinishedEpisode(self.path_return, self.path_length,
                                   success)
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


def stack_observations(observations):
    """Observation dicts stacked into one dict of (N, ...) arrays."""
    return {key: np.stack([np.asarray(o[key]) for o in observations])
            for key in observations[0]}


def stack_transitions(transitions, fields=BATCH_FIELDS):
    """The transitions' ``fields`` as arrays: observations as dicts of
    stacked arrays, rewards and terminals as float32 columns, episode ids and
    steps as int64."""
    columns = list(zip(*transitions))
    stack = {
        'observations': lambda: stack_observations(columns[0]),
        # Policies act in float32; a float64 action would only double the
        # batch the pool stores as float32 anyway.
        'actions': lambda: np.stack(columns[1]).astype(np.float32),
        'rewards': lambda: np.asarray(columns[2], dtype=np.float32)[:, None],
        # Only true terminations: a time limit still bootstraps.
        'terminals': lambda: np.asarray(columns[3],
                                        dtype=np.float32)[:, None],
        'next_observations': lambda: stack_observations(columns[4]),
        # Where episodes begin and end, for sequence pools.
        'episodes': lambda: np.asarray(columns[5], dtype=np.int64),
        'episode_steps': lambda: np.asarray(columns[6], dtype=np.int64),
    }
    return {field: stack[field]() for field in fields}
