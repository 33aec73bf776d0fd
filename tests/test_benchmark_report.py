"""softlearning report end to end, on benchmark trial folders written
here: the command's report, tables, figures and CSV files, at fewer steps,
with tasks of different lengths or unequal runs, and its one-line
errors."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from conftest import TENSORFLOW_IMPORTED, assert_one_line_error, run_cli
from softlearning.analysis.reference_scores import REFERENCE_SCORES


LENGTH = 1000
INTERVAL = 250
TASKS = ('gym/Hopper/v5', 'gym/Pendulum/v1')
AGENTS = (('softlearning', 'SAC'), ('sbx', 'SAC'))
SEEDS = (1, 2, 3)


def _benchmark_variant(library, algorithm, environment, seed,
                       length=LENGTH):
    return {
        'benchmark': {
            'library': library, 'algorithm': algorithm,
            'environment': environment, 'steps': length, 'suite': 'test',
            'evaluation': {'episodes': 10, 'first_seed': 1000,
                           'interval': INTERVAL, 'deterministic': True}},
        'run_params': {'seed': seed},
    }


def _write_trial(folder, variant, returns):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'params.json'), 'w') as f:
        json.dump(variant, f)
    pd.DataFrame({
        'total_timestep': INTERVAL * np.arange(1, len(returns) + 1),
        'evaluation/return-mean': returns,
    }).to_csv(os.path.join(folder, 'progress.csv'), index=False)


@pytest.fixture
def suite(tmp_path):
    """2 agents x 2 tasks x 3 seeds, finished, and one more run cut short;
    {(agent, task): the finished runs' folders}."""
    root = tmp_path / 'suite'
    rng = np.random.default_rng(0)
    folders = {}
    for library, algorithm in AGENTS:
        for task in TASKS:
            entry = REFERENCE_SCORES[task]
            for seed in SEEDS:
                # Returns from random towards the reference and beyond.
                progress = np.linspace(0.1, rng.uniform(0.3, 1.2),
                                       LENGTH // INTERVAL)
                returns = entry['random'] + progress * (
                    entry['reference'] - entry['random'])
                folder = (root / library / task.replace('/', '-') /
                          f'seed_{seed}')
                _write_trial(folder, _benchmark_variant(
                    library, algorithm, task, seed), returns)
                folders.setdefault((f'{library} {algorithm}', task),
                                   []).append(folder)
    _write_trial(root / 'softlearning' / 'gym-Hopper-v5' / 'seed_4',
                 _benchmark_variant('softlearning', 'SAC', 'gym/Hopper/v5',
                                    4), [50.0, 60.0])
    return root, folders


def _final_returns(folders):
    finals = []
    for folder in folders:
        progress = pd.read_csv(folder / 'progress.csv')
        row = progress[progress['total_timestep'] == LENGTH]
        finals.append(float(row['evaluation/return-mean'].iloc[0]))
    return np.array(finals)


def _direct_iqm(folders, agent):
    """IQM with numpy alone: normalize each task's final returns, pool,
    drop the lowest and highest quarter (floor), average the rest."""
    pooled = []
    for task in TASKS:
        entry = REFERENCE_SCORES[task]
        finals = _final_returns(folders[agent, task])
        pooled.extend((finals - entry['random'])
                      / (entry['reference'] - entry['random']))
    pooled = np.sort(pooled)
    cut = len(pooled) // 4
    return pooled[cut:len(pooled) - cut].mean()


def _markdown_row(markdown, first_cell):
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row '{first_cell}' in:\n{markdown}")


def test_report_command_end_to_end(suite, tmp_path):
    root, folders = suite
    output = tmp_path / 'out'
    result = run_cli('report', root, '--output-dir', output, '--reps', 500)
    assert result.returncode == 0, result.stderr
    assert TENSORFLOW_IMPORTED not in result.stderr
    # The run cut short is left out, by name.
    assert 'seed_4' in result.stderr and 'unfinished' in result.stderr
    assert result.stdout.rstrip().endswith(f'Wrote {output}/report.md')
    markdown = (output / 'report.md').read_text()
    assert markdown.strip() in result.stdout
    for name in ('aggregate_metrics.png', 'sample_efficiency.png',
                 'performance_profiles.png'):
        assert (output / name).stat().st_size > 10000, name
        assert f']({name})' in markdown

    table = pd.read_csv(output / 'aggregates.csv')
    for agent in ('softlearning SAC', 'sbx SAC'):
        expected = _direct_iqm(folders, agent)
        row = table[(table.agent == agent) & (table.metric == 'IQM')].iloc[0]
        assert row.value == pytest.approx(expected)
        assert row.low <= row.value <= row.high
        assert (row.runs, row.tasks) == (6, 2)
        cells = _markdown_row(markdown, agent)
        iqm_cell = cells[1]
        assert float(iqm_cell.split(' [')[0]) == pytest.approx(
            expected, abs=5e-4)
        assert cells[-2:] == ['6', '2']

    # softlearning SAC against sbx SAC, from the final returns directly.
    (row,) = pd.read_csv(output / 'improvement.csv').itertuples()
    assert (row.x, row.y) == ('softlearning SAC', 'sbx SAC')
    expected = np.mean([
        np.mean([[a > b for b in _final_returns(folders['sbx SAC', task])]
                 for a in _final_returns(folders['softlearning SAC', task])])
        for task in TASKS])
    assert row.probability == pytest.approx(expected)
    assert row.low <= row.probability <= row.high
    assert 'Probability of improvement' in markdown

    # Per task: mean ± std (ddof 0) over the three seeds.
    finals = _final_returns(folders['sbx SAC', 'gym/Hopper/v5'])
    cells = _markdown_row(markdown, 'gym/Hopper/v5')
    header = _markdown_row(markdown, 'task')
    assert cells[header.index('sbx SAC')] == (
        f'{finals.mean():.1f} ± {finals.std():.1f} (3 seeds)')


def test_compare_adds_a_pair_of_any_two_agents(suite, tmp_path):
    """--compare 'X,Y' gives P(X > Y) beside the same-algorithm pairs (here
    the default pair reversed, so the two must sum to 1: no ties)."""
    root, _ = suite
    output = tmp_path / 'out'
    result = run_cli('report', root, '--output-dir', output, '--reps', 200,
                     '--compare', 'sbx SAC, softlearning SAC',
                     '--compare', 'softlearning SAC,sbx SAC')
    assert result.returncode == 0, result.stderr
    rows = pd.read_csv(output / 'improvement.csv')
    assert list(zip(rows.x, rows.y)) == [
        ('softlearning SAC', 'sbx SAC'), ('sbx SAC', 'softlearning SAC')]
    assert rows.probability.sum() == pytest.approx(1.0)
    assert '| sbx SAC | softlearning SAC | ' in (
        output / 'report.md').read_text()


@pytest.mark.parametrize('pair', ['sbx TD3,softlearning SAC', 'sbx SAC',
                                  'sbx SAC,sbx SAC'])
def test_compare_with_a_wrong_pair_is_one_clear_error(suite, tmp_path, pair):
    root, _ = suite
    result = run_cli('report', root, '--output-dir', tmp_path / 'out',
                     '--compare', pair)
    assert_one_line_error(result, f"--compare takes two different agents "
                          f"as 'X,Y', got '{pair}'; the agents are: sbx SAC, "
                          f"softlearning SAC.")
    assert not (tmp_path / 'out' / 'report.md').exists()


def test_report_at_fewer_steps(suite, tmp_path):
    """--steps N scores every run at its last evaluation up to N, and takes
    in the run cut short once it got that far."""
    root, folders = suite
    output = tmp_path / 'out'
    result = run_cli('report', root, '--output-dir', output, '--steps', 500,
                     '--reps', 200)
    assert result.returncode == 0, result.stderr
    assert 'Left out' not in result.stderr
    table = pd.read_csv(output / 'aggregates.csv')
    row = table[(table.agent == 'softlearning SAC')
                & (table.metric == 'mean')].iloc[0]
    assert (row.runs, row.tasks) == (7, 2)
    assert 'at or before 500 steps' in result.stdout


def test_default_output_is_under_the_first_folder(suite):
    root, _ = suite
    result = run_cli('report', root, '--reps', 100)
    assert result.returncode == 0, result.stderr
    assert (root / 'report' / 'report.md').is_file()
    assert f'Wrote {root}/report/report.md' in result.stdout


@pytest.mark.parametrize('case, message', [
    ('not_a_benchmark', 'has no benchmark section in its params.json'),
    ('unknown_task', "No reference scores for task 'gym/Ant/v5'"),
    ('unfinished', 'No run finished'),
])
def test_bad_input_is_one_clear_error(tmp_path, case, message):
    folder = tmp_path / 'results' / 'trial'
    if case == 'not_a_benchmark':
        _write_trial(folder, {'run_params': {'seed': 1}}, [1.0, 2.0])
    elif case == 'unknown_task':
        _write_trial(folder, _benchmark_variant('sbx', 'SAC', 'gym/Ant/v5',
                                                1), [1.0] * 4)
    else:
        _write_trial(folder, _benchmark_variant('sbx', 'SAC',
                                                'gym/Pendulum/v1', 1),
                     [-1200.0, -900.0])
    result = run_cli('report', tmp_path / 'results')
    assert_one_line_error(result, message)
    assert not (tmp_path / 'results' / 'report' / 'report.md').exists()


def test_tasks_of_different_lengths(tmp_path):
    """Pendulum runs 500 steps, Hopper 1000: each run is scored at its own
    end, and the curve goes as far as both tasks have evaluations, with a
    note saying so."""
    from softlearning.analysis.benchmark_report import write_report
    from softlearning.analysis.results import load_trials
    for seed in SEEDS:
        _write_trial(tmp_path / 'runs' / f'pendulum_{seed}',
                     _benchmark_variant('sbx', 'SAC', 'gym/Pendulum/v1',
                                        seed, length=500),
                     [-1000.0, -300.0 - seed])
        _write_trial(tmp_path / 'runs' / f'hopper_{seed}',
                     _benchmark_variant('sbx', 'SAC', 'gym/Hopper/v5', seed),
                     [100.0, 500.0, 1000.0, 2000.0 + seed])
    report = write_report(load_trials([str(tmp_path / 'runs')]),
                          str(tmp_path / 'out'), reps=100)
    assert report.notices == []
    assert '| gym/Pendulum/v1 | -302.0 ± 0.8 (3 seeds) |' in report.markdown
    assert '| gym/Hopper/v5 | 2002.0 ± 0.8 (3 seeds) |' in report.markdown
    assert ("sbx SAC's sample-efficiency curve ends at 500 of 1000 steps"
            in report.markdown)


def test_unequal_runs_per_task_are_noted(tmp_path):
    """Pooled aggregates weigh a task by its runs: an agent with more seeds
    on one task than another gets a notice saying so."""
    from softlearning.analysis.benchmark_report import write_report
    from softlearning.analysis.results import load_trials
    for task, seeds in (('gym/Pendulum/v1', SEEDS), ('gym/Hopper/v5',
                                                       SEEDS[:2])):
        for seed in seeds:
            _write_trial(tmp_path / 'runs' / f'{task.split("/")[1]}_{seed}',
                         _benchmark_variant('sbx', 'SAC', task, seed),
                         [-1000.0, -800.0, -500.0, -300.0 - seed])
    report = write_report(load_trials([str(tmp_path / 'runs')]),
                          str(tmp_path / 'out'), reps=100)
    assert report.notices == [
        'sbx SAC has unequal runs per task (2 on gym/Hopper/v5, 3 on '
        'gym/Pendulum/v1): its aggregates weigh each task by its number of '
        'runs.']
    assert report.notices[0] in report.markdown


def test_help_says_what_the_report_computes():
    result = run_cli('report', '--help')
    assert result.returncode == 0, result.stderr
    text = ' '.join(result.stdout.split())  # argparse wraps lines
    for words in ('interquartile mean', 'optimality gap',
                  'stratified bootstrap', 'probability of improvement', 'reference_scores.py', '--steps N',
                  '--reps', '--output-dir'):
        assert words in text, words
    assert TENSORFLOW_IMPORTED not in result.stderr
    listing = run_cli('--help')
    assert 'report' in listing.stdout and 'IQM' in listing.stdout
