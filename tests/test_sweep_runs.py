"""Sweeps that run: a restored trial's learning rates (PBT's continuation),
then schedulers and search algorithms end to end through the command line
(grid, ASHA, PBT, Optuna)."""

import glob
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from checkpoint_helpers import make_runner, tiny_variant
from conftest import read_progress, run_cli, run_clis_at_once, trial_dirs

# Episodes of 50 steps where a sweep does not search them (an option such
# as --max-path-length wins over --config). Training episodes are 50 steps
# in every sweep.
EPISODES = ['--max-path-length', '50']
TINY_SWEEP = ['--n-epochs', '2', '--epoch-length', '100',
              '--cpus', '2', '--trial-cpus', '0.5',
              '--config', 'sampler_params.config.max_path_length=50',
              '--checkpoint-at-end', 'False',
              '--config', 'algorithm_params.config.n_initial_exploration_steps=50',
              '--config', 'algorithm_params.config.batch_size=32',
              '--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
              '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
              '--config', 'algorithm_params.config.eval_n_episodes=1']


def _params(trial_dir):
    with open(os.path.join(trial_dir, 'params.json')) as f:
        return json.load(f)


def _results(trial_dir):
    with open(os.path.join(trial_dir, 'result.json')) as f:
        return [json.loads(line) for line in f]


# Learning rates after a restore -------------------------------------------------

def test_restored_optimizer_state_keeps_the_configs_learning_rate(tmp_path):
    """A checkpoint brings the optimizers' state (step counts, moments) but
    not their learning rates: a trial that continues from another's
    checkpoint with a new learning rate (PBT) trains with the new one."""
    variant = tiny_variant(domain='Pendulum', task='v1', epochs=2,
                           max_path_length=50)
    donor = make_runner(variant)
    donor.train()
    donor.save_checkpoint(str(tmp_path))
    steps = {name: int(optimizer.iterations) for name, optimizer in
             _optimizers(donor).items()}
    assert all(steps.values())
    donor.stop()

    mutated = json.loads(json.dumps(variant))
    config = mutated['algorithm_params']['config']
    config['policy_lr'] = config['policy_lr'] * 1.2
    config['Q_lr'] = config['Q_lr'] * 0.8
    runner = make_runner(mutated)
    runner.load_checkpoint(str(tmp_path))
    optimizers = _optimizers(runner)
    assert {name: int(o.iterations) for name, o in optimizers.items()} == (
        steps)
    result = runner.train()
    rates = result['learning_rates']
    assert rates['policy_optimizer'] == pytest.approx(
        config['policy_lr'], rel=1e-6)
    assert rates['Q_optimizer'] == pytest.approx(config['Q_lr'], rel=1e-6)
    assert rates['alpha_optimizer'] == pytest.approx(config['alpha_lr'],
                                                     rel=1e-6)
    assert result['epoch'] == 2  # the counters continue
    runner.stop()


def _optimizers(runner):
    from softlearning.experiments.trial.trainable import optimizers
    return optimizers(runner.algorithm)


# End to end through the command line --------------------------------------------

SWEEPS = {
    # A 2-point grid x 2 seeds.
    # --verbose 2: Tune's status table too (the searched entries as its
    # columns).
    # One trial at a time here and in Optuna's sweep: Tune then reuses one
    # trial process (reset_config) instead of starting one per trial, each
    # importing TensorFlow (34.8 CPU-seconds against 18.6 for the grid).
    'grid': [*EPISODES, '--exp-name', 'grid', '--num-samples', '2',
             '--verbose', '2', '--max-concurrent-trials', '1',
             '--config', 'algorithm_params.config.tau={"grid_search": '
                         '[0.005, 0.02]}'],
    # One trial at a time, in the grid's order (25, then 200): run side by
    # side, the 200-step trial can reach the first rung before the 25-step
    # one has, and ASHA lets the first arrivals at a rung continue.
    'asha': ['--n-epochs', '4', '--num-samples', '1',
             '--max-concurrent-trials', '1',
             '--scheduler', 'asha', '--scheduler-config',
             '{"grace_period": 100, "reduction_factor": 2}',
             '--config', 'algorithm_params.config.max_path_length='
                         '{"grid_search": [25, 200]}',
             '--config', 'algorithm_params.config.alpha_lr={"loguniform": '
                         '[0.0001, 0.001]}'],
    'optuna': [*EPISODES, '--n-epochs', '1', '--num-samples', '2',
               '--search-algorithm', 'optuna', '--max-concurrent-trials', '1',
               '--config', 'algorithm_params.config.tau={"uniform": '
                           '[0.001, 0.1]}',
               '--config', 'algorithm_params.config.policy_lr={"loguniform": '
                           '[0.0001, 0.01]}'],
}


@pytest.fixture(scope='module')
def sweeps(tmp_path_factory):
    """The sweeps of SWEEPS, each in its own folder, run at the same time
    (most of a tiny sweep is starting Ray and TensorFlow, which overlaps).
    {name: (completed process, local dir)}."""
    local_dirs = {name: tmp_path_factory.mktemp(name) for name in SWEEPS}
    results = run_clis_at_once({
        name: ['run_example_local', 'examples.development', *TINY_SWEEP,
               *args, '--local-dir', local_dirs[name]]
        for name, args in SWEEPS.items()})
    return {name: (results[name], local_dirs[name]) for name in SWEEPS}


@pytest.mark.slow
def test_grid_sweep_summary_and_plot(sweeps, tmp_path):
    """4 trials whose params.json match the grid, Tune's table shows
    returns and steps, and summary / plot read them."""
    result, local_dir = sweeps['grid']
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Tune's table (the command prints its epoch lines too, which also say
    # 'eval return' and 'steps'): its header names the columns.
    headers = [line for line in result.stdout.splitlines()
               if 'Trial name' in line]
    assert headers, result.stdout[-3000:]
    for column in ('eval return', 'steps', 'tau'):
        assert column in headers[-1], (column, headers[-1])
    trials = trial_dirs(local_dir)
    assert len(trials) == 4
    grid = [_params(t)['algorithm_params']['config']['tau'] for t in trials]
    assert sorted(grid) == [0.005, 0.005, 0.02, 0.02]
    assert len({_params(t)['run_params']['seed'] for t in trials}) == 4

    (experiment,) = {os.path.dirname(t) for t in trials}
    csv = tmp_path / 'summary.csv'
    result = run_cli('summary', experiment, '--csv', csv)
    assert result.returncode == 0, result.stderr
    assert '4 trials in 2 configurations' in result.stdout
    summary = pd.read_csv(csv)
    # The same numbers straight from the progress.csv files.
    expected = {}
    for trial in trials:
        config = _params(trial)['algorithm_params']['config']
        returns = read_progress(trial)['evaluation/return-mean']
        expected.setdefault(config['tau'], []).append(
            (returns.iloc[-1], returns.max()))
    assert len(summary) == 2
    for _, row in summary.iterrows():
        values = np.array(expected[row['algorithm_params.config.tau']])
        assert row['seeds'] == 2 and row['status'] == '2 done'
        assert row['final_mean'] == pytest.approx(values[:, 0].mean())
        assert row['final_std'] == pytest.approx(values[:, 0].std())
        assert row['best_mean'] == pytest.approx(values[:, 1].mean())
        assert row['steps_min'] == row['steps_max'] == 200

    image = tmp_path / 'curves.png'
    result = run_cli('plot', experiment, '-o', image, '--size', '900x600')
    assert result.returncode == 0, result.stderr
    import matplotlib.image
    assert matplotlib.image.imread(str(image)).shape[:2] == (600, 900)
    from softlearning.analysis import load_trials, plot_learning_curves
    figure = plot_learning_curves(load_trials([experiment]))
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ['tau=0.005 (2 seeds)', 'tau=0.02 (2 seeds)']


@pytest.mark.timing
@pytest.mark.slow
def test_asha_stops_poor_trials_early_and_loguniform_stays_in_bounds(
        sweeps):
    """Evaluation episodes of 25 steps return far more than those of 200
    (Pendulum's rewards are negative), so ASHA stops the 200-step trial,
    which reaches its first rung after the 25-step one; the first trial,
    with nothing to compare against, runs to the end."""
    result, local_dir = sweeps['asha']
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    trials = trial_dirs(local_dir)
    assert len(trials) == 2
    for trial in trials:
        alpha_lr = _params(trial)['algorithm_params']['config']['alpha_lr']
        assert 1e-4 <= alpha_lr <= 1e-3
        rates = read_progress(trial)['learning_rates/alpha_optimizer']
        assert rates.iloc[-1] == pytest.approx(alpha_lr, rel=1e-6)
    steps = [read_progress(t)['total_timestep'].iloc[-1] for t in trials]
    assert min(steps) < 400 and max(steps) == 400
    lengths = [_params(t)['algorithm_params']['config']['max_path_length']
               for t in trials]
    # The 200-step trial comes after the 25-step one: stopped at the first
    # rung.
    assert [s for s, n in zip(steps, lengths) if n == 200] == [100]

    from softlearning.analysis import load_trials
    statuses = {os.path.basename(t.path): t.status
                for t in load_trials([str(local_dir)])}
    stopped = [t for t, s in zip(trials, steps) if s < 400]
    assert {statuses[os.path.basename(t)] for t in stopped} == {'stopped'}


@pytest.mark.slow
def test_pbt_exploit_continues_from_the_donors_checkpoint_with_the_mutated_learning_rate(  # noqa: E501
        tmp_path):
    """Two trials, one with 200-step evaluation episodes, whose (negative)
    returns are always the worse; synchronous PBT compares them after the
    first epoch, where the worse exploits the better, and trains the second
    with the mutated learning rate."""
    result = run_cli(
        'run_example_local', 'examples.development', *TINY_SWEEP,
        '--n-epochs', '2', '--trial-cpus', '1', '--local-dir', tmp_path,
        '--checkpoint-frequency', '1', '--scheduler', 'pbt',
        '--config', 'algorithm_params.config.max_path_length={"grid_search": '
                    '[25, 200]}',
        '--scheduler-config', json.dumps({
            'perturbation_interval': 100, 'quantile_fraction': 0.5,
            'synch': True,
            'resample_probability': 0, 'hyperparam_mutations': {
                'algorithm_params.config.policy_lr': {
                    'loguniform': [1e-6, 1]}}}))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    trials = trial_dirs(tmp_path)
    assert len(trials) == 2
    # Every epoch trains with its trial's current learning rate, including
    # those after an exploit, which restored another trial's optimizers.
    for trial in trials:
        for row in _results(trial):
            assert row['learning_rates']['policy_optimizer'] == pytest.approx(
                _policy_lr(row['config']), rel=1e-6)
    # PBT's log: one line per exploit, [target, donor, target iteration,
    # donor iteration, donor config, new config].
    experiment = os.path.dirname(trials[0])
    logged = []
    for log in glob.glob(os.path.join(experiment, 'pbt_policy_*.txt')):
        with open(log) as f:
            for line in f:
                *_, donor_config, new_config = json.loads(line)
                # The mutated value: the donor's x 0.8 or x 1.2.
                assert any(math.isclose(
                    _policy_lr(new_config), _policy_lr(donor_config) * factor)
                    for factor in (0.8, 1.2))
                logged.append(_policy_lr(new_config))
    assert logged
    # In progress.csv (Tune may lose result.json lines of a paused trial),
    # a trial's learning rate changes only where it exploited another.
    # The epoch after it trains with the mutated rate, and continues the
    # donor's counters (a fresh start would count from epoch 1 again).
    exploits = 0
    for trial in trials:
        progress = read_progress(trial)
        rates = progress['learning_rates/policy_optimizer'].to_numpy()
        for i in np.flatnonzero(~np.isclose(rates[1:], rates[:-1])) + 1:
            row = progress.iloc[i]
            assert any(math.isclose(row['learning_rates/policy_optimizer'],
                                    lr, rel_tol=1e-6) for lr in logged)
            # (Tune's training_iteration may count from the donor's last
            # result rather than its checkpoint: the epoch is what ran.)
            assert row['epoch'] >= 2
            assert row['total_timestep'] == 100 * row['epoch']
            donor_rates = [
                read_progress(other).query(f'epoch == {row.epoch - 1}')[
                    'learning_rates/policy_optimizer']
                for other in trials if other != trial]
            assert any(math.isclose(row['learning_rates/policy_optimizer'],
                                    lr * factor, rel_tol=1e-5)
                       for rates_ in donor_rates for lr in rates_
                       for factor in (0.8, 1.2))
            exploits += 1
    assert exploits >= 1


def _policy_lr(config):
    return config['algorithm_params']['config']['policy_lr']


@pytest.mark.slow
def test_optuna_search(sweeps):
    result, local_dir = sweeps['optuna']
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    trials = trial_dirs(local_dir)
    assert len(trials) == 2
    for trial in trials:
        params = _params(trial)
        assert 0.001 <= params['algorithm_params']['config']['tau'] <= 0.1
        assert 1e-4 <= params['algorithm_params']['config']['policy_lr'] <= (
            0.01)
        assert isinstance(params['run_params']['seed'], int)
        assert len(read_progress(trial)) == 1
