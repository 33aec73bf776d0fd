"""A replay pool for stacked pixel observations that stores each frame once
per transition, not once per stack it appears in.

A pixel observation is the last ``frame_stack`` rendered frames, stacked on
the channel axis (environments/pixels.py). Stored as given, every frame would
be kept 2 * frame_stack times (in frame_stack observations and as many next
observations). Here a transition stores only the newest frame of its
observation and of its next observation (uint8), the id of its episode, its
step in the episode, and the row of the episode's previous step. Minibatches
rebuild the stacks by following those rows back (``batch_by_indices``):

- at an episode's first steps the stack repeats the first frame, as the
  environment's stack does;
- sampler actors' batches interleave in the pool, so the previous step is
  found by row, not by position, and a row counts only while it still holds
  that episode's previous step. Once the ring buffer has overwritten a step,
  the (few) later steps of that episode that are still stored repeat their
  oldest remaining frame instead.

Bytes per transition: 2 * height * width * 3 (two uint8 frames) plus the
state keys, action, reward and terminal (float32) and three int64 ids; at
84x84 that is 42,336 + about 50 bytes, so 100k transitions take 4.3 GB
(stacks of 3 stored as given, float32: 508 kB per transition, 51 GB).
``bytes_per_transition`` says it for a given pool.

Checkpoint pieces store what is stored (frames and rows), so a resumed pool
is the same pool.
"""

import numpy as np

from .simple_replay_pool import SimpleReplayPool, _map_nested

EPISODE_FIELDS = ('episodes', 'episode_steps', 'previous_rows')
# Rows remembered per running episode (its last stored row) are pruned once
# there are this many; only episodes still being added to need one.
MAX_REMEMBERED_EPISODES = 4096


class FrameReplayPool(SimpleReplayPool):

    def __init__(self, observation_shapes, action_shape, max_size,
                 frame_stack=3, pixel_key='pixels', seed=None):
        self.frame_stack = int(frame_stack)
        self.pixel_key = pixel_key
        shape = tuple(observation_shapes.get(pixel_key, ()))
        if len(shape) != 3 or shape[-1] % self.frame_stack:
            raise ValueError(
                f"FrameReplayPool needs an image observation '{pixel_key}' "
                f"(height, width, channels) with channels a multiple of "
                f"frame_stack={frame_stack}; observations: "
                f"{dict(observation_shapes)}")
        self._stack_shape = shape
        self._frame_shape = (*shape[:2], shape[-1] // self.frame_stack)
        super().__init__(observation_shapes, action_shape, max_size,
                         seed=seed)
        for field in EPISODE_FIELDS:
            self.data[field][:] = -1
        # episode id -> the row of its last stored step
        self._last_rows = {}

    def _stored_fields(self, observation_shapes, action_shape):
        fields = super()._stored_fields(observation_shapes, action_shape)
        for key in ('observations', 'next_observations'):
            fields[key][self.pixel_key] = (self._frame_shape, np.uint8)
        for field in EPISODE_FIELDS:
            fields[field] = ((), np.int64)
        return fields

    # Adding ------------------------------------------------------------------

    def add_sample(self, observation, action, reward, terminal,
                   next_observation, episode=None, step=None):
        self.add_samples({
            'observations': {k: np.asarray(v)[None]
                             for k, v in observation.items()},
            'next_observations': {k: np.asarray(v)[None]
                                  for k, v in next_observation.items()},
            'actions': np.asarray(action)[None],
            'rewards': np.asarray([[reward]]),
            'terminals': np.asarray([[terminal]]),
            'episodes': np.asarray([-1 if episode is None else episode]),
            'episode_steps': np.asarray([0 if step is None else step])})

    def add_samples(self, samples):
        """Adds a batch of transitions as samplers make them (stacked
        observations, 'episodes' and 'episode_steps')."""
        count = len(samples['actions'])
        rows = (self._pointer + np.arange(count)) % self._max_size
        episodes = np.asarray(samples.get('episodes', np.full(count, -1)),
                              np.int64)
        steps = np.asarray(samples.get('episode_steps', np.zeros(count)),
                           np.int64)
        stored = dict(samples)
        for field in ('observations', 'next_observations'):
            stored[field] = {**samples[field], self.pixel_key: np.asarray(
                samples[field][self.pixel_key])[..., -self._frame_shape[-1]:]}
        stored['episodes'], stored['episode_steps'] = episodes, steps
        stored['previous_rows'] = self._previous_rows(rows, episodes, steps)
        super().add_samples(stored)
        self._remember_last_rows(rows, episodes)

    def _previous_rows(self, rows, episodes, steps):
        """The row of each transition's previous step (its own row at an
        episode's start, or when its episode is unknown)."""
        previous = rows.copy()
        for j, (episode, step) in enumerate(zip(episodes, steps)):
            if episode < 0 or step == 0:
                continue
            if j > 0 and episodes[j - 1] == episode:
                previous[j] = rows[j - 1]
            else:
                previous[j] = self._last_rows.get(int(episode), rows[j])
        return previous

    def _remember_last_rows(self, rows, episodes):
        for row, episode in zip(rows, episodes):
            self._last_rows[int(episode)] = int(row)
        if len(self._last_rows) > MAX_REMEMBERED_EPISODES:
            stored = self.data['episodes']
            self._last_rows = {
                episode: row for episode, row in self._last_rows.items()
                if stored[row] == episode}

    def add_experience(self, piece):
        super().add_experience(piece)
        count = len(piece['samples']['actions'])
        rows = (piece['end_pointer'] - count + np.arange(count)) % (
            self._max_size)
        self._remember_last_rows(rows, piece['samples']['episodes'])

    # Minibatches -------------------------------------------------------------

    def batch_shapes(self):
        shapes = _map_nested(lambda spec: spec[0], {
            key: value for key, value in self.fields.items()
            if key not in EPISODE_FIELDS})
        for key in ('observations', 'next_observations'):
            shapes[key][self.pixel_key] = self._stack_shape
        return shapes

    def stack_rows(self, indices):
        """Rows of the frames of each index's observation, oldest first: a
        list of ``frame_stack`` index arrays shaped like ``indices``."""
        data = self.data
        episodes, steps = data['episodes'], data['episode_steps']
        current = np.asarray(indices)
        chain = [current]
        for _ in range(self.frame_stack - 1):
            previous = data['previous_rows'][current]
            continues = ((episodes[previous] == episodes[current])
                         & (steps[previous] == steps[current] - 1)
                         & (episodes[current] >= 0))
            current = np.where(continues, previous, current)
            chain.append(current)
        return chain[::-1]

    def batch_by_indices(self, indices):
        indices = np.asarray(indices)
        batch = _map_nested(lambda array: array[indices], {
            key: value for key, value in self.data.items()
            if key not in EPISODE_FIELDS})
        frames = self.data['observations'][self.pixel_key]
        rows = self.stack_rows(indices)
        batch['observations'][self.pixel_key] = np.concatenate(
            [frames[r] for r in rows], axis=-1)
        batch['next_observations'][self.pixel_key] = np.concatenate(
            [frames[r] for r in rows[1:]]
            + [self.data['next_observations'][self.pixel_key][indices]],
            axis=-1)
        return batch
