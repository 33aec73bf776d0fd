import numpy as np
import pytest

from softlearning.replay_pools import SimpleReplayPool

OBSERVATION_SHAPES = {'position': (2,), 'velocity': (3,)}


def transitions(start, count):
    """Transitions whose every field encodes its index, to trace them."""
    index = np.arange(start, start + count, dtype=np.float32)
    return {
        'observations': {'position': np.repeat(index[:, None], 2, 1),
                         'velocity': np.repeat(index[:, None], 3, 1)},
        'next_observations': {'position': np.repeat(index[:, None] + 1, 2, 1),
                              'velocity': np.repeat(index[:, None] + 1, 3, 1)},
        'actions': np.repeat(index[:, None], 1, 1),
        'rewards': index[:, None],
        'terminals': (index[:, None] % 2 == 0).astype(np.float32),
    }


def make_pool(max_size=10):
    return SimpleReplayPool(OBSERVATION_SHAPES, (1,), max_size=max_size, seed=0)


def test_add_samples_and_batches():
    pool = make_pool()
    pool.add_samples(transitions(0, 4))
    assert pool.size == 4 and len(pool) == 4 and pool.capacity == 10
    batch = pool.random_batch(32)
    assert batch['observations']['velocity'].shape == (32, 3)
    assert batch['rewards'].shape == (32, 1)
    assert set(batch['rewards'][:, 0]) <= {0, 1, 2, 3}
    # Fields of one transition stay together.
    np.testing.assert_array_equal(batch['observations']['position'][:, 0],
                                  batch['rewards'][:, 0])
    stacked = pool.random_batches(5, 8)
    assert stacked['next_observations']['position'].shape == (5, 8, 2)


def test_wrap_around_keeps_newest():
    pool = make_pool(max_size=10)
    pool.add_samples(transitions(0, 7))
    pool.add_samples(transitions(7, 6))   # wraps: 13 added, 10 kept
    assert pool.size == 10 and pool.total_samples == 13
    assert sorted(pool.data['rewards'][:, 0]) == list(range(3, 13))
    np.testing.assert_array_equal(pool.last_n_batch(3)['rewards'][:, 0],
                                  [10, 11, 12])


def test_add_more_than_capacity_at_once():
    pool = make_pool(max_size=10)
    pool.add_samples(transitions(0, 25))
    assert pool.size == 10 and pool.total_samples == 25
    np.testing.assert_array_equal(pool.last_n_batch(10)['rewards'][:, 0],
                                  np.arange(15, 25))


def test_add_sample_and_add_path_agree():
    one_by_one, by_path = make_pool(), make_pool()
    path = transitions(0, 12)
    for i in range(12):
        one_by_one.add_sample(
            {k: v[i] for k, v in path['observations'].items()},
            path['actions'][i], path['rewards'][i, 0], path['terminals'][i, 0],
            {k: v[i] for k, v in path['next_observations'].items()})
    by_path.add_path(path)
    for a, b in zip(one_by_one._flat_data, by_path._flat_data):
        np.testing.assert_array_equal(a[1], b[1])
    assert one_by_one._pointer == by_path._pointer == 2


def test_empty_pool_refuses_to_sample():
    with pytest.raises(ValueError, match='empty'):
        make_pool().random_batch(4)
