"""The figures of a learning-quality report: aggregate metrics, sample
efficiency and performance profiles, each with its confidence intervals.
A Figure without pyplot draws with Agg and leaves the user's interactive
backend alone.
"""

from . import aggregates


def _colors(agents):
    from matplotlib import colormaps
    cycle = colormaps['tab10'].colors
    return {agent: cycle[i % len(cycle)] for i, agent in enumerate(agents)}


def plot_aggregate_metrics(metrics, confidence=0.95, dpi=100):
    """One panel per metric, agents on the y axis: a bar over the
    confidence interval and a tick at the point estimate (Agarwal et al.'s
    Figure 9 layout)."""
    from matplotlib.figure import Figure
    agents = list(metrics)
    colors = _colors(agents)
    names = list(aggregates.AGGREGATES)
    figure = Figure(figsize=(3.2 * len(names), 1.2 + 0.45 * len(agents)),
                    dpi=dpi, layout='constrained')
    panels = figure.subplots(1, len(names), sharey=True)
    for panel, name in zip(panels, names):
        for y, agent in enumerate(agents):
            value, low, high = metrics[agent][name]
            panel.barh(y, high - low, left=low, height=0.6,
                       color=colors[agent], alpha=0.75)
            panel.vlines(value, y - 0.3, y + 0.3, color='black',
                         linewidth=1.5)
        panel.set_title(name)
        panel.grid(axis='x', alpha=0.3)
        panel.set_xlabel('normalized score')
    panels[0].set_yticks(range(len(agents)), agents)
    panels[0].invert_yaxis()
    figure.suptitle(f'Aggregate metrics with {confidence:.0%} stratified '
                    'bootstrap CIs (optimality gap: lower is better)',
                    fontsize='medium')
    return figure


def plot_sample_efficiency(curves, confidence=0.95, dpi=100,
                           x_label='environment steps',
                           title='Sample efficiency'):
    """IQM of normalized scores against environment steps (or, with
    ``x_label``, minutes of training), one line per agent with its
    confidence band."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import EngFormatter
    colors = _colors(list(curves))
    figure = Figure(figsize=(8, 5), dpi=dpi, layout='constrained')
    axes = figure.add_subplot()
    for agent, (steps, values, lows, highs) in curves.items():
        axes.plot(steps, values, color=colors[agent], label=agent,
                  linewidth=1.8, marker='o' if len(steps) < 2 else None)
        axes.fill_between(steps, lows, highs, color=colors[agent],
                          alpha=0.2, linewidth=0)
    axes.set_xlabel(x_label)
    axes.set_ylabel('IQM of normalized score')
    axes.xaxis.set_major_formatter(EngFormatter(sep=''))
    axes.grid(alpha=0.3)
    axes.legend(loc='best', fontsize='small')
    axes.set_title(f'{title}: IQM with {confidence:.0%} '
                   'stratified bootstrap CIs')
    return figure


def plot_performance_profiles(taus, profiles, confidence=0.95, dpi=100):
    """The fraction of runs x tasks scoring above each threshold, one line
    per agent with its confidence band."""
    from matplotlib.figure import Figure
    colors = _colors(list(profiles))
    figure = Figure(figsize=(8, 5), dpi=dpi, layout='constrained')
    axes = figure.add_subplot()
    for agent, (fractions, lows, highs) in profiles.items():
        # A step function: the fraction drops right after each score.
        axes.plot(taus, fractions, color=colors[agent], label=agent,
                  linewidth=1.8, drawstyle='steps-post')
        axes.fill_between(taus, lows, highs, color=colors[agent], alpha=0.2,
                          linewidth=0, step='post')
    axes.set_xlabel(r'normalized score $\tau$')
    axes.set_ylabel(r'fraction of runs with score > $\tau$')
    axes.set_ylim(-0.02, 1.02)
    axes.grid(alpha=0.3)
    axes.legend(loc='best', fontsize='small')
    axes.set_title(f'Performance profiles with {confidence:.0%} '
                   'stratified bootstrap CIs')
    return figure
