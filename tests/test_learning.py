"""SAC learns: the README's quick start, through the real CLI."""

import numpy as np
import pytest

from conftest import read_progress, run_cli, trial_dirs

SEEDS = (1, 2, 3)


@pytest.mark.slow
def test_sac_learns_pendulum_in_10k_steps(tmp_path):
    # The default Pendulum-v1 variant: 10 epochs of 1,000 steps.
    result = run_cli(
        'run_example_local', 'examples.development', '--algorithm', 'SAC',
        '--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1',
        '--local-dir', tmp_path, '--cpus', '2', '--trial-cpus', '1',
        '--verbose', '0',
        '--config', '{}={}'.format('run_params.seed',
                                   '{"grid_search": [1, 2, 3]}'),
        timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    dirs = trial_dirs(tmp_path)
    assert len(dirs) == len(SEEDS)
    finals = {}
    for trial_dir in dirs:
        progress = read_progress(trial_dir)
        assert progress['total_timestep'].iloc[-1] == 10000
        finals[trial_dir] = progress['evaluation/return-mean'].iloc[-1]
    assert all(np.isfinite(v) and v >= -250 for v in finals.values()), finals
