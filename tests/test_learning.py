"""SAC and SQL learn: the README's quick start, through the real CLI."""

import numpy as np
import pytest

from conftest import read_progress, run_cli, trial_dirs

SEEDS = (1, 2, 3)
# A uniformly random policy's Pendulum-v1 return is about -1200, its best of
# 100 episodes about -900 (benchmarks/pendulum_learning.py); a swung-up,
# balanced pendulum scores above -250.
SQL_THRESHOLD = -300


def final_evaluation_returns(tmp_path, algorithm, *options):
    """The default Pendulum-v1 variant (10 epochs of 1,000 steps) through
    the CLI; the last epoch's evaluation return of each trial."""
    result = run_cli(
        'run_example_local', 'examples.development', '--algorithm', algorithm,
        '--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1',
        '--local-dir', tmp_path, '--cpus', '2', '--trial-cpus', '1',
        '--verbose', '0', *options, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    finals = {}
    for trial_dir in trial_dirs(tmp_path):
        progress = read_progress(trial_dir)
        assert progress['total_timestep'].iloc[-1] == 10000
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
