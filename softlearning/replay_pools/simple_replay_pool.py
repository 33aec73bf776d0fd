"""A numpy ring buffer of transitions whose fields may be nested dicts.

Fields: observations, next_observations (dicts keyed by observation key),
actions, rewards (B, 1), terminals (B, 1). ``terminals`` holds only true
terminations: a time-limit truncation is stored as non-terminal so that the
target still bootstraps from the next state.
"""

import numpy as np


def _map_nested(fn, *structures):
    first = structures[0]
    if isinstance(first, dict):
        return {key: _map_nested(fn, *(s[key] for s in structures))
                for key in first}
    return fn(*structures)


def _flatten(structure, prefix=()):
    if isinstance(structure, dict):
        for key, value in structure.items():
            yield from _flatten(value, prefix + (key,))
    else:
        yield prefix, structure


def _get_path(structure, path):
    for key in path:
        structure = structure[key]
    return structure


def transition_fields(observation_shapes, action_shape):
    """{field: (shape, dtype)} (nested for observations)."""
    observation_fields = {key: (tuple(shape), np.float32)
                          for key, shape in observation_shapes.items()}
    return {
        'observations': observation_fields,
        'next_observations': dict(observation_fields),
        'actions': (tuple(action_shape), np.float32),
        'rewards': ((1,), np.float32),
        'terminals': ((1,), np.float32),
    }


class SimpleReplayPool:

    def __init__(self, observation_shapes, action_shape, max_size, seed=None):
        self._max_size = int(max_size)
        self.fields = self._stored_fields(observation_shapes, action_shape)
        # np.zeros maps pages lazily: a 1e6 pool costs memory only as it fills.
        self.data = _map_nested(
            lambda spec: np.zeros((self._max_size, *spec[0]), dtype=spec[1]),
            self.fields)
        self._flat_data = list(_flatten(self.data))
        self._pointer = 0
        self._size = 0
        self._total_samples = 0
        self._np_random = np.random.default_rng(seed)

    def _stored_fields(self, observation_shapes, action_shape):
        """{field: (shape, dtype)} of what is stored per transition."""
        return transition_fields(observation_shapes, action_shape)

    @property
    def bytes_per_transition(self):
        """Memory one stored transition takes (once the pool is full)."""
        return sum(array.itemsize * int(np.prod(array.shape[1:]))
                   for _, array in self._flat_data)

    @property
    def size(self):
        return self._size

    @property
    def capacity(self):
        return self._max_size

    max_size = capacity

    @property
    def total_samples(self):
        """Transitions ever added (the pool keeps the last ``capacity``)."""
        return self._total_samples

    def __len__(self):
        return self._size

    def _advance(self, count):
        self._pointer = (self._pointer + count) % self._max_size
        self._size = min(self._size + count, self._max_size)
        self._total_samples += count

    def add_sample(self, observation, action, reward, terminal,
                   next_observation, episode=None, step=None):
        """Adds one transition (the sampler's per-step fast path). The
        episode id and step are for sequence pools; this one ignores them."""
        i = self._pointer
        data = self.data
        for key, value in observation.items():
            data['observations'][key][i] = value
        for key, value in next_observation.items():
            data['next_observations'][key][i] = value
        data['actions'][i] = action
        data['rewards'][i] = reward
        data['terminals'][i] = terminal
        self._advance(1)

    def add_samples(self, samples):
        """Adds a batch: a (nested) dict of arrays with a leading batch axis."""
        count = len(next(iter(_flatten(samples)))[1])
        if count > self._max_size:
            # Only the newest max_size survive; place them where adding one
            # by one would have left them.
            skipped = count - self._max_size
            samples = _map_nested(lambda x: x[skipped:], samples)
            self._pointer = (self._pointer + skipped) % self._max_size
            self._total_samples += skipped
            count = self._max_size
        indices = (self._pointer + np.arange(count)) % self._max_size
        for path, array in self._flat_data:
            array[indices] = np.asarray(_get_path(samples, path)).reshape(
                (count, *array.shape[1:]))
        self._advance(count)

    def add_path(self, path):
        self.add_samples(path)

    def batch_shapes(self):
        """{field: shape} of one batch element (nested like the batches);
        the compiled updates' input signature is built from it."""
        return _map_nested(lambda spec: spec[0], self.fields)

    def batch_dtypes(self):
        """{field: dtype} of a batch, nested like ``batch_shapes``."""
        def dtypes(shapes, fields):
            if isinstance(shapes, dict):
                return {key: dtypes(value, (fields or {}).get(key))
                        for key, value in shapes.items()}
            return np.float32 if fields is None else fields[1]
        return dtypes(self.batch_shapes(), self.fields)

    def random_indices(self, batch_size):
        if self._size == 0:
            raise ValueError('Cannot sample from an empty replay pool.')
        return self._np_random.integers(0, self._size, batch_size)

    def batch_by_indices(self, indices):
        return _map_nested(lambda array: array[indices], self.data)

    def random_batch(self, batch_size):
        return self.batch_by_indices(self.random_indices(batch_size))

    def random_batches(self, num_batches, batch_size):
        """``num_batches`` independent minibatches stacked: (K, B, ...)."""
        return self.batch_by_indices(
            self.random_indices((num_batches, batch_size)))

    def last_n_batch(self, n):
        n = min(n, self._size)
        indices = (self._pointer - n + np.arange(n)) % self._max_size
        return self.batch_by_indices(indices)

    # Checkpoint state ------------------------------------------------------
    #
    # ``get_state`` holds counters and the sampling RNG, not the transitions:
    # those are saved incrementally with ``experience_since`` (each checkpoint
    # stores only what was added since the previous one) and replayed in order
    # with ``add_experience``.

    def get_state(self):
        return {'pointer': self._pointer, 'size': self._size,
                'total_samples': self._total_samples,
                'max_size': self._max_size,
                'np_random': self.get_np_random_state()}

    def set_state(self, state):
        if state['max_size'] != self._max_size:
            raise ValueError(
                f"Replay pool state is for max_size={state['max_size']}, "
                f"this pool has max_size={self._max_size}.")
        if (state['total_samples'], state['pointer'], state['size']) != (
                self._total_samples, self._pointer, self._size):
            raise ValueError(
                "Replay pool contents do not match the saved state "
                f"(saved: {state['total_samples']} samples, pointer "
                f"{state['pointer']}; restored: {self._total_samples} "
                f"samples, pointer {self._pointer}).")
        self.set_np_random_state(state['np_random'])

    def experience_since(self, total_samples_mark):
        """The transitions added after ``total_samples_mark`` (as counted by
        ``total_samples``), as a piece for ``add_experience``. If more were
        added than the pool holds, the piece holds what is still stored."""
        new = self._total_samples - int(total_samples_mark)
        if new < 0:
            raise ValueError(f"Mark {total_samples_mark} is ahead of the pool "
                             f"({self._total_samples} samples).")
        count = min(new, self._size)
        indices = (self._pointer - count + np.arange(count)) % self._max_size
        return {'start_total': int(total_samples_mark),
                'end_total': self._total_samples,
                'end_pointer': self._pointer,
                # What is stored (not what minibatches are made of).
                'samples': _map_nested(lambda array: array[indices],
                                       self.data)}

    def add_experience(self, piece):
        """Replays a piece from ``experience_since``. Pieces must come in
        order; the first may start anywhere (a full snapshot of a pool that
        had wrapped, or a checkpoint started from another trial's pool)."""
        start, end = piece['start_total'], piece['end_total']
        if self._total_samples == 0 and self._size == 0:
            self._total_samples = start
        if start != self._total_samples:
            raise ValueError(
                f"Replay pool piece starts at sample {start}, but the pool "
                f"holds {self._total_samples}; pieces are missing.")
        count = len(next(iter(_flatten(piece['samples'])))[1])
        indices = (piece['end_pointer'] - count
                   + np.arange(count)) % self._max_size
        for path, array in self._flat_data:
            array[indices] = _get_path(piece['samples'], path)
        self._pointer = piece['end_pointer']
        self._size = min(self._size + (end - start), self._max_size)
        self._total_samples = end

    # RNG state (part of checkpoints) -------------------------------------

    def get_np_random_state(self):
        return self._np_random.bit_generator.state

    def set_np_random_state(self, state):
        self._np_random.bit_generator.state = state


EPISODE_FIELDS = ('episodes', 'episode_steps')


class EpisodeReplayPool(SimpleReplayPool):
    """A SimpleReplayPool that also stores each transition's episode id and
    step within it (the samplers pass them), so that sampling can tell where
    episodes begin and end (sequence_replay_pool.py,
    n_step_replay_pool.py). Checkpoints store them with the transitions."""

    def __init__(self, observation_shapes, action_shape, max_size,
                 seed=None):
        super().__init__(observation_shapes, action_shape, max_size,
                         seed=seed)
        for field in EPISODE_FIELDS:
            self.fields[field] = ((), np.int64)
            # -1: no episode (a transition added without its id continues
            # nothing).
            self.data[field] = np.full(self._max_size, -1, np.int64)
        self._flat_data = list(_flatten(self.data))

    def add_sample(self, observation, action, reward, terminal,
                   next_observation, episode=None, step=None):
        i = self._pointer
        self.data['episodes'][i] = -1 if episode is None else episode
        self.data['episode_steps'][i] = 0 if step is None else step
        super().add_sample(observation, action, reward, terminal,
                           next_observation)

    def chronological_indices(self, positions):
        """Ring indices of the transitions at ``positions`` (0: the oldest
        stored)."""
        return (self._pointer - self._size + positions) % self._max_size
