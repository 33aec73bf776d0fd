"""SAC, SQL, TD3 and DDPG learn Pendulum-v1 (the README's quick start),
and recurrent SAC learns it without velocities where feedforward SAC cannot,
through the real CLI. One fixed seed each in CI; benchmarks/
pendulum_learning.py runs three (figures in the README)."""

import numpy as np
import pytest

from conftest import read_progress, run_cli, trial_dirs

SEEDS = (1, 2, 3)
# A uniformly random policy's Pendulum-v1 return is about -1200, its best of
# 100 episodes about -900 (benchmarks/pendulum_learning.py); a swung-up,
# balanced pendulum scores above -250.
SQL_THRESHOLD = -300
# DDPG (one Q-function, no smoothing, no delay) is less steady than TD3 on
# the same budget; calibrated with benchmarks/pendulum_learning.py.
DDPG_THRESHOLD = -300
# Recurrent against feedforward SAC on positions only (README: "Recurrent
# agents"): the budget and the margin, calibrated on three seeds.
POMDP_EPOCHS = 6
POMDP_RECURRENT_THRESHOLD = -400
POMDP_MARGIN = 300


def final_evaluation_returns(tmp_path, algorithm, *options, steps=10000):
    """The default Pendulum-v1 variant (10 epochs of 1,000 steps, unless
    ``options`` say otherwise) through the CLI; the last epoch's evaluation
    return of each trial."""
    result = run_cli(
        'run_example_local', 'examples.development', '--algorithm', algorithm,
        '--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1',
        '--local-dir', tmp_path, '--cpus', '2', '--trial-cpus', '1',
        '--verbose', '0', *options, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    finals = {}
    for trial_dir in trial_dirs(tmp_path):
        progress = read_progress(trial_dir)
        assert progress['total_timestep'].iloc[-1] == steps
        finals[trial_dir] = progress['evaluation/return-mean'].iloc[-1]
    return finals


@pytest.mark.slow
def test_sac_learns_pendulum_in_10k_steps(tmp_path):
    finals = final_evaluation_returns(
        tmp_path, 'SAC', '--config', '{}={}'.format(
            'run_params.seed', '{"grid_search": [1, 2, 3]}'))
    assert len(finals) == len(SEEDS)
    assert all(np.isfinite(v) and v >= -250 for v in finals.values()), finals


@pytest.mark.slow
def test_sql_learns_pendulum_in_10k_steps(tmp_path):
    # One seed, to keep CI short; three are in benchmarks/pendulum_learning.py.
    finals = final_evaluation_returns(tmp_path, 'SQL', '--seed', '1')
    (final,) = finals.values()
    assert np.isfinite(final) and final >= SQL_THRESHOLD, finals


@pytest.mark.slow
@pytest.mark.parametrize('algorithm, threshold', [('TD3', -250),
                                                  ('DDPG', DDPG_THRESHOLD)])
def test_deterministic_policy_baselines_learn_pendulum(tmp_path, algorithm,
                                                       threshold):
    finals = final_evaluation_returns(tmp_path, algorithm, '--seed', '1')
    (final,) = finals.values()
    assert np.isfinite(final) and final >= threshold, finals


@pytest.mark.slow
def test_recurrent_sac_beats_feedforward_sac_without_velocities(tmp_path):
    """Pendulum-v1 observing cos/sin only (--pomdp positions): one
    observation does not tell the angular velocity, a history does.
    Recurrent SAC (LSTM over the history) swings up and balances within
    POMDP_EPOCHS epochs; feedforward SAC, same steps, does not."""
    options = ('--seed', '1', '--pomdp', 'positions',
               '--n-epochs', str(POMDP_EPOCHS))
    steps = POMDP_EPOCHS * 1000
    (recurrent,) = final_evaluation_returns(
        tmp_path / 'recurrent', 'SAC', '--policy', 'recurrent', *options,
        steps=steps).values()
    (feedforward,) = final_evaluation_returns(
        tmp_path / 'feedforward', 'SAC', *options, steps=steps).values()
    assert recurrent >= POMDP_RECURRENT_THRESHOLD, (recurrent, feedforward)
    assert recurrent - feedforward >= POMDP_MARGIN, (recurrent, feedforward)
