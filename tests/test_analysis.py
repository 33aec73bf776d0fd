"""softlearning summary and plot on trial folders written here: grouping by
the varying entries, numbers against a direct computation, figures."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from conftest import assert_one_line_error, run_cli
from softlearning.analysis import (group_trials, load_trials,
                                   plot_learning_curves, summarize)
from softlearning.analysis.plot import mean_and_std

METRIC = 'evaluation/return-mean'


def _variant(policy_lr, tau, seed, algorithm='SAC'):
    return {
        'algorithm_params': {'class_name': algorithm, 'config': {
            'policy_lr': policy_lr, 'tau': tau, 'n_epochs': 3}},
        'environment_params': {'training': {
            'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1'}},
        'run_params': {'seed': seed, 'tf_num_threads': 1, 'restore': None},
    }


def write_trial(folder, variant, returns, done=True, epoch_length=100):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'params.json'), 'w') as f:
        json.dump(variant, f)
    n = len(returns)
    pd.DataFrame({
        'epoch': np.arange(1, n + 1),
        'total_timestep': epoch_length * np.arange(1, n + 1),
        METRIC: returns,
        'done': [False] * (n - 1) + [done] if n else [],
    }).to_csv(os.path.join(folder, 'progress.csv'), index=False)


@pytest.fixture
def sweep(tmp_path):
    """A 2 (policy_lr) x 2 seeds sweep; one trial stopped after 2 epochs."""
    experiment = tmp_path / 'exp-a'
    rng = np.random.default_rng(0)
    trials = {}
    for i, (lr, seed) in enumerate([(1e-3, 1), (1e-3, 2), (3e-4, 1),
                                    (3e-4, 2)]):
        returns = list(rng.normal(-500, 100, 3 if i != 3 else 2))
        folder = experiment / f'trial_{i}'
        write_trial(folder, _variant(lr, 0.005, seed), returns,
                    done=(i != 3))
        trials[str(folder)] = (lr, returns)
    return experiment, trials


def test_groups_pool_seeds_and_name_the_varying_entry(sweep):
    experiment, _ = sweep
    groups, keys = group_trials(load_trials([str(experiment)]))
    assert keys == ['algorithm_params.config.policy_lr']
    assert [g.values for g in groups] == [
        {'algorithm_params.config.policy_lr': 3e-4},
        {'algorithm_params.config.policy_lr': 1e-3}]
    assert [len(g.trials) for g in groups] == [2, 2]


def test_summary_numbers_match_a_direct_computation(sweep, tmp_path):
    experiment, trials = sweep
    csv = tmp_path / 'summary.csv'
    result = run_cli('summary', experiment, '--csv', csv)
    assert result.returncode == 0, result.stderr
    assert 'policy_lr' in result.stdout and '2 done' in result.stdout
    table = pd.read_csv(csv)
    assert len(table) == 2
    for _, row in table.iterrows():
        lr = row['algorithm_params.config.policy_lr']
        returns = [r for (trial_lr, r) in trials.values() if trial_lr == lr]
        finals = [r[-1] for r in returns]
        bests = [max(r) for r in returns]
        assert row['seeds'] == 2
        assert row['final_mean'] == pytest.approx(np.mean(finals))
        assert row['final_std'] == pytest.approx(np.std(finals))
        assert row['best_mean'] == pytest.approx(np.mean(bests))
        assert row['best_std'] == pytest.approx(np.std(bests))
        assert row['steps_max'] == 300
    stopped = table[table['algorithm_params.config.policy_lr'] == 3e-4]
    assert stopped['steps_min'].iloc[0] == 200
    # Without an experiment state file, an unfinished trial is 'unfinished'.
    assert stopped['status'].iloc[0] == '1 done, 1 unfinished'


def test_summary_sorts(sweep):
    experiment, _ = sweep
    trials = load_trials([str(experiment)])
    from softlearning.analysis import sort_summary
    summary = summarize(trials)
    by_final = sort_summary(summary, 'final')
    assert list(by_final['final_mean']) == sorted(summary['final_mean'],
                                                  reverse=True)
    by_lr = sort_summary(summary, 'policy_lr')
    assert list(by_lr['algorithm_params.config.policy_lr']) == [3e-4, 1e-3]
    with pytest.raises(ValueError, match='choose from final, best'):
        sort_summary(summary, 'nope')


def test_mean_and_std_over_curves_of_different_lengths():
    grid, mean, std = mean_and_std([
        (np.array([100., 200., 300.]), np.array([1., 2., 3.])),
        (np.array([100., 200.]), np.array([3., 4.]))])
    np.testing.assert_array_equal(grid, [100, 200, 300])
    np.testing.assert_allclose(mean, [2, 3, 3])
    np.testing.assert_allclose(std, [1, 1, 0])


def test_plot_one_line_per_group_across_experiments(sweep, tmp_path):
    experiment, _ = sweep
    other = tmp_path / 'exp-b'
    for seed in (1, 2):
        write_trial(other / f'trial_{seed}', _variant(1e-3, 0.005, seed,
                                                      algorithm='SQL'),
                    [-300.0, -200.0])
    # A trial still running, before its first epoch: header only.
    write_trial(other / 'trial_3', _variant(1e-3, 0.005, 3,
                                            algorithm='SQL'), [])
    trials = load_trials([str(experiment), str(other)])
    figure = plot_learning_curves(trials, size=(640, 480))
    (axes,) = figure.axes
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert labels == [
        'class_name=SAC, policy_lr=0.0003 (2 seeds)',
        'class_name=SAC, policy_lr=0.001 (2 seeds)',
        'class_name=SQL, policy_lr=0.001 (3 seeds)']
    assert len(axes.get_lines()) == 3
    assert axes.get_xlabel() == 'environment steps'
    sql_line = axes.get_lines()[2]
    np.testing.assert_allclose(sql_line.get_ydata(), [-300, -200])
    assert axes.get_title() == 'gym-Pendulum-v1: evaluation/return-mean'


def test_several_environments_get_a_panel_each(tmp_path):
    """Curves of different tasks share no axis: one panel per environment,
    its title the environment, a group in the same colour in each."""
    for domain, scale in (('Pendulum', 1), ('HalfCheetah', 10)):
        for lr in (1e-3, 3e-4):
            variant = _variant(lr, 0.005, 1)
            variant['environment_params']['training']['domain'] = domain
            write_trial(tmp_path / 'exp' / f'{domain}-{lr}', variant,
                        [-700.0 * scale, -600.0 * scale])
    figure = plot_learning_curves(load_trials([str(tmp_path / 'exp')]),
                                  size=(400, 300))
    assert [axes.get_title() for axes in figure.axes] == [
        'gym-HalfCheetah-v1', 'gym-Pendulum-v1']
    assert figure.get_size_inches() * figure.dpi == pytest.approx(
        [800, 300])
    colours = []
    for axes in figure.axes:
        lines = axes.get_lines()
        assert len(lines) == 2 and axes.get_legend() is not None
        colours.append([line.get_color() for line in lines])
    assert colours[0] == colours[1] and colours[0][0] != colours[0][1]
    assert figure.axes[0].get_ylim()[0] < -6000 < figure.axes[1].get_ylim()[0]


def test_a_single_point_is_drawn_as_a_marker(tmp_path):
    """A trial stopped at its first report (ASHA's first rung) has one
    point: a line through it would draw nothing."""
    write_trial(tmp_path / 'exp' / 'stopped', _variant(1e-3, 0.005, 1),
                [-700.0], done=False)
    write_trial(tmp_path / 'exp' / 'longer', _variant(3e-4, 0.005, 1),
                [-700.0, -600.0])
    figure = plot_learning_curves(load_trials([str(tmp_path / 'exp')]))
    markers = {tuple(line.get_xdata()): line.get_marker()
               for line in figure.axes[0].get_lines()}
    assert markers[(100,)] == 'o'
    assert markers[(100, 200)] in ('None', None, '')


def _state_file(experiment, started, statuses):
    """A Tune experiment state file of a run started at ``started``."""
    trial_data = [[json.dumps({'relative_logdir': name, 'status': status}),
                   '{}'] for name, status in statuses.items()]
    path = experiment / f'experiment_state-{started}.json'
    path.write_text(json.dumps({'trial_data': trial_data}))
    return path


def test_status_comes_from_the_latest_run_of_a_resumed_experiment(
        tmp_path):
    """A resumed suite has a state file per run; Tune rewrites them all at
    the end of a run, so the older one may be the newer file: the status is
    the latest run's (here: the trial errored on resume)."""
    experiment = tmp_path / 'suite'
    write_trial(experiment / 'trial', _variant(1e-3, 0.005, 1), [-700.0],
                done=False)
    latest = _state_file(experiment, '2026-11-24_06-27-38',
                         {'trial': 'ERROR'})
    older = _state_file(experiment, '2026-11-24_06-27-06',
                        {'trial': 'RUNNING'})
    os.utime(latest, (1000, 1000))
    os.utime(older, (2000, 2000))
    (trial,) = load_trials([str(experiment)])
    assert trial.status == 'error'


def test_summary_of_one_seed_prints_no_spread(tmp_path):
    write_trial(tmp_path / 'exp' / 'only', _variant(1e-3, 0.005, 1),
                [-700.0, -650.0])
    result = run_cli('summary', tmp_path / 'exp')
    assert result.returncode == 0, result.stderr
    assert '-650.0' in result.stdout
    assert '±' not in result.stdout.splitlines()[-1], result.stdout


def test_plot_command_writes_an_image_of_the_requested_size(sweep, tmp_path):
    experiment, _ = sweep
    output = tmp_path / 'curves.png'
    result = run_cli('plot', experiment, '-o', output, '--size', '640x400',
                     '-x', 'epoch')
    assert result.returncode == 0, result.stderr
    import matplotlib.image
    assert matplotlib.image.imread(str(output)).shape[:2] == (400, 640)


@pytest.mark.parametrize('command', ['summary', 'plot'])
def test_a_folder_without_trials_is_one_clear_error(tmp_path, command):
    extra = ['-o', str(tmp_path / 'x.png')] if command == 'plot' else []
    result = run_cli(command, tmp_path, *extra)
    assert_one_line_error(result, f'No trials under {tmp_path}')


def test_an_unknown_column_is_one_clear_error(sweep, tmp_path):
    experiment, _ = sweep
    result = run_cli('plot', experiment, '-o', tmp_path / 'x.png', '-y',
                     'evaluation/return-meen')
    assert_one_line_error(
        result, "No trial has a 'evaluation/return-meen' column")
    assert 'evaluation/return-mean' in result.stderr
