"""SAC, SQL, TD3, DDPG, TQC, CrossQ, REDQ, DroQ, n-step SAC, SimbaV2,
FastTD3 and FastSAC learn Pendulum-v1 (the README's quick start), and
recurrent SAC learns it without velocities where feedforward SAC cannot,
through the real CLI.

Each case (its command, budget, statistic and threshold) is defined in
learning_cases.py and calibrated over ten or more seeds in
calibration/learning.json (tests/calibrate_learning.py re-runs it); the
thresholds sit below every calibrated seed with a margin, which
test_learning_calibration.py checks. Each test trains two cases at once, one
command per CPU, on one seed (learning_cases.learning_seed).
"""

import numpy as np
import pytest

from conftest import read_progress, run_clis_at_once, trial_dirs
from learning_cases import (CASES, POMDP_MARGIN, case_score, column,
                            learning_seed)

pytestmark = [pytest.mark.slow, pytest.mark.learning]

def evaluation_returns(tmp_path, names, timeout=1500):
    """Trains the cases ``names`` of learning_cases.CASES at the same time,
    one CPU each, on the test seed; returns {name: the evaluation return
    after every epoch}.

    Each in the command's own process (``run_example_debug --mode local
    --run-eagerly false``: full-sized epochs, compiled updates, no Ray),
    which trains exactly as a Tune trial of the same seed (the calibration
    runs them as Tune trials: SAC's seed 1 gives the same eight returns
    either way) at two thirds of the CPU time: a Ray instance and a trial
    process fewer."""
    results = run_clis_at_once({
        name: ['run_example_debug', *CASES[name]['command'],
               '--mode', 'local', '--run-eagerly', 'false',
               '--n-epochs', str(CASES[name]['epochs']),
               '--seed', learning_seed(), '--local-dir', tmp_path / name,
               '--trial-cpus', '1']
        for name in names}, timeout=timeout,
        envs={name: CASES[name]['env'] for name in names})
    curves = {}
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stdout[-3000:],
                                        result.stderr[-3000:])
        (trial_dir,) = trial_dirs(tmp_path / name)
        progress = read_progress(trial_dir)
        assert progress['total_timestep'].iloc[-1] == (
            CASES[name]['epochs'] * 1000)
        curves[name] = progress[column(CASES[name])].tolist()
        assert np.isfinite(curves[name]).all(), name
    return curves


def scores_of(curves):
    """{name: the case's score} of evaluation_returns' curves."""
    return {name: case_score(CASES[name], curve)
            for name, curve in curves.items()}


def assert_cases_learn(tmp_path, *names):
    curves = evaluation_returns(tmp_path, names)
    scores = scores_of(curves)
    for name in names:
        assert scores[name] >= CASES[name]['threshold'], (
            name, learning_seed(), scores, curves)


def test_sac_and_sql_learn_pendulum(tmp_path):
    """With 64-64 networks (learning_cases.SMALL; SAC learns as fast as
    with the preset's 256-256, at a fraction of the cost)."""
    assert_cases_learn(tmp_path, 'SAC', 'SQL')


def test_td3_ddpg_and_bfloat16_sac_learn_pendulum(tmp_path):
    """With 64-64 networks, which learn Pendulum at about a fifth of the
    cost of the default 256-256; SAC's update in bfloat16 mixed precision
    (--precision bfloat16) learns as float32's."""
    assert_cases_learn(tmp_path, 'TD3', 'DDPG', 'SAC bfloat16')


def test_tqc_and_n_step_sac_learn_pendulum(tmp_path):
    """TQC with two critics (SBX's default; the preset's five cost about
    four times as much per update, the same code) and SAC with 3-step
    returns."""
    assert_cases_learn(tmp_path, 'TQC', 'SAC 3-step')


def test_crossq_and_simbav2_learn_pendulum(tmp_path):
    """CrossQ with 64-64 networks and SimbaV2 with one block of 64 in each
    network, both on minibatches of 64. (SAC with SimBa networks, --network
    simba, learned Pendulum on ten of ten calibrated seeds with one block
    of 32 per network, worst -210 after 6 epochs; its case gave its CI time
    to SimbaV2's, whose networks normalize their observations with the
    same layer.)"""
    assert_cases_learn(tmp_path, 'CrossQ', 'SimbaV2')


def test_redq_and_droq_learn_pendulum(tmp_path):
    """At 3 updates per environment step (learning_cases.HIGH_UTD), on
    minibatches of 64."""
    assert_cases_learn(tmp_path, 'REDQ', 'DroQ')


def test_fasttd3_and_fastsac_learn_pendulum(tmp_path):
    """Their presets' parts (categorical critics, observation
    normalization, 3-step returns, two updates per step, AdamW; FastTD3's
    per-episode exploration noise) on 64-64 networks, minibatches of
    64."""
    assert_cases_learn(tmp_path, 'FastTD3', 'FastSAC')


def test_sac_with_hindsight_relabeling_solves_fetch_reach(tmp_path):
    """FetchReach-v4's sparse reward (-1 until the gripper is at the goal)
    with the Fetch preset's hindsight relabeling: the success rate of the
    10 evaluation episodes (learning_cases: 'SAC+HER FetchReach')."""
    pytest.importorskip('gymnasium_robotics')
    assert_cases_learn(tmp_path, 'SAC+HER FetchReach')


def test_recurrent_sac_beats_feedforward_sac_without_velocities(tmp_path):
    """Pendulum-v1 observing cos/sin only (--pomdp positions): one
    observation does not tell the angular velocity, a history does.
    Recurrent SAC (an LSTM over the history) swings up and balances;
    feedforward SAC, same steps and seed, does worse by POMDP_MARGIN."""
    recurrent, feedforward = ('recurrent SAC (positions)',
                              'feedforward SAC (positions)')
    scores = scores_of(evaluation_returns(tmp_path, [recurrent, feedforward]))
    assert scores[recurrent] >= CASES[recurrent]['threshold'], scores
    assert scores[recurrent] - scores[feedforward] >= POMDP_MARGIN, scores
