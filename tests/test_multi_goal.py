"""The multi-goal example: the environment, and Soft Q-Learning's
multimodal policy on it (through the CLI, with plot-policy's picture)."""

import json
import os

import numpy as np
import pytest

from conftest import assert_one_line_error, read_progress, run_cli, trial_dirs
from learning_cases import (CASES, case_score, goals_reached, learning_seed,
                            policy_of_checkpoint, reaches_several_goals)
from examples.multi_goal.multi_goal_env import MultiGoalEnv
from softlearning.environments import get_environment

DOMAIN = 'examples.multi_goal.multi_goal_env:MultiGoal'


def test_reward_is_action_and_distance_cost_plus_goal_bonus():
    env = MultiGoalEnv()
    env.reset(seed=0)
    env.state = np.array([2.0, 0.5], np.float32)
    _, reward, terminated, _, _ = env.step(np.array([1.0, -0.5]))
    # position (3, 0): nearest goal (5, 0) at distance 2.
    assert reward == pytest.approx(-(30 * 1.25 + 4.0))
    assert not terminated
    env.state = np.array([3.5, 0.0], np.float32)
    _, reward, terminated, _, info = env.step(np.array([1.5, 0.2]))
    # The action is clipped to (1, 0.2): position (4.5, 0.2), within 1 of
    # the goal (5, 0).
    assert terminated and info['goal'] == 0
    assert reward == pytest.approx(-(30 * 1.04 + 0.29) + 10, rel=1e-5)
    env.state = np.array([6.8, 0.0], np.float32)
    position, *_ = env.step(np.array([1.0, 0.0]))
    np.testing.assert_allclose(position, [7.0, 0.0])  # the wall


def test_adapter_builds_it_saves_its_state_and_renders():
    env = get_environment('gym', DOMAIN, 'v0',
                          {'render_mode': 'rgb_array', 'width': 40,
                           'height': 30})
    observation = env.reset(seed=3)
    assert env.observation_shapes == {'observations': (2,)}
    assert env.action_shape == (2,)
    assert np.linalg.norm(observation['observations']) < 0.5
    env.step(np.array([0.5, 0.5], np.float32))
    state = env.get_episode_state()
    after = env.step(np.array([0.2, -0.1], np.float32))
    env.set_episode_state(state)
    again = env.step(np.array([0.2, -0.1], np.float32))
    np.testing.assert_array_equal(after[0]['observations'],
                                  again[0]['observations'])
    frame = env.render()
    assert frame.shape == (30, 40, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) == 3


def test_random_and_unimodal_policies_do_not_reach_several_goals():
    """The test below can fail: a uniformly random policy reaches a goal in
    30 steps in only about a third of the episodes, and a policy heading one
    way reaches one goal."""
    from softlearning.policies import NumpyUniformPolicy
    uniform = NumpyUniformPolicy({'observations': (2,)}, (2,), seed=0)
    counts = goals_reached(uniform)
    assert counts.sum() < 50 and not reaches_several_goals(counts), counts

    class HeadEast:
        rng = np.random.default_rng(0)

        def actions_np(self, observations):
            return np.clip([[0.8, 0.0]] + 0.2 * self.rng.standard_normal(
                (1, 2)), -1, 1)
    counts = goals_reached(HeadEast())
    assert counts[0] > 50 and not reaches_several_goals(counts), counts


@pytest.mark.slow
@pytest.mark.learning
def test_sql_learns_a_multimodal_policy_and_plots_it(tmp_path):
    """The case 'SQL multi-goal' of learning_cases.py (calibrated over ten
    seeds in calibration/learning.json), on the test seed."""
    spec = CASES['SQL multi-goal']
    seed = learning_seed()
    # In-process, as the learning tests train (test_learning.py's
    # evaluation_returns says why).
    result = run_cli('run_example_debug', *spec['command'], '--mode', 'local',
                     '--run-eagerly', 'false', '--seed', seed,
                     '--n-epochs', spec['epochs'], '--local-dir', tmp_path,
                     '--trial-cpus', '1', timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (trial_dir,) = trial_dirs(tmp_path)
    returns = read_progress(trial_dir)['evaluation/return-mean'].tolist()
    assert case_score(spec, returns) >= spec['threshold'], (seed, returns)
    checkpoint = sorted(d for d in os.listdir(trial_dir)
                        if d.startswith('checkpoint_'))[-1]
    checkpoint = os.path.join(trial_dir, checkpoint)

    png = tmp_path / 'multi_goal.png'
    result = run_cli('plot-policy', checkpoint, '--states',
                     json.dumps([[0, 0], [-2.5, -2.5], [2.5, 2.5]]),
                     '--num-samples', 100, '--output', png, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(png, 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'

    # Actions sampled from the start state (100 stochastic episodes) reach
    # at least three of the four goals, each in 10% of the episodes.
    counts = goals_reached(policy_of_checkpoint(checkpoint))
    assert reaches_several_goals(counts), (seed, counts)


def test_plot_policy_missing_checkpoint(cli, tmp_path):
    missing = str(tmp_path / 'nope')
    result = cli('plot-policy', missing, timeout=120)
    assert_one_line_error(result, 'does not exist')
    assert missing in result.stderr
