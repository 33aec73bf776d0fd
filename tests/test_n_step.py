"""n-step returns (replay_pools/n_step_replay_pool.py and the targets in
fused_updates.py): windows cut at a termination (no bootstrap), at a
truncation and at the newest transition (bootstrap), with the discount
applied per step."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, make_algorithm
from softlearning.replay_pools import NStepReplayPool, SimpleReplayPool

GAMMA = 0.9


def pool_with(episodes, n_step=3, max_size=100):
    """A pool holding ``episodes``: [(length, terminates)], added in order;
    transition i has reward i + 1, observation i and next observation
    100 + i."""
    pool = NStepReplayPool({'observations': (1,)}, (1,), max_size,
                           n_step=n_step, seed=0)
    i = 0
    for episode, (length, terminates) in enumerate(episodes):
        for step in range(length):
            pool.add_sample({'observations': [i]}, [0.0], i + 1.0,
                            terminates and step == length - 1,
                            {'observations': [100 + i]}, episode=episode,
                            step=step)
            i += 1
    return pool


def window(pool, position):
    batch = pool.n_step_batch(np.array([position]))
    return {key: (value['observations'][0, 0] if isinstance(value, dict)
                  else value[0]) for key, value in batch.items()}


def test_a_full_window_inside_an_episode():
    pool = pool_with([(6, True)])
    w = window(pool, 1)
    assert w['observations'] == 1 and w['next_observations'] == 103
    np.testing.assert_array_equal(w['rewards'], [2, 3, 4])
    assert w['n_steps'] == 3 and w['terminals'] == 0


def test_cut_at_a_termination_without_bootstrap():
    pool = pool_with([(4, True), (3, False)])
    w = window(pool, 2)  # steps 2, 3 of episode 0; 3 terminates
    np.testing.assert_array_equal(w['rewards'], [3, 4, 0])
    assert w['n_steps'] == 2 and w['terminals'] == 1
    assert w['next_observations'] == 103


def test_cut_at_a_truncation_with_bootstrap():
    pool = pool_with([(4, False), (3, False)])
    w = window(pool, 3)  # the truncated last step of episode 0
    np.testing.assert_array_equal(w['rewards'], [4, 0, 0])
    assert w['n_steps'] == 1 and w['terminals'] == 0
    assert w['next_observations'] == 103


def test_cut_at_the_newest_transition():
    pool = pool_with([(5, False)])
    w = window(pool, 3)
    np.testing.assert_array_equal(w['rewards'], [4, 5, 0])
    assert w['n_steps'] == 2 and w['terminals'] == 0


def test_windows_follow_the_ring_buffer_when_it_wraps():
    pool = pool_with([(12, False)], max_size=8)  # holds transitions 4..11
    w = window(pool, 0)
    assert w['observations'] == 4
    np.testing.assert_array_equal(w['rewards'], [5, 6, 7])


def test_one_step_pool_batches_match_the_simple_pool():
    pool = pool_with([(6, True)], n_step=1)
    w = window(pool, 5)
    np.testing.assert_array_equal(w['rewards'], [6])
    assert w['n_steps'] == 1 and w['terminals'] == 1
    assert pool.batch_shapes()['rewards'] == (1,)
    assert set(pool.batch_shapes()) == set(SimpleReplayPool(
        {'observations': (1,)}, (1,), 10).batch_shapes()) | {'n_steps'}


def test_bad_n_step():
    with pytest.raises(ValueError, match='n_step must be at least 1'):
        NStepReplayPool({'observations': (1,)}, (1,), 10, n_step=0)


@pytest.mark.parametrize('rewards, n_steps, terminal, expected', [
    ([1.0, 2.0, 3.0], 3, 0.0, 1 + GAMMA * 2 + GAMMA ** 2 * 3
     + GAMMA ** 3 * 10),
    ([1.0, 2.0, 0.0], 2, 1.0, 1 + GAMMA * 2),          # terminated
    ([1.0, 0.0, 0.0], 1, 0.0, 1 + GAMMA * 10),         # truncated
])
def test_targets_discount_each_step_and_bootstrap_by_discount_to_the_k(
        rewards, n_steps, terminal, expected):
    algorithm = make_algorithm('SAC', discount=GAMMA)[0]
    batch = as_tensors({'rewards': np.array([rewards], np.float32),
                        'n_steps': np.array([[n_steps]], np.float32),
                        'terminals': np.array([[terminal]], np.float32)})
    targets = algorithm._bellman_targets(batch, tf.constant([[10.0]]))
    np.testing.assert_allclose(targets.numpy(), [[expected]], rtol=1e-6)
