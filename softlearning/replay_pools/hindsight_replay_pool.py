"""Hindsight Experience Replay (Andrychowicz et al. 2017): a replay pool for
goal-conditioned tasks whose minibatches relabel goals.

A goal-conditioned environment's observations hold ``achieved_goal`` and
``desired_goal``, and it computes its reward from them
(``compute_reward(achieved_goal, desired_goal, info)``, vectorized, as
gymnasium-robotics' tasks do). With a sparse reward (-1 until the goal is
reached) an agent almost never sees a success; HER replays each transition
as if the goal had been one the episode did reach.

Transitions are stored as they come (each with its episode id and step, as
the samplers give them). When a minibatch is drawn, each transition is
relabeled with probability k / (k + 1) (``relabeled_goals`` = k, the
paper's and SB3's ``n_sampled_goal``): its desired goal, in the observation
and in the next observation, becomes the achieved goal (of the next
observation) of a transition j of the same episode, chosen by
``strategy``:

- 'future':  j uniform among the transition's own step and the later ones
  stored so far (the paper's best; SB3's default);
- 'final':   j the episode's last transition stored so far;
- 'episode': j uniform among the episode's stored transitions.

and its reward is recomputed with ``compute_reward`` in one vectorized call
per minibatch (``info`` an empty dict). Terminals are kept: Fetch tasks never
terminate. Relabeling uses the pool's own random generator, which
checkpoints save, so a resumed run draws the same minibatches.

Episodes are found through an index kept beside the ring: a table of the
ring positions of each episode's steps (``_EpisodeIndex``). Transitions of
one episode need not be adjacent in the ring (K environments per sampler,
several sampler actors add theirs interleaved); each episode's steps come in
order. A transition whose episode has begun to be overwritten keeps the
steps still stored.
"""

import numpy as np

from .simple_replay_pool import EPISODE_FIELDS, EpisodeReplayPool, _map_nested

STRATEGIES = ('future', 'final', 'episode')
GOAL_KEYS = ('achieved_goal', 'desired_goal')


def check_goal_environment(environment, description=None):
    """Raises ValueError unless ``environment`` is goal-conditioned: it has
    ``compute_reward`` and observations with both goal keys."""
    name = description or getattr(environment, 'environment_id', None) or (
        type(environment).__name__)
    missing = [key for key in GOAL_KEYS
               if key not in environment.observation_shapes]
    if missing or getattr(environment, 'compute_reward', None) is None:
        raise ValueError(
            f"Hindsight replay needs a goal-conditioned environment: "
            f"{name} has observations {sorted(environment.observation_shapes)}"
            f"{'' if getattr(environment, 'compute_reward', None) else ' and no compute_reward'}"
            f"; it needs observations {', '.join(GOAL_KEYS)} and "
            "compute_reward(achieved_goal, desired_goal, info), as "
            "gymnasium-robotics' Fetch tasks have.")


class _EpisodeIndex:
    """Which ring positions hold each episode's steps.

    Episodes get slots; ``rows[slot, step]`` is the ring position of the
    step, ``first[slot]`` and ``length[slot]`` bound the steps still stored
    (``first`` rises as the ring overwrites the episode's oldest steps).
    A slot is reused once none of its episode's steps is stored; the table
    grows (slots, and steps per episode) when it must.
    """

    def __init__(self, max_size, slots=64, steps=64):
        self.slot_of = np.full(max_size, -1, np.int64)
        self.rows = np.full((slots, steps), -1, np.int64)
        self.first = np.zeros(slots, np.int64)
        self.length = np.zeros(slots, np.int64)
        self.stored = np.zeros(slots, np.int64)
        self.episode = np.full(slots, -1, np.int64)
        self.open = {}  # episode id -> the slot its next step continues
        self._cursor = 0

    def release(self, position, step):
        """The ring is about to overwrite ``position`` (step ``step``)."""
        slot = self.slot_of[position]
        if slot < 0:
            return
        self.slot_of[position] = -1
        self.rows[slot, step] = -1
        self.first[slot] = max(self.first[slot], step + 1)
        self.stored[slot] -= 1
        if self.stored[slot] == 0:
            if self.open.get(int(self.episode[slot])) == slot:
                del self.open[int(self.episode[slot])]
            self.episode[slot] = -1

    def add(self, position, episode, step):
        """The transition at ``position`` is step ``step`` of ``episode``
        (-1: of no known episode)."""
        if episode < 0:
            return
        slot = self.open.get(episode)
        if slot is None or step != self.length[slot]:
            # A new episode; or a step that does not continue the slot's
            # (an episode cut and begun again under its id): a new slot.
            slot = self._free_slot()
            self.episode[slot] = episode
            self.first[slot] = step
            self.open[episode] = slot
        if step >= self.rows.shape[1]:
            grown = np.full((len(self.rows), 2 * (step + 1)), -1, np.int64)
            grown[:, :self.rows.shape[1]] = self.rows
            self.rows = grown
        self.rows[slot, step] = position
        self.length[slot] = step + 1
        self.stored[slot] += 1
        self.slot_of[position] = slot

    def _free_slot(self):
        slots = len(self.stored)
        for offset in range(slots):
            slot = (self._cursor + offset) % slots
            if self.stored[slot] == 0:
                self._cursor = (slot + 1) % slots
                self.stored[slot] = 0
                self.rows[slot] = -1
                return slot
        # All in use: twice as many slots.
        self.rows = np.concatenate(
            [self.rows, np.full_like(self.rows, -1)])
        for name in ('first', 'length', 'stored'):
            setattr(self, name, np.concatenate(
                [getattr(self, name), np.zeros(slots, np.int64)]))
        self.episode = np.concatenate(
            [self.episode, np.full(slots, -1, np.int64)])
        self._cursor = slots + 1
        return slots

    def goal_positions(self, positions, steps, strategy, uniform):
        """The ring positions whose achieved goals relabel the transitions
        at ``positions`` (steps ``steps``), ``uniform`` draws in [0, 1);
        a transition of no known episode relabels with its own."""
        slots = self.slot_of[positions]
        known = slots >= 0
        slots = np.where(known, slots, 0)
        length, first = self.length[slots], self.first[slots]
        if strategy == 'future':
            low = steps
        elif strategy == 'final':
            low = length - 1
        else:
            low = first
        offsets = low + (uniform * (length - low)).astype(np.int64)
        chosen = self.rows[slots, np.minimum(offsets, length - 1)]
        return np.where(known & (chosen >= 0), chosen, positions)


class HindsightReplayPool(EpisodeReplayPool):

    # replay_pools.get gives it the environment's compute_reward.
    takes_reward_function = True

    def __init__(self, observation_shapes, action_shape, max_size,
                 reward_function=None, strategy='future', relabeled_goals=4,
                 seed=None):
        if strategy not in STRATEGIES:
            raise ValueError(f"Unknown hindsight strategy '{strategy}'. "
                             f"Valid strategies: {', '.join(STRATEGIES)}")
        if int(relabeled_goals) < 0:
            raise ValueError("relabeled_goals must be at least 0, got "
                             f"{relabeled_goals}.")
        missing = [key for key in GOAL_KEYS if key not in observation_shapes]
        if missing:
            raise ValueError(
                "HindsightReplayPool needs observations "
                f"{', '.join(GOAL_KEYS)}; these have "
                f"{', '.join(sorted(observation_shapes))}.")
        super().__init__(observation_shapes, action_shape, max_size,
                         seed=seed)
        self.strategy = strategy
        self.relabeled_goals = int(relabeled_goals)
        self.reward_function = reward_function
        self._index = _EpisodeIndex(self._max_size)

    @property
    def relabel_probability(self):
        return self.relabeled_goals / (self.relabeled_goals + 1)

    # Adding: the ring as the parent writes it, then the index ----------

    def _reindex(self, positions, add):
        """Runs ``add`` (a parent's method that writes the ring at
        ``positions``, in order), then indexes what it wrote."""
        old_steps = self.data['episode_steps'][positions].tolist()
        add()
        episodes = self.data['episodes'][positions].tolist()
        steps = self.data['episode_steps'][positions].tolist()
        for position, old_step, episode, step in zip(
                positions.tolist(), old_steps, episodes, steps):
            self._index.release(position, old_step)
            self._index.add(position, episode, step)

    def add_sample(self, observation, action, reward, terminal,
                   next_observation, episode=None, step=None):
        self._reindex(np.array([self._pointer]), lambda: super(
            HindsightReplayPool, self).add_sample(
                observation, action, reward, terminal, next_observation,
                episode=episode, step=step))

    def add_samples(self, samples):
        count = len(samples['episodes'])
        # Of more than the pool holds, only the newest are written.
        skipped = max(0, count - self._max_size)
        positions = (self._pointer + skipped + np.arange(count - skipped)
                     ) % self._max_size
        self._reindex(positions, lambda: super(
            HindsightReplayPool, self).add_samples(samples))

    def add_experience(self, piece):
        count = len(piece['samples']['episodes'])
        positions = (piece['end_pointer'] - count + np.arange(count)
                     ) % self._max_size
        self._reindex(positions, lambda: super(
            HindsightReplayPool, self).add_experience(piece))

    # Sampling ----------------------------------------------------------

    def batch_shapes(self):
        return _map_nested(lambda spec: spec[0], {
            key: value for key, value in self.fields.items()
            if key not in EPISODE_FIELDS})

    def batch_by_indices(self, indices):
        """The stored transitions (no relabeling)."""
        return {key: _map_nested(lambda array: array[indices], value)
                for key, value in self.data.items()
                if key not in EPISODE_FIELDS}

    def random_batch(self, batch_size):
        return _map_nested(lambda x: x[0],
                           self.random_batches(1, batch_size))

    def random_batches(self, num_batches, batch_size):
        """``num_batches`` relabeled minibatches, stacked: (K, B, ...)."""
        indices = self.random_indices((num_batches, batch_size))
        return self.relabeled_batch(indices)

    def relabeled_batch(self, indices):
        """The transitions at ring ``indices`` (any shape), each relabeled
        with probability k / (k + 1)."""
        batch = self.batch_by_indices(indices)
        flat = indices.reshape(-1)
        relabel = np.flatnonzero(
            self._np_random.random(flat.size) < self.relabel_probability)
        if relabel.size == 0:
            return batch
        positions = flat[relabel]
        goal_positions = self._index.goal_positions(
            positions, self.data['episode_steps'][positions], self.strategy,
            self._np_random.random(relabel.size))
        goals = self.data['next_observations']['achieved_goal'][
            goal_positions]
        rewards = self.compute_rewards(
            self.data['next_observations']['achieved_goal'][positions],
            goals)
        shape = indices.shape
        for observations in (batch['observations'],
                             batch['next_observations']):
            desired = observations['desired_goal'].reshape(
                (-1, *goals.shape[1:]))
            desired[relabel] = goals
            observations['desired_goal'] = desired.reshape(
                (*shape, *goals.shape[1:]))
        flat_rewards = batch['rewards'].reshape(-1)
        flat_rewards[relabel] = rewards
        batch['rewards'] = flat_rewards.reshape((*shape, 1))
        return batch

    def compute_rewards(self, achieved_goals, desired_goals):
        if self.reward_function is None:
            raise ValueError(
                "HindsightReplayPool has no reward function: build it with "
                "replay_pools.get(params, environment), from a "
                "goal-conditioned environment (compute_reward).")
        rewards = self.reward_function(achieved_goals, desired_goals, {})
        return np.asarray(rewards, np.float32).reshape(-1)
