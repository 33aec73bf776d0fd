"""A replay pool of n-step transitions.

A minibatch element starts at a random stored transition t and looks ahead
up to ``n_step`` transitions of the same episode: (s_t, a_t), the rewards
r_t .. r_{t+k-1} (B, n_step; zero after the k kept), and the next
observation and terminal of step t+k-1, with 'n_steps' = k (B, 1). The
window keeps the steps that continue t's episode (same episode id, next
step), up to and including a termination, within what is stored so far.
So it is cut

- at a termination: k ends there, terminal = 1, no bootstrap;
- at a time-limit truncation (the next stored transition starts another
  episode): k ends there, terminal = 0, bootstrap from the truncated
  state's next observation;
- at the newest stored transition: the same, bootstrap from its next
  observation.

The algorithm discounts (fused_updates.py, ``_bellman_targets``):
y = reward_scale * sum_j discount^j r_{t+j} + discount^k (1 - d) V(s').
"""

import numpy as np

from .simple_replay_pool import EPISODE_FIELDS, EpisodeReplayPool, _map_nested


class NStepReplayPool(EpisodeReplayPool):

    def __init__(self, observation_shapes, action_shape, max_size, n_step=3,
                 seed=None):
        super().__init__(observation_shapes, action_shape, max_size,
                         seed=seed)
        self.n_step = int(n_step)
        if self.n_step < 1:
            raise ValueError(f"n_step must be at least 1, got {n_step}.")

    def batch_shapes(self):
        shapes = _map_nested(lambda spec: spec[0], {
            key: value for key, value in self.fields.items()
            if key not in EPISODE_FIELDS})
        shapes['rewards'] = (self.n_step,)
        shapes['n_steps'] = (1,)
        return shapes

    def window_mask(self, positions):
        """(..., n_step) booleans: which steps of the windows starting at
        chronological ``positions`` continue the first one's episode."""
        chronological = positions[..., None] + np.arange(self.n_step)
        indices = self.chronological_indices(chronological)
        episodes = self.data['episodes'][indices]
        steps = self.data['episode_steps'][indices]
        terminals = self.data['terminals'][indices][..., 0] > 0
        # A step after a termination does not count; nor one beyond the
        # newest stored transition.
        after_terminal = np.cumsum(terminals, axis=-1) - terminals > 0
        continues = ((episodes == episodes[..., :1]) & (episodes >= 0)
                     & (steps == steps[..., :1] + np.arange(self.n_step))
                     & ~after_terminal & (chronological < self._size))
        continues[..., 0] = True
        return np.cumprod(continues, axis=-1).astype(bool), indices

    def random_batches(self, num_batches, batch_size):
        """``num_batches`` minibatches of ``batch_size`` n-step transitions,
        stacked: (K, B, ...)."""
        if self._size == 0:
            raise ValueError('Cannot sample from an empty replay pool.')
        positions = self._np_random.integers(
            0, self._size, (num_batches, batch_size))
        return self.n_step_batch(positions)

    def random_batch(self, batch_size):
        return _map_nested(lambda x: x[0],
                           self.random_batches(1, batch_size))

    def n_step_batch(self, positions):
        """The n-step transitions starting at chronological ``positions``."""
        mask, indices = self.window_mask(positions)
        n_steps = mask.sum(axis=-1)
        first, last = indices[..., 0], np.take_along_axis(
            indices, n_steps[..., None] - 1, axis=-1)[..., 0]
        return {
            'observations': _map_nested(lambda x: x[first],
                                        self.data['observations']),
            'actions': self.data['actions'][first],
            'rewards': self.data['rewards'][indices][..., 0] * mask,
            'terminals': self.data['terminals'][last],
            'next_observations': _map_nested(
                lambda x: x[last], self.data['next_observations']),
            'n_steps': n_steps[..., None].astype(np.float32),
        }
