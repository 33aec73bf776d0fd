"""softlearning summary and report on goal-conditioned tasks' trial
folders (an evaluation/success-rate column, as softlearning's trials and
the peer libraries' runs write it): the final success rate beside the
return, and nothing new for tasks without it."""

import json
import os

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import run_cli
from softlearning.analysis import load_trials, summarize
from softlearning.analysis.benchmark_report import SUCCESS_FILE, write_report
from softlearning.analysis.reference_scores import REFERENCE_SCORES

RETURN = 'evaluation/return-mean'
SUCCESS = 'evaluation/success-rate'
FETCH = 'gym/FetchReach/v4'
PENDULUM = 'gym/Pendulum/v1'
# FetchReach's sparse reward: -1 a step until the goal, 50 steps.
TABLE = {**REFERENCE_SCORES,
         FETCH: {'random': -49.0, 'reference': -2.0, 'source': 'test'}}
LENGTH, INTERVAL = 1000, 250


def write_trial(folder, variant, returns, successes=None, epoch_length=100):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'params.json'), 'w') as f:
        json.dump(variant, f)
    n = len(returns)
    columns = {'epoch': np.arange(1, n + 1),
               'total_timestep': epoch_length * np.arange(1, n + 1),
               RETURN: returns}
    if successes is not None:
        columns[SUCCESS] = successes
    columns['done'] = [False] * (n - 1) + [True]
    pd.DataFrame(columns).to_csv(os.path.join(folder, 'progress.csv'),
                                 index=False)


# softlearning summary ------------------------------------------------------

def sweep_variant(lr, seed):
    return {'algorithm_params': {'class_name': 'SAC', 'config': {
                'policy_lr': lr, 'n_epochs': 3}},
            'environment_params': {'training': {
                'universe': 'gym', 'domain': 'FetchReach', 'task': 'v4'}},
            'run_params': {'seed': seed}}


@pytest.fixture
def goal_sweep(tmp_path):
    """2 learning rates x 2 seeds on FetchReach; {lr: final success
    rates}."""
    experiment = tmp_path / 'fetch'
    rng = np.random.default_rng(1)
    finals = {}
    for i, (lr, seed) in enumerate([(1e-3, 1), (1e-3, 2), (3e-4, 1),
                                    (3e-4, 2)]):
        successes = list(rng.integers(0, 11, 3) / 10)
        write_trial(experiment / f'trial_{i}', sweep_variant(lr, seed),
                    list(rng.normal(-30, 5, 3)), successes)
        finals.setdefault(lr, []).append(successes[-1])
    return experiment, finals


def test_summary_gives_the_final_success_rate_over_seeds(goal_sweep,
                                                         tmp_path):
    experiment, finals = goal_sweep
    csv = tmp_path / 'summary.csv'
    result = run_cli('summary', experiment, '--csv', csv, '--sort',
                     'success')
    assert result.returncode == 0, result.stderr
    assert f'success: {SUCCESS} of the last epoch' in result.stdout
    table = pd.read_csv(csv)
    assert list(table.columns)[-3:] == ['success_mean', 'success_std',
                                        'status']
    for _, row in table.iterrows():
        rates = finals[row['algorithm_params.config.policy_lr']]
        assert row['success_mean'] == pytest.approx(np.mean(rates))
        assert row['success_std'] == pytest.approx(np.std(rates))
    assert list(table['success_mean']) == sorted(table['success_mean'],
                                                 reverse=True)
    header = next(line for line in result.stdout.splitlines()
                  if 'seeds' in line and 'status' in line)
    assert 'success' in header.split()


def test_summary_of_tasks_without_goals_is_unchanged(tmp_path):
    for seed in (1, 2):
        write_trial(tmp_path / 'pendulum' / f'trial_{seed}',
                    sweep_variant(1e-3, seed), [-900.0, -300.0])
    summary = summarize(load_trials([str(tmp_path / 'pendulum')]))
    assert list(summary.columns) == [
        'seeds', 'final_mean', 'final_std', 'best_mean', 'best_std',
        'steps_min', 'steps_max', 'status']


def test_summary_of_the_success_rate_itself_adds_no_column(goal_sweep):
    experiment, finals = goal_sweep
    summary = summarize(load_trials([str(experiment)]), SUCCESS)
    assert 'success_mean' not in summary
    assert sorted(summary['final_mean']) == sorted(
        np.mean(rates) for rates in finals.values())


# softlearning report -------------------------------------------------------

def benchmark_variant(library, task, seed):
    return {'benchmark': {
                'library': library, 'algorithm': 'SAC', 'environment': task,
                'steps': LENGTH, 'suite': 'test',
                'evaluation': {'episodes': 10, 'first_seed': 1000,
                               'interval': INTERVAL, 'deterministic': True}},
            'run_params': {'seed': seed}}


@pytest.fixture
def goal_suite(tmp_path):
    """softlearning SAC and a peer (sbx SAC, its run folders written with
    the same columns) on FetchReach (success rates) and Pendulum (none), 4
    seeds each; {agent: FetchReach's success rates, one row per run}."""
    root = tmp_path / 'suite'
    rng = np.random.default_rng(0)
    rates = {}
    for library in ('softlearning', 'sbx'):
        for seed in range(1, 5):
            successes = np.round(rng.uniform(0, 1, LENGTH // INTERVAL), 1)
            write_trial(root / library / 'fetch' / f'seed_{seed}',
                        benchmark_variant(library, FETCH, seed),
                        -49.0 + 47.0 * successes, successes,
                        epoch_length=INTERVAL)
            write_trial(root / library / 'pendulum' / f'seed_{seed}',
                        benchmark_variant(library, PENDULUM, seed),
                        np.linspace(-1200, -200 - seed, LENGTH // INTERVAL),
                        epoch_length=INTERVAL)
            rates.setdefault(f'{library} SAC', []).append(successes)
    return root, {agent: np.array(runs) for agent, runs in rates.items()}


def test_report_gives_the_iqm_of_the_final_success_rates(goal_suite,
                                                         tmp_path):
    root, rates = goal_suite
    output = tmp_path / 'out'
    report = write_report(load_trials([str(root)]), str(output), reps=300,
                          table=TABLE)
    table = pd.read_csv(output / SUCCESS_FILE)
    # FetchReach only: Pendulum reports no success rate.
    assert set(table.task) == {FETCH}
    header = None
    for line in report.markdown.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if cells[0] == 'task' and header is None and 'random' not in cells:
            header = cells
        if cells[0] == FETCH and '[' in line:
            success_row = cells
    section = report.markdown.split('## Final success rate per task')[1]
    assert PENDULUM not in section.split('##')[0]
    for agent, runs in rates.items():
        finals = runs[:, -1]
        row = table[table.agent == agent].iloc[0]
        expected = scipy.stats.trim_mean(finals, 0.25)
        assert row.iqm == pytest.approx(expected)
        assert row.low <= row.iqm <= row.high
        assert row.runs == 4
        assert success_row[header.index(agent)] == (
            f'{row.iqm:.3f} [{row.low:.3f}, {row.high:.3f}] (4 runs)')
    # Beside the returns: right after their table.
    assert report.markdown.index('## Final returns per task') < (
        report.markdown.index('## Final success rate per task')) < (
        report.markdown.index('## Sample efficiency'))


def test_report_at_fewer_steps_takes_the_success_of_that_evaluation(
        goal_suite, tmp_path):
    root, rates = goal_suite
    write_report(load_trials([str(root)]), str(tmp_path / 'out'), steps=600,
                 reps=100, table=TABLE)
    table = pd.read_csv(tmp_path / 'out' / SUCCESS_FILE)
    for agent, runs in rates.items():
        # Evaluations at 250, 500, 750, 1000: at or before 600 is the 2nd.
        assert table[table.agent == agent].iloc[0].iqm == pytest.approx(
            scipy.stats.trim_mean(runs[:, 1], 0.25))


def test_report_of_tasks_without_goals_has_no_success_rates(goal_suite,
                                                           tmp_path):
    root, _ = goal_suite
    trials = [trial for trial in load_trials([str(root)])
              if trial.params['benchmark.environment'] == PENDULUM]
    output = tmp_path / 'out'
    report = write_report(trials, str(output), reps=100, table=TABLE)
    assert 'success' not in report.markdown.lower()
    assert not (output / SUCCESS_FILE).exists()
    assert sorted(os.listdir(output)) == [
        'aggregate_metrics.png', 'aggregates.csv', 'improvement.csv',
        'performance_profiles.png', 'report.md', 'sample_efficiency.png']
