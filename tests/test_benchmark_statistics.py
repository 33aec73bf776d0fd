"""The statistics of softlearning report: the aggregates against
hand-computed cases and scipy, the stratified bootstrap, normalization,
the probability of improvement and which agents it compares."""

import numpy as np
import pytest
import scipy.stats

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
    from softlearning.analysis.benchmark_runs import Agent
    from softlearning.analysis.benchmark_statistics import comparison_pairs

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

    from softlearning.analysis.benchmark_runs import agent_name
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
