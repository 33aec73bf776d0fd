"""A fixed seed gives the same run on one machine: two CLI runs of the same
variant and seed, side by side, agree in every learning figure (returns,
losses, temperatures, Q values) bit for bit, with the in-process sampler
and with two remote sampler actors. The second run turns on TensorFlow's
op determinism (--deterministic-ops, meant for GPU trials): on a CPU it
changes no number. And a shorter run is the start of a
longer one (no schedule depends on --n-epochs), which lets a learning
test's calibration (tests/calibrate_learning.py) score a shorter budget
from its curves. Across machines they need not agree: see
docs/guide/checkpoints.md, "Reproducibility"."""

import numpy as np
import pytest

from conftest import read_progress, run_clis_at_once, trial_dirs
from learning_cases import PENDULUM, SMALL

pytestmark = pytest.mark.slow

# Figures that measure time or name a process, which differ between runs.
NOT_LEARNING = ('time', 'timestamp', 'timesteps_per_second', 'pid',
                'times/', 'learning_rates/', 'training_seconds')


# Epochs of 500 steps, the first of them the warm-up: training from epoch 2.
SHORT_EPOCHS = ['--epoch-length', '500', '--config',
                'algorithm_params.config.n_initial_exploration_steps=500',
                '--config', 'algorithm_params.config.eval_n_episodes=2']


def learning_columns(progress):
    return [column for column in progress.select_dtypes('number').columns
            if not column.startswith(NOT_LEARNING)]


@pytest.mark.parametrize('samplers', [
    [],
    ['--num-samplers', '2', '--sampler-cpus', '0.25'],
], ids=['in-process sampler', 'two sampler actors'])
def test_same_seed_gives_the_same_run_on_one_machine(tmp_path, samplers):
    runs = {name: ['run_example_local', *PENDULUM, '--algorithm', 'SAC',
                   *SMALL, *SHORT_EPOCHS, '--n-epochs', epochs, '--seed',
                   '7', *samplers,
                   '--local-dir', tmp_path / name, '--cpus', '1',
                   '--trial-cpus', '0.5', '--verbose', '0', *extra]
            for name, epochs, extra in (
                ('first', '2', []),
                ('second', '3', ['--deterministic-ops', 'true']))}
    results = run_clis_at_once(runs, timeout=900)
    progress = {}
    for name, result in results.items():
        assert result.returncode == 0, result.stderr[-3000:]
        (trial_dir,) = trial_dirs(tmp_path / name)
        progress[name] = read_progress(trial_dir)
    first, second = progress['first'], progress['second'].iloc[:2]
    columns = learning_columns(first)
    # Training happened (the warm-up is the first 500 steps), and the
    # comparison covers its figures.
    assert any('Q' in column for column in columns), columns
    assert len(first) == 2 and first['total_timestep'].iloc[-1] == 1000
    assert first['num_train_steps'].iloc[-1] > 0
    for column in columns:
        np.testing.assert_array_equal(first[column], second[column],
                                      err_msg=column)
