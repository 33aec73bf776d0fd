"""A replay pool of sequences, for recurrent agents.

Transitions are stored once, in the order samplers add them, with the id of
their episode and their step within it. A minibatch element is a window of
``burn_in + sequence_length`` consecutive stored transitions, each field
(B, T, ...), and a 'mask' (B, T, 1) saying which steps count in the losses:

- the window's steps are valid while they continue the episode of its first
  step (same episode, next step). A window that runs past its episode's end,
  or into another sampler actor's transitions, is padded with what follows
  and those steps are masked out. Padding comes after the valid steps and
  the networks are causal, so it changes nothing the losses see;
- every window starts from the LSTMs' zero state at its first step. Acting
  starts from the zero state at each episode's start, so a window starting
  mid-episode begins with a wrong (zero) summary: its first ``burn_in``
  steps only warm the LSTMs up and are masked out too; a window starting at
  its episode's first step needs no burn-in and is trained from step 0.

The networks summarize 'next_observations' on their own, from the zero
state at the window's second observation: the summary of s'_t starts one
step later than the one of s_{t+1}; burn-in makes the two agree.

``random_batch`` (one flat batch of transitions, for diagnostics) is the
simple pool's. Checkpoints store the episode ids and steps with the
transitions, so a resumed run samples the same windows.
"""

import numpy as np

from .simple_replay_pool import EPISODE_FIELDS, EpisodeReplayPool, _map_nested


class SequenceReplayPool(EpisodeReplayPool):

    def __init__(self, observation_shapes, action_shape, max_size,
                 sequence_length=16, burn_in=8, seed=None):
        super().__init__(observation_shapes, action_shape, max_size,
                         seed=seed)
        self.sequence_length = int(sequence_length)
        self.burn_in = int(burn_in)
        if self.sequence_length < 1 or self.burn_in < 0:
            raise ValueError(
                f"sequence_length must be >= 1 and burn_in >= 0, got "
                f"{sequence_length} and {burn_in}")

    @property
    def window(self):
        return self.burn_in + self.sequence_length

    def batch_shapes(self):
        shapes = _map_nested(lambda spec: (self.window, *spec[0]), {
            key: value for key, value in self.fields.items()
            if key not in EPISODE_FIELDS})
        shapes['mask'] = (self.window, 1)
        return shapes

    def window_indices(self, shape):
        """Ring indices (*shape, T) of random windows of stored, consecutive
        transitions (in the order they were added)."""
        if self._size < self.window:
            raise ValueError(
                f"The pool holds {self._size} transitions, fewer than one "
                f"window of {self.window} (burn_in + sequence_length).")
        starts = self._np_random.integers(0, self._size - self.window + 1,
                                          shape)
        return self.chronological_indices(starts[..., None]
                                          + np.arange(self.window))

    def mask(self, indices):
        """(..., T, 1): 1 where a step counts in the losses."""
        episodes = self.data['episodes'][indices]
        steps = self.data['episode_steps'][indices]
        offsets = np.arange(self.window)
        continues = ((episodes == episodes[..., :1])
                     & (episodes >= 0)
                     & (steps == steps[..., :1] + offsets))
        valid = np.cumprod(continues, axis=-1).astype(bool)
        warmed_up = (offsets >= self.burn_in) | (steps[..., :1] == 0)
        return (valid & warmed_up)[..., None].astype(np.float32)

    def random_batches(self, num_batches, batch_size):
        """``num_batches`` minibatches of ``batch_size`` windows, stacked:
        every field (K, B, T, ...), and the mask (K, B, T, 1)."""
        indices = self.window_indices((num_batches, batch_size))
        batch = {key: value for key, value in
                 self.batch_by_indices(indices).items()
                 if key not in EPISODE_FIELDS}
        batch['mask'] = self.mask(indices)
        return batch

