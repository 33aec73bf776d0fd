"""Learning curves: one line per configuration, the mean over its seeds
with a band of +- one standard deviation; one panel per environment.

    softlearning plot ~/ray_results/gym/Pendulum/v1/<exp-a> <exp-b> -o curves.png
"""

import numpy as np

from .results import check_columns, group_trials, short_names
from .summary import DEFAULT_METRIC, STEPS_COLUMN

AXIS_LABELS = {
    'total_timestep': 'environment steps',
    'epoch': 'epoch',
    'time_total_s': 'wall-clock time (s)',
    'evaluation/return-mean': 'evaluation return (mean over episodes)',
    'training/return-mean': 'training return (mean over episodes)',
}


def _curve(trial, x, y):
    """The trial's (x, y) points with both values, sorted by x. A repeated
    x (a PBT trial that continued from another's checkpoint) keeps its
    last row."""
    progress = trial.progress
    if x not in progress or y not in progress:
        return np.empty(0), np.empty(0)
    points = (progress[[x, y]].dropna().drop_duplicates(x, keep='last')
              .sort_values(x))
    return points[x].to_numpy(float), points[y].to_numpy(float)


def mean_and_std(curves):
    """Mean and standard deviation over curves at the union of their x
    values; each curve counts only within its own x range (trials of
    different lengths, or still running, end where they end)."""
    curves = [(x, y) for x, y in curves if len(x)]
    if not curves:
        return np.empty(0), np.empty(0), np.empty(0)
    grid = np.unique(np.concatenate([x for x, _ in curves]))
    values = np.full((len(curves), len(grid)), np.nan)
    for row, (x, y) in enumerate(curves):
        inside = (grid >= x[0]) & (grid <= x[-1])
        values[row, inside] = np.interp(grid[inside], x, y)
    counts = (~np.isnan(values)).sum(axis=0)
    mean = np.nansum(values, axis=0) / counts
    std = np.sqrt(np.nansum((values - mean) ** 2, axis=0) / counts)
    return grid, mean, std


def plot_learning_curves(trials, x=STEPS_COLUMN, y=DEFAULT_METRIC,
                         title=None, size=(800, 500), dpi=100):
    """A matplotlib Figure (Agg, no display needed): one panel of ``size``
    pixels per environment (up to three side by side), one line per group
    of trials in it, labelled with its varying entries and its number of
    seeds (a group has the same colour in every panel)."""
    # A Figure without pyplot draws with Agg and leaves the user's
    # interactive backend alone.
    from matplotlib.figure import Figure

    check_columns(trials, x, y)
    by_environment = {}
    for trial in trials:
        by_environment.setdefault(_environment(trial), []).append(trial)
    panels = sorted(by_environment)
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    figure = Figure(figsize=(size[0] * columns / dpi, size[1] * rows / dpi),
                    dpi=dpi, layout='constrained')
    colors = {}
    for index, environment in enumerate(panels):
        axes = figure.add_subplot(rows, columns, index + 1)
        _draw_panel(axes, by_environment[environment], x, y, colors)
        axes.set_title(environment if len(panels) > 1
                       else title or _default_title(trials, y))
    if len(panels) > 1:
        figure.suptitle(title or AXIS_LABELS.get(y, y))
    return figure


def _draw_panel(axes, trials, x, y, colors):
    """The curves of ``trials`` on ``axes``; ``colors``: {label: colour},
    shared by the panels."""
    from matplotlib.ticker import EngFormatter

    groups, keys = group_trials(trials)
    names = short_names(keys)
    for group in groups:
        grid, mean, std = mean_and_std(
            [_curve(trial, x, y) for trial in group.trials])
        seeds = len(group.trials)
        label = (f"{group.label(names)} ({seeds} seed"
                 f"{'s' if seeds != 1 else ''})")
        color = colors.setdefault(group.label(names),
                                  f'C{len(colors) % 10}')
        # A single point (a trial stopped at its first report) is no line.
        axes.plot(grid, mean, label=label, linewidth=1.8, color=color,
                  marker='o' if len(grid) < 2 else None)
        axes.fill_between(grid, mean - std, mean + std, alpha=0.2,
                          color=color, linewidth=0)
    axes.set_xlabel(AXIS_LABELS.get(x, x))
    axes.set_ylabel(AXIS_LABELS.get(y, y))
    axes.grid(alpha=0.3)
    # 2k, 500k, 1M: readable step counts.
    axes.xaxis.set_major_formatter(EngFormatter(sep=''))
    axes.legend(loc='best', fontsize='small', title=(
        'mean ± std over seeds' if len(groups) > 1 or groups[0].values
        else None), title_fontsize='small')


def _environment(trial):
    params = trial.params
    parts = [params.get(f'environment_params.training.{key}')
             for key in ('universe', 'domain', 'task')]
    return '-'.join(str(part) for part in parts if part is not None)


def _default_title(trials, y):
    environments = sorted({_environment(trial) for trial in trials})
    return f"{', '.join(environments)}: {y}"


def save_figure(figure, path):
    figure.savefig(path, dpi=figure.dpi)
