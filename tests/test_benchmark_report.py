"""softlearning report: the aggregates against hand-computed cases and
scipy, the stratified bootstrap, normalization, and the command end to end
on benchmark trial folders written here."""

import json
import os

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import TENSORFLOW_IMPORTED, assert_one_line_error, run_cli
from softlearning.analysis import aggregates
from softlearning.analysis.reference_scores import (REFERENCE_SCORES,
                                                    normalize)
from softlearning.analysis.results import ResultsError

# 4 runs x 2 tasks. Pooled and sorted: 0.1 0.2 0.3 0.4 0.5 0.8 0.9 1.2.
MATRIX = np.array([[0.1, 0.5],
                   [0.2, 0.8],
                   [0.3, 0.9],
                   [0.4, 1.2]])


def test_aggregates_of_a_hand_computed_case():
    # IQM: the middle four, (0.3 + 0.4 + 0.5 + 0.8) / 4.
    assert aggregates.iqm(MATRIX) == pytest.approx(0.5)
    assert aggregates.median(MATRIX) == pytest.approx((0.4 + 0.5) / 2)
    assert aggregates.mean(MATRIX) == pytest.approx(4.4 / 8)
    # Shortfalls from 1: 0.9 0.8 0.7 0.6 0.5 0.2 0.1 0 (1.2 counts as 1).
    assert aggregates.optimality_gap(MATRIX) == pytest.approx(3.8 / 8)


def test_unequal_runs_per_task_pool_all_runs():
    columns = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.8, 0.9, 1.2]]
    for name, statistic in aggregates.AGGREGATES.items():
        assert statistic(columns) == pytest.approx(statistic(MATRIX)), name


@pytest.mark.parametrize('n', [5, 6, 7, 10, 13])
def test_iqm_trims_as_scipy_trim_mean(n):
    scores = np.random.default_rng(n).normal(size=(n, 1))
    assert aggregates.iqm(scores) == pytest.approx(
        scipy.stats.trim_mean(scores.ravel(), 0.25))
    # n = 10: 2 cut at each end (floor of 2.5), the middle 6 kept.
    if n == 10:
        assert aggregates.iqm(scores) == pytest.approx(
            np.sort(scores.ravel())[2:8].mean())


def test_performance_profile_of_a_hand_computed_case():
    np.testing.assert_allclose(
        aggregates.performance_profile(MATRIX, [0.0, 0.45, 1.0, 1.2]),
        [8 / 8, 4 / 8, 1 / 8, 0 / 8])
    fractions, low, high = aggregates.performance_profile_with_ci(
        MATRIX, [0.0, 0.45, 0.85, 2.0], reps=500)
    np.testing.assert_allclose(fractions, [1.0, 0.5, 0.25, 0.0])
    # Every resample keeps every score above 0 and none above 2; and, runs
    # being redrawn within their task, the first task's four below 0.45 and
    # the second's four above it.
    np.testing.assert_allclose(low[[0, 1, 3]], [1.0, 0.5, 0.0])
    np.testing.assert_allclose(high[[0, 1, 3]], [1.0, 0.5, 0.0])
    assert low[2] < 0.25 < high[2]


# Not the median: its bootstrap distribution sits on a few data points, so
# that Monte Carlo error can move a percentile from one to the next.
@pytest.mark.parametrize('name', ['mean', 'IQM'])
def test_single_task_bootstrap_matches_scipy(name):
    """With one task, the stratified bootstrap is the ordinary one: its
    percentile interval matches scipy.stats.bootstrap's up to Monte Carlo
    error (20000 resamples each, fixed seeds)."""
    data = np.random.default_rng(7).normal(1.0, 0.5, size=15)
    ours = {'mean': aggregates.mean, 'IQM': aggregates.iqm}[name]
    theirs = {'mean': np.mean,
              'IQM': lambda x, axis: scipy.stats.trim_mean(x, 0.25,
                                                           axis=axis)}[name]
    low, high = aggregates.stratified_bootstrap_ci(
        [data], ours, reps=20000, seed=0)
    reference = scipy.stats.bootstrap(
        (data,), theirs, method='percentile', n_resamples=20000,
        confidence_level=0.95, random_state=np.random.default_rng(1))
    interval = reference.confidence_interval
    width = interval.high - interval.low
    assert low == pytest.approx(interval.low, abs=0.03 * width)
    assert high == pytest.approx(interval.high, abs=0.03 * width)
    assert low < ours([data]) < high


def test_bootstrap_resamples_within_each_task():
    """A task whose runs all score 10 stays so in every resample: resampling
    that mixed tasks would move runs of the other task into it."""
    constant = np.full(3, 10.0)
    varied = np.array([0.0, 0.2, 0.4, 0.6, 1.0])
    columns = [constant, varied]
    # The share of scores above 5 is the constant task's, 3 of 8, always.
    low, high = aggregates.stratified_bootstrap_ci(
        columns, lambda s: aggregates.performance_profile(s, [5.0]),
        reps=2000)
    np.testing.assert_allclose([low, high], [[3 / 8], [3 / 8]])
    # The mean lies between the constant task with the varied task's lowest
    # and highest runs throughout.
    low, high = aggregates.stratified_bootstrap_ci(columns, aggregates.mean)
    assert (30 + 5 * 0.0) / 8 <= low < high <= (30 + 5 * 1.0) / 8
    # Each task's resample holds only that task's runs, as many as it has.
    seen = []

    def inspect(resampled):
        seen.append([column.shape for column in resampled])
        return (np.all(resampled[0] == 10.0, axis=-1)
                & np.isin(resampled[1], varied).all(axis=-1)).astype(float)

    low, high = aggregates.stratified_bootstrap_ci(columns, inspect, reps=300)
    assert (low, high) == (1.0, 1.0)
    assert seen == [[(300, 3), (300, 5)]]


def test_bootstrap_is_reproducible_by_its_seed():
    first = aggregates.stratified_bootstrap_ci(MATRIX, aggregates.iqm, seed=3)
    assert aggregates.stratified_bootstrap_ci(
        MATRIX, aggregates.iqm, seed=3) == first
    assert aggregates.stratified_bootstrap_ci(
        MATRIX, aggregates.iqm, seed=4) != first


def test_sample_efficiency_curve_is_the_iqm_at_each_step():
    by_step = {200: [[0.0, 0.2, 0.1], [0.4, 0.3]],
               100: [[0.0, 0.1, 0.0], [0.1, 0.2]]}
    steps, values, lows, highs = aggregates.sample_efficiency_curve(
        by_step, reps=500)
    np.testing.assert_array_equal(steps, [100, 200])
    np.testing.assert_allclose(values, [aggregates.iqm(by_step[100]),
                                        aggregates.iqm(by_step[200])])
    assert np.all(lows <= values) and np.all(values <= highs)


def test_normalization_by_the_reference_table():
    entry = REFERENCE_SCORES['gym/Pendulum/v1']
    random, reference = entry['random'], entry['reference']
    np.testing.assert_allclose(
        normalize('gym/Pendulum/v1',
                  [random, reference, (random + reference) / 2]),
        [0.0, 1.0, 0.5])
    table = {'toy': {'random': -10.0, 'reference': 30.0, 'source': 'test'}}
    np.testing.assert_allclose(normalize('toy', [-10, 0, 50], table),
                               [0.0, 0.25, 1.5])
    with pytest.raises(ResultsError, match=r"'gym/Ant/v5'.*reference_scores"):
        normalize('gym/Ant/v5', [1.0])


def test_probability_of_improvement_of_a_hand_computed_case():
    # Task 1: X's 3 beats Y's 1 and 2, X's 0 beats neither: 2 of 4 pairs.
    # Task 2: X's 5 beats Y's 4 and ties 5 (half): 1.5 of 2 pairs.
    x = [[3.0, 0.0], [5.0]]
    y = [[1.0, 2.0], [4.0, 5.0]]
    assert aggregates.probability_of_improvement(x, y) == pytest.approx(
        (2 / 4 + 1.5 / 2) / 2)
    assert aggregates.probability_of_improvement(y, x) == pytest.approx(
        1 - (2 / 4 + 1.5 / 2) / 2)
    with pytest.raises(ValueError, match='same tasks'):
        aggregates.probability_of_improvement(x, y[:1])


def test_probability_of_improvement_is_mann_whitney_u_per_task():
    rng = np.random.default_rng(5)
    x = [rng.normal(0.2, 1, size=5), rng.normal(0, 1, size=7)]
    y = [rng.normal(0, 1, size=4), rng.normal(0, 1, size=7)]
    expected = np.mean([
        scipy.stats.mannwhitneyu(a, b).statistic / (len(a) * len(b))
        for a, b in zip(x, y)])
    assert aggregates.probability_of_improvement(x, y) == pytest.approx(
        expected)


def test_probability_of_improvement_interval():
    # X beats Y on every run of every task: 1 in every resample.
    assert aggregates.probability_of_improvement_with_ci(
        [[2.0, 3.0], [5.0, 6.0]], [[0.0, 1.0], [1.0, 2.0]],
        reps=300) == (1.0, 1.0, 1.0)
    # The same runs on both sides: parity, in an interval around it.
    x = np.random.default_rng(0).normal(size=(10, 3))
    value, low, high = aggregates.probability_of_improvement_with_ci(
        x, x[::-1], reps=1000, seed=1)
    assert value == 0.5 and low < 0.5 < high
    assert aggregates.probability_of_improvement_with_ci(
        x, x[::-1], reps=1000, seed=1) == (value, low, high)


def test_comparison_pairs_put_softlearning_first():
    from softlearning.analysis.benchmark_report import (
        Agent, comparison_pairs)

    def pairs(*agents):
        agents = sorted(agents, key=lambda agent: agent.name)
        return [(x.name, y.name) for x, y in comparison_pairs(agents)]

    assert pairs(Agent('sb3', 'SAC'), Agent('sbx', 'SAC'),
                 Agent('sbx', 'TD3'), Agent('softlearning', 'SAC'),
                 Agent('softlearning', 'TD3'),
                 Agent('softlearning', 'TQC')) == [
        ('sb3 SAC', 'sbx SAC'), ('softlearning SAC', 'sb3 SAC'),
        ('softlearning SAC', 'sbx SAC'), ('softlearning TD3', 'sbx TD3')]
    from types import SimpleNamespace

    from softlearning.analysis.benchmark_report import agent_name
    params = {'benchmark.library': 'softlearning', 'benchmark.algorithm': 'SAC'}
    assert agent_name(SimpleNamespace(params=params)) == 'softlearning SAC'
    assert agent_name(SimpleNamespace(params={
        **params, 'benchmark.label': 'fused_steps=1'})) == (
        'softlearning SAC (fused_steps=1)')
    # An ablation (a suite with config overrides) against the defaults and
    # the peer; its label may hold spaces.
    ablation = Agent('softlearning', 'SAC', 'LeCun-normal kernels')
    assert pairs(Agent('sbx', 'SAC'), Agent('softlearning', 'SAC'),
                 ablation) == [
        ('softlearning SAC', 'sbx SAC'), (ablation.name, 'sbx SAC'),
        (ablation.name, 'softlearning SAC')]
    # A peer's algorithm name with a space is still that algorithm.
    assert pairs(Agent('rllib', 'SAC v2'), Agent('softlearning', 'SAC'),
                 Agent('softlearning', 'SAC v2')) == [
        ('softlearning SAC v2', 'rllib SAC v2')]


# End to end: benchmark trial folders as a suite writes them.

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
