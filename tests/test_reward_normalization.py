"""SimbaV2's reward scaling (algorithms/reward_normalization.py): rewards
divided by max(sqrt(var(G) + eps), max|G| / g_max), G the running
discounted return of each training episode."""

import numpy as np
import pytest

from softlearning.algorithms.reward_normalization import ReturnScale


def discounted_returns(rewards, episodes, steps, discount):
    """G of every transition, episode by episode, by a direct loop."""
    running, values = {}, []
    for reward, episode, step in zip(rewards, episodes, steps):
        running[episode] = (0.0 if step == 0
                            else discount * running[episode]) + reward
        values.append(running[episode])
    return np.array(values)


def interleaved_episodes(seed=0):
    """Two actors' episodes in the order a learner adds their batches:
    actor A's 30 steps, B's 30, A's next 30 (a new episode after step 40)."""
    rng = np.random.default_rng(seed)
    episodes = np.array([1] * 30 + [7] * 30 + [1] * 10 + [2] * 20)
    steps = np.array(list(range(30)) + list(range(30)) + list(range(30, 40))
                     + list(range(20)))
    return 3.0 * rng.normal(size=90) - 1.0, episodes, steps


def test_denominator_is_the_returns_spread_over_interleaved_episodes():
    rewards, episodes, steps = interleaved_episodes()
    scale = ReturnScale(0.99, g_max=1000.0)
    # In two calls, as two collect calls would add them.
    scale.observe(rewards[:45], episodes[:45], steps[:45])
    scale.observe(rewards[45:], episodes[45:], steps[45:])
    returns = discounted_returns(rewards, episodes, steps, 0.99)
    assert scale.denominator == pytest.approx(np.std(returns), rel=1e-4)
    assert scale.scale == pytest.approx(1 / np.std(returns), rel=1e-4)


def test_every_return_seen_stays_within_g_max():
    rewards, episodes, steps = interleaved_episodes()
    rewards = rewards - 10.0  # returns far from zero
    scale = ReturnScale(0.99, g_max=1.0)
    scale.observe(rewards, episodes, steps)
    returns = discounted_returns(rewards, episodes, steps, 0.99)
    assert np.abs(returns).max() / 1.0 > np.std(returns)  # the bound acts
    assert np.abs(returns * scale.scale).max() == pytest.approx(1.0)


def test_state_round_trip_continues_alike():
    rewards, episodes, steps = interleaved_episodes()
    scale = ReturnScale(0.99)
    scale.observe(rewards[:50], episodes[:50], steps[:50])
    restored = ReturnScale(0.99)
    restored.set_state(scale.get_state())
    for statistics in (scale, restored):
        statistics.observe(rewards[50:], episodes[50:], steps[50:])
    assert restored.get_state() == scale.get_state()


def test_g_max_must_be_positive():
    with pytest.raises(ValueError, match='g_max'):
        ReturnScale(0.99, g_max=0)


def test_sac_trains_on_the_scale_of_what_it_collected():
    """Through SAC's own loop: each collect call's transitions move the
    statistics, and the updates that follow scale rewards by them; the
    scale is checkpoint state, and diagnostics report it."""
    from algorithm_helpers import make_algorithm
    algorithm, _, _, pool, _, _ = make_algorithm(
        'SAC', reward_scale=2.0, reward_normalization={'g_max': 5.0},
        n_epochs=1)
    assert algorithm.reward_scale == 2.0  # nothing collected yet
    diagnostics = next(algorithm.train())
    rewards = pool.data['rewards'][:pool.size, 0]
    # One episode of 200 steps (max_path_length), from step 0.
    returns = discounted_returns(rewards, np.zeros(200), np.arange(200),
                                 0.99)
    expected = 2.0 / max(np.std(returns), np.abs(returns).max() / 5.0)
    assert algorithm.reward_scale == pytest.approx(expected, rel=1e-4)
    assert diagnostics['reward_scale'] == pytest.approx(expected, rel=1e-4)

    again, *_ = make_algorithm('SAC', reward_scale=2.0,
                               reward_normalization={'g_max': 5.0})
    again.set_state(algorithm.get_state())
    assert again.reward_scale == algorithm.reward_scale
