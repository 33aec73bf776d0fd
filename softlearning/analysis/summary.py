"""One row per configuration: its final and best metric over seeds.

    softlearning summary ~/ray_results/gym/Pendulum/v1/<experiment>
"""

import numpy as np
import pandas as pd

from .results import (check_columns, format_value, group_trials,
                      short_names)

DEFAULT_METRIC = 'evaluation/return-mean'
# Goal-conditioned tasks' evaluations also report the fraction of episodes
# that ended at their goal.
SUCCESS_METRIC = 'evaluation/success-rate'
STEPS_COLUMN = 'total_timestep'
SORTABLE = ('final', 'best', 'steps', 'seeds')


def trial_scores(trial, metric, mode='max'):
    """(final, best, steps reached) of one trial; NaN where it has no
    value yet. ``final`` is the metric's last value, ``best`` its maximum
    (minimum with mode 'min') over the epochs."""
    progress = trial.progress
    values = (progress[metric].dropna() if metric in progress
              else pd.Series(dtype=float))
    final = float(values.iloc[-1]) if len(values) else np.nan
    best = (float(values.max() if mode == 'max' else values.min())
            if len(values) else np.nan)
    steps = (float(progress[STEPS_COLUMN].max())
             if STEPS_COLUMN in progress and len(progress) else np.nan)
    return final, best, steps


def _mean_std(values):
    """Mean and standard deviation (numpy's, ddof=0) over the seeds that
    have a value; no standard deviation (NaN) from a single seed."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if not len(values):
        return np.nan, np.nan
    std = float(values.std()) if len(values) > 1 else np.nan
    return float(values.mean()), std


def _status_counts(trials):
    counts = pd.Series([t.status for t in trials]).value_counts()
    return ', '.join(f'{n} {status}' for status, n in counts.items())


def _reports_success(trials, metric):
    """Whether to add the final success rate beside ``metric``: some trial
    has the column (goal-conditioned tasks), and it is not the metric."""
    return metric != SUCCESS_METRIC and any(
        SUCCESS_METRIC in trial.progress for trial in trials)


def summarize(trials, metric=DEFAULT_METRIC, mode='max'):
    """A DataFrame with one row per group of trials (seeds pooled): the
    varying entries (full dotted names), ``seeds``, ``final_mean``,
    ``final_std``, ``best_mean``, ``best_std``, ``steps_min``,
    ``steps_max``, for goal-conditioned tasks (trials with an
    evaluation/success-rate column) ``success_mean`` and ``success_std``
    (the final success rate over seeds), and ``status``."""
    check_columns(trials, metric)
    groups, keys = group_trials(trials)
    success = _reports_success(trials, metric)
    rows = []
    for group in groups:
        scores = np.array([trial_scores(t, metric, mode)
                           for t in group.trials])
        final_mean, final_std = _mean_std(scores[:, 0])
        best_mean, best_std = _mean_std(scores[:, 1])
        row = {
            **{key: format_value(value) if isinstance(value, (list, dict))
               else value for key, value in group.values.items()},
            'seeds': len(group.trials),
            'final_mean': final_mean, 'final_std': final_std,
            'best_mean': best_mean, 'best_std': best_std,
            'steps_min': np.nanmin(scores[:, 2]) if
            not np.isnan(scores[:, 2]).all() else np.nan,
            'steps_max': np.nanmax(scores[:, 2]) if
            not np.isnan(scores[:, 2]).all() else np.nan,
        }
        if success:
            row['success_mean'], row['success_std'] = _mean_std(
                [trial_scores(t, SUCCESS_METRIC)[0] for t in group.trials])
        row['status'] = _status_counts(group.trials)
        rows.append(row)
    return pd.DataFrame(rows, columns=[
        *keys, 'seeds', 'final_mean', 'final_std', 'best_mean', 'best_std',
        'steps_min', 'steps_max',
        *(('success_mean', 'success_std') if success else ()), 'status'])


def sort_summary(summary, by, mode='max'):
    """Rows by ``by``: final / best (best first), success (highest first,
    where the summary has it), steps / seeds (most first), or a varying
    entry (by its short or full name, ascending)."""
    if by in ('final', 'best'):
        return summary.sort_values(f'{by}_mean', ascending=(mode == 'min'),
                                   na_position='last', kind='stable')
    if by == 'success' and 'success_mean' in summary:
        return summary.sort_values('success_mean', ascending=False,
                                   na_position='last', kind='stable')
    if by in ('steps', 'seeds'):
        column = 'steps_max' if by == 'steps' else 'seeds'
        return summary.sort_values(column, ascending=False, kind='stable')
    keys = list(summary.columns[:list(summary.columns).index('seeds')])
    names = {name: key for key, name in short_names(keys).items()}
    names.update({key: key for key in keys})
    if by not in names:
        sortable = SORTABLE + (('success',) if 'success_mean' in summary
                               else ())
        raise ValueError(
            f"--sort {by}: choose from {', '.join(sortable)}"
            f"{', ' if keys else ''}{', '.join(short_names(keys).values())}.")
    return summary.sort_values(names[by], kind='stable')


def _plus_minus(mean, std, digits=1):
    if np.isnan(mean):
        return '-'
    if np.isnan(std):  # one seed
        return f'{mean:.{digits}f}'
    return f'{mean:.{digits}f} ± {std:.{digits}f}'


def _steps(low, high):
    if np.isnan(low):
        return '-'
    return f'{low:.0f}' if low == high else f'{low:.0f}-{high:.0f}'


def format_summary(summary, metric=DEFAULT_METRIC):
    """The summary as a text table for the terminal."""
    seeds_at = list(summary.columns).index('seeds')
    keys = list(summary.columns[:seeds_at])
    names = short_names(keys)
    table = pd.DataFrame({names[key]: summary[key].map(format_value)
                          for key in keys})
    table['seeds'] = summary['seeds']
    table['final'] = [_plus_minus(m, s) for m, s in zip(
        summary['final_mean'], summary['final_std'])]
    table['best'] = [_plus_minus(m, s) for m, s in zip(
        summary['best_mean'], summary['best_std'])]
    table['steps'] = [_steps(low, high) for low, high in zip(
        summary['steps_min'], summary['steps_max'])]
    success = 'success_mean' in summary
    if success:
        table['success'] = [_plus_minus(m, s, digits=2) for m, s in zip(
            summary['success_mean'], summary['success_std'])]
    table['status'] = summary['status']
    n_trials = int(summary['seeds'].sum())
    header = (f"{metric}: final (last epoch) and best epoch, mean ± std "
              f"over seeds; {n_trials} trials in {len(summary)} "
              f"configuration{'s' if len(summary) != 1 else ''}")
    if success:
        header += (f"\nsuccess: {SUCCESS_METRIC} of the last epoch, mean ± "
                   "std over seeds")
    return header + '\n' + table.to_string(index=False)


NOT_FINISHED = ('error', 'unfinished', 'running', 'paused', 'pending')


def format_not_finished(trials):
    """The trials that failed or have not finished, one line each with its
    status (and error line); '' when every trial finished."""
    lines = [f"  [{t.status}] {t.path}" + (f"\n      {t.error}" if t.error
                                           else '')
             for t in trials if t.status in NOT_FINISHED]
    if not lines:
        return ''
    return (f"{len(lines)} trial{'s' if len(lines) != 1 else ''} not "
            "finished:\n" + '\n'.join(lines))
