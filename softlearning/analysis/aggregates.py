"""Aggregate metrics over runs and tasks, with stratified bootstrap
confidence intervals, as recommended by Agarwal et al. (2021), "Deep
Reinforcement Learning at the Edge of the Statistical Precipice"
(NeurIPS; arXiv:2108.13264).

Scores are normalized scores of one agent, in either of two forms:

- a list with one 1-D array per task, each holding that task's runs (one
  score per seed); tasks may have different numbers of runs;
- a 2-D array of shape (runs, tasks), when every task has as many runs.

Every aggregate pools all runs of all tasks (as rliable does): with equal
numbers of runs per task each task weighs the same; with unequal numbers a
task weighs in proportion to its runs.

The aggregates reduce over the runs axis, the last one of each task's
array, so that they also take a batch of resampled scores (a list of
(reps, runs) arrays) and return one value per resample: the bootstrap
calls the statistic once, not once per resample.
"""

import numpy as np
import scipy.stats


def per_task(scores):
    """Scores as a list of per-task float arrays (runs on the last axis)."""
    if isinstance(scores, np.ndarray):
        if scores.ndim != 2:
            raise ValueError(
                f"A score matrix has shape (runs, tasks), got {scores.shape}.")
        return [scores[:, task] for task in range(scores.shape[1])]
    columns = [np.asarray(column, dtype=float) for column in scores]
    if not columns or any(column.shape[-1] == 0 for column in columns):
        raise ValueError('Every task needs at least one run.')
    return columns


def _pooled(scores):
    """All runs of all tasks side by side on the last axis."""
    return np.concatenate(per_task(scores), axis=-1)


def _scalar(value):
    # A single set of scores gives a number, a batch gives an array.
    return float(value) if np.ndim(value) == 0 else value


def iqm(scores):
    """Interquartile mean: the mean of the middle 50% of the pooled scores,
    25% trimmed at each end as scipy.stats.trim_mean(x, 0.25) trims."""
    return _scalar(scipy.stats.trim_mean(_pooled(scores), 0.25, axis=-1))


def median(scores):
    return _scalar(np.median(_pooled(scores), axis=-1))


def mean(scores):
    return _scalar(np.mean(_pooled(scores), axis=-1))


def optimality_gap(scores, gamma=1.0):
    """How far the scores fall short of ``gamma`` on average, a score above
    it counting as ``gamma`` (mean of max(gamma - score, 0)): lower is
    better, and doing better than the reference buys nothing."""
    return _scalar(np.mean(np.maximum(gamma - _pooled(scores), 0.0),
                           axis=-1))


AGGREGATES = {'IQM': iqm, 'median': median, 'mean': mean,
              'optimality gap': optimality_gap}


def performance_profile(scores, taus):
    """For each threshold tau, the fraction of all runs x tasks scoring
    above it (the run-score distribution): shape (..., len(taus))."""
    pooled = _pooled(scores)
    taus = np.asarray(taus, dtype=float)
    return (pooled[..., None, :] > taus[:, None]).mean(axis=-1)


def _stratified_resamples(columns, reps, rng):
    """``reps`` resamples of each task's runs, drawn with replacement within
    the task only: a list of (reps, runs) arrays."""
    return [column[rng.integers(0, len(column), size=(reps, len(column)))]
            for column in columns]


def stratified_bootstrap_ci(scores, statistic, reps=2000, confidence=0.95,
                            seed=0):
    """(low, high): the percentile interval of ``statistic`` over ``reps``
    stratified bootstrap resamples, each redrawing every task's runs with
    replacement within that task, so that a resample keeps the number of
    runs of each task and never mixes tasks.

    ``statistic`` takes scores as listed above and reduces the runs axis
    (iqm, median, mean, optimality_gap, or ``lambda s:
    performance_profile(s, taus)``); for a vector-valued statistic, low and
    high are arrays of its shape. A seeded numpy Generator makes the
    interval reproducible."""
    _check_bootstrap(reps, confidence)
    rng = np.random.default_rng(seed)
    values = statistic(_stratified_resamples(per_task(scores), reps, rng))
    return _percentile_interval(values, confidence)


def _check_bootstrap(reps, confidence):
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}.")
    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}.")


def _percentile_interval(values, confidence):
    """(low, high): the central ``confidence`` of the resamples' values."""
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(np.asarray(values, dtype=float),
                              [tail, 100 - tail], axis=0)
    return _scalar(low), _scalar(high)


def with_ci(scores, statistic, reps=2000, confidence=0.95, seed=0):
    """(value, low, high): the statistic and its stratified bootstrap
    interval."""
    low, high = stratified_bootstrap_ci(scores, statistic, reps, confidence,
                                        seed)
    return statistic(scores), low, high


def performance_profile_with_ci(scores, taus, reps=2000, confidence=0.95,
                                seed=0):
    """(fractions, low, high), each of shape (len(taus),)."""
    return with_ci(scores, lambda s: performance_profile(s, taus), reps,
                   confidence, seed)


def sample_efficiency_curve(scores_by_step, statistic=iqm, reps=2000,
                            confidence=0.95, seed=0):
    """(steps, values, lows, highs): ``statistic`` (IQM by default) of the
    scores at each evaluation step, with its stratified bootstrap interval.
    ``scores_by_step`` is {step: scores} (per-task lists, each task with
    the runs evaluated at that step)."""
    steps = np.array(sorted(scores_by_step), dtype=float)
    rows = [with_ci(scores_by_step[step], statistic, reps, confidence, seed)
            for step in sorted(scores_by_step)]
    values, lows, highs = (np.array(column, dtype=float)
                           for column in zip(*rows)) if rows else (
        np.empty(0), np.empty(0), np.empty(0))
    return steps, values, lows, highs


def probability_of_improvement(x_scores, y_scores):
    """P(X > Y): the probability that a run of agent X scores above a run of
    agent Y on a task drawn at random, ties counting half (Agarwal et al.'s
    "average probability of improvement", a Mann-Whitney U statistic per
    task averaged over the tasks). 0.5: neither is better; unlike a
    difference of aggregates, it does not let one task's large scores
    outweigh the others. Both agents' scores cover the same tasks, in the
    same order; a task's runs need not be as many for X as for Y."""
    xs, ys = per_task(x_scores), per_task(y_scores)
    if len(xs) != len(ys):
        raise ValueError(f"X has scores on {len(xs)} tasks and Y on "
                         f"{len(ys)}: compare them on the same tasks.")
    per_task_values = []
    for x, y in zip(xs, ys):
        difference = x[..., :, None] - y[..., None, :]
        per_task_values.append(np.mean(
            (difference > 0) + 0.5 * (difference == 0), axis=(-2, -1)))
    return _scalar(np.mean(per_task_values, axis=0))


def probability_of_improvement_with_ci(x_scores, y_scores, reps=2000,
                                       confidence=0.95, seed=0):
    """(P(X > Y), low, high): its interval over ``reps`` stratified
    bootstrap resamples, X's and Y's runs each redrawn within every task,
    independently of each other."""
    _check_bootstrap(reps, confidence)
    rng = np.random.default_rng(seed)
    xs, ys = per_task(x_scores), per_task(y_scores)
    values = probability_of_improvement(_stratified_resamples(xs, reps, rng),
                                        _stratified_resamples(ys, reps, rng))
    return (probability_of_improvement(xs, ys),
            *_percentile_interval(values, confidence))
