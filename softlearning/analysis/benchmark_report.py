"""The learning-quality report of benchmark runs: aggregate metrics of
normalized final scores with stratified bootstrap confidence intervals,
final returns per task (and final success rates, on goal-conditioned
tasks), sample-efficiency curves and performance profiles, after Agarwal
et al. (2021), "Deep Reinforcement Learning at the Edge of the Statistical
Precipice".

    softlearning report ~/ray_results/benchmarks/<suite> [--output-dir OUT]

An agent is "<library> <algorithm>" (and "(<label>)"), a task is the
environment, a run is one trial (agent, task, seed): benchmark_runs.py
reads them, benchmark_statistics.py computes, benchmark_figures.py draws;
this module writes the report (markdown and CSV) and is its entry point,
``write_report``.
"""

import dataclasses
import os

import numpy as np

from . import aggregates
from .benchmark_figures import (plot_aggregate_metrics,
                                plot_performance_profiles,
                                plot_sample_efficiency)
from .benchmark_runs import agents_and_tasks, collect_runs
from .benchmark_statistics import (aggregate_metrics, budget_minutes,
                                   improvement_probabilities,
                                   normalized_scores, profile_taus,
                                   scores_by_step, scores_by_time,
                                   success_rates, unequal_runs_notices)
from .reference_scores import REFERENCE_SCORES
from .results import ResultsError, format_value

EVALUATION_KEYS = ('episodes', 'first_seed', 'interval', 'deterministic')
REPORT_FILE = 'report.md'
AGGREGATES_FILE = 'aggregates.csv'
IMPROVEMENT_FILE = 'improvement.csv'
# Written only for runs of goal-conditioned tasks.
SUCCESS_FILE = 'success_rates.csv'
FIGURES = {'aggregates': 'aggregate_metrics.png',
           'sample_efficiency': 'sample_efficiency.png',
           'profiles': 'performance_profiles.png'}
# Per-hour suites' runs also get return against minutes of training.
TIME_FIGURE = {'training_time': 'return_per_training_time.png'}


@dataclasses.dataclass
class Report:
    markdown: str
    notices: list        # runs left out, and why
    output_dir: str

    @property
    def path(self):
        return os.path.join(self.output_dir, REPORT_FILE)


def _interval(value, low, high):
    return f'{value:.3f} [{low:.3f}, {high:.3f}]'


def _table(header, rows, text_columns=(0,)):
    """A markdown table: the columns of text left-aligned, the numbers
    right-aligned."""
    aligns = [' --- ' if i in text_columns else ' ---: '
              for i in range(len(header))]
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '|'.join(aligns) + '|']
    lines += ['| ' + ' | '.join(map(str, row)) + ' |' for row in rows]
    return '\n'.join(lines)


def _returns_cell(returns):
    """mean ± std (numpy's, ddof 0) over seeds, and their number."""
    if not len(returns):
        return '-'
    returns = np.asarray(returns, dtype=float)
    n = len(returns)
    spread = f' ± {returns.std():.1f}' if n > 1 else ''
    return f"{returns.mean():.1f}{spread} ({n} seed{'s' if n != 1 else ''})"


def _success_section(rates, agents, confidence, reps):
    """The final success rates per task, beside the returns; nothing for
    runs of tasks without goals."""
    if not rates:
        return []

    def cell(entry):
        if entry is None:
            return '-'
        value, low, high, n = entry
        runs = f"{n} run{'s' if n != 1 else ''}"
        return f"{_interval(value, low, high)} ({runs})"

    return [
        '## Final success rate per task', '',
        'Goal-conditioned tasks: each run\'s final evaluation success rate '
        '(the fraction of its evaluation episodes whose last step reached '
        'the goal); the IQM over the runs, with its '
        f'{confidence:.0%} percentile interval over {reps} bootstrap '
        'resamples of the runs.', '',
        _table(['task', *agents],
               [[task, *(cell(by_agent.get(agent)) for agent in agents)]
                for task, by_agent in rates.items()]), '']


def _evaluation_protocol(trials_params):
    protocols = {tuple(format_value(params.get(f'benchmark.evaluation.{key}'))
                       for key in EVALUATION_KEYS)
                 for params in trials_params}
    if len(protocols) > 1:
        return ('Evaluation protocols differ between runs (episodes, first '
                'seed, interval, deterministic): '
                + '; '.join(', '.join(p) for p in sorted(protocols)) + '.')
    episodes, first_seed, interval, deterministic = protocols.pop()
    if episodes == 'None':
        return 'The runs do not state their evaluation protocol.'
    actions = {'True': 'deterministic', 'False': 'stochastic'}.get(
        deterministic, f'deterministic={deterministic}')
    return (f'Each evaluation: the mean return of {episodes} episodes with '
            f'resets seeded from {first_seed}, {actions} actions, every '
            f'{interval} steps.')


def curve_notes(runs, curves):
    """A note for each agent whose curve stops before its longest runs do
    (tasks of different lengths: the curve goes as far as all go)."""
    notes = []
    for agent, (steps, *_) in curves.items():
        furthest = max(run.step for run in runs if run.agent == agent)
        if not len(steps) or steps[-1] < furthest:
            end = f'ends at {steps[-1]:.0f}' if len(steps) else 'is empty'
            notes.append(
                f"{agent}'s sample-efficiency curve {end} of {furthest} "
                "steps: past that, some of its tasks have no evaluation")
    return notes


def _improvement_section(probabilities, confidence):
    if not probabilities:
        return []
    return [
        '## Probability of improvement', '',
        'P(X > Y): the probability that a run of X scores above a run of Y '
        'on a task drawn at random (ties count half), over the tasks both '
        f'ran, with its {confidence:.0%} stratified bootstrap interval. 0.5 '
        'is parity; an interval wholly below 0.5 says Y learns better, '
        'wholly above that X does.', '',
        _table(['X', 'Y', 'P(X > Y)', 'tasks'],
               [[x, y, _interval(value, low, high), len(tasks)]
                for (x, y), (value, low, high, tasks)
                in probabilities.items()], text_columns=(0, 1)), '']


def format_report(runs, scores, metrics, notices, steps, reps, seed,
                  confidence, protocol, figures, table=None, notes=(),
                  probabilities=None, minutes=None, successes=None):
    table = REFERENCE_SCORES if table is None else table
    agents, tasks = agents_and_tasks(runs)
    where = ('the evaluation at each run\'s planned length (benchmark.steps)'
             if steps is None else
             f'the last evaluation at or before {steps} steps')
    if minutes is not None:
        where = (f'its last evaluation, when its training budget of '
                 f'{format_value(minutes)} minutes (collecting and training, '
                 'evaluations not counted) was spent or it reached '
                 'benchmark.steps')
    lines = [
        '# Learning-quality report', '',
        f'{len(runs)} runs: {len(agents)} agent'
        f"{'s' if len(agents) != 1 else ''} on {len(tasks)} task"
        f"{'s' if len(tasks) != 1 else ''}. A run's final score is {where}. "
        + protocol, '',
        'Scores are normalized per task, (return - random) / (reference - '
        'random): 0 is a uniform random policy, 1 the reference score. '
        'Aggregates pool all runs of all tasks (Agarwal et al. 2021, "Deep '
        'RL at the Edge of the Statistical Precipice"); each interval is a '
        f'{confidence:.0%} percentile interval over {reps} stratified '
        'bootstrap resamples (runs redrawn within each task), numpy seed '
        f'{seed}.', '',
        '## Aggregate metrics (normalized final scores)', '',
        _table(['agent', 'IQM', 'median', 'mean', 'optimality gap', 'runs',
                'tasks'],
               [[agent, *(_interval(*metrics[agent][name])
                          for name in aggregates.AGGREGATES),
                 sum(len(s) for s in scores[agent].values()),
                 len(scores[agent])] for agent in agents]), '',
        'Optimality gap: the mean shortfall from the reference score '
        '(lower is better).', '',
        f"![Aggregate metrics]({figures['aggregates']})", '',
        *_improvement_section(probabilities or {}, confidence),
        '## Final returns per task', '',
        'Mean ± standard deviation (ddof 0) over seeds of the final '
        'evaluation return.', '',
        _table(['task', *agents],
               [[task, *(_returns_cell([run.final_return for run in runs
                                        if run.agent == agent
                                        and run.task == task])
                         for agent in agents)] for task in tasks]), '',
        *_success_section(successes or {}, agents, confidence, reps),
        '## Sample efficiency', '',
        'IQM of normalized scores at each evaluation step, over the runs '
        'evaluated there (steps where one of the agent\'s tasks has no run '
        'are left out).', '',
        f"![Sample efficiency]({figures['sample_efficiency']})", '',
        *([] if minutes is None else [
            '## Return against training time', '',
            'IQM of normalized scores at each tenth of the budget: each '
            'run\'s last evaluation within that many minutes of collecting '
            'and training.', '',
            f"![Return against training time]({figures['training_time']})",
            '']),
        '## Performance profiles', '',
        'The fraction of runs x tasks whose normalized final score is '
        'above each threshold.', '',
        f"![Performance profiles]({figures['profiles']})", '',
        '## Reference scores', '',
        _table(['task', 'random', 'reference', 'reference source'],
               [[task, f"{table[task]['random']:.1f}",
                 f"{table[task]['reference']:.1f}",
                 table[task].get('source', '')]
                for task in tasks], text_columns=(0, 3)), '',
    ]
    missing = [f"{agent} has no finished run on "
               f"{', '.join(t for t in tasks if t not in scores[agent])}"
               for agent in agents if len(scores[agent]) < len(tasks)]
    if missing or notes or notices:
        lines += ['## Notes', '']
        lines += [f'- {note}.' for note in [*missing, *notes]]
        lines += [f'- {notice}' for notice in notices]
        lines.append('')
    return '\n'.join(lines)


def _write_aggregates_csv(metrics, scores, path):
    import pandas as pd
    rows = [{'agent': agent, 'metric': name, 'value': value, 'low': low,
             'high': high,
             'runs': sum(len(s) for s in scores[agent].values()),
             'tasks': len(scores[agent])}
            for agent, by_name in metrics.items()
            for name, (value, low, high) in by_name.items()]
    pd.DataFrame(rows).to_csv(path, index=False)


def _write_improvement_csv(probabilities, path):
    import pandas as pd
    rows = [{'x': x, 'y': y, 'probability': value, 'low': low, 'high': high,
             'tasks': ' '.join(tasks)}
            for (x, y), (value, low, high, tasks) in probabilities.items()]
    pd.DataFrame(rows, columns=['x', 'y', 'probability', 'low', 'high',
                                'tasks']).to_csv(path, index=False)


def _write_success_csv(rates, path):
    import pandas as pd
    rows = [{'task': task, 'agent': agent, 'iqm': value, 'low': low,
             'high': high, 'runs': n}
            for task, by_agent in rates.items()
            for agent, (value, low, high, n) in by_agent.items()]
    pd.DataFrame(rows).to_csv(path, index=False)


def write_report(trials, output_dir, steps=None, reps=2000, seed=0,
                 confidence=0.95, table=None, compare=None):
    """Writes report.md, aggregates.csv, improvement.csv (and, for runs
    of goal-conditioned tasks, success_rates.csv) and the PNG figures into
    ``output_dir``; ``compare``: more 'X,Y' agent pairs for the
    probabilities of improvement (see ``extra_pairs``). Returns a Report
    (its markdown, the notices about runs left out, the folder)."""
    if steps is not None and steps < 1:
        raise ResultsError(f"--steps must be a positive number, got {steps}.")
    if reps < 1:
        raise ResultsError(f"--reps must be at least 1, got {reps}.")
    runs, notices = collect_runs(trials, steps)
    scores = normalized_scores(runs, table)
    notices += unequal_runs_notices(scores)
    metrics = aggregate_metrics(scores, reps, seed, confidence)
    probabilities = improvement_probabilities(runs, scores, reps, seed,
                                              confidence, compare)
    successes = success_rates(runs, reps, seed, confidence)
    agents, _ = agents_and_tasks(runs)
    curves = {agent: aggregates.sample_efficiency_curve(
        scores_by_step(runs, agent, table), aggregates.iqm, reps,
        confidence, seed) for agent in agents}
    minutes = budget_minutes(runs) if steps is None else None
    figures = dict(FIGURES)
    plots = [('aggregates', plot_aggregate_metrics(metrics, confidence)),
             ('sample_efficiency', plot_sample_efficiency(curves,
                                                          confidence))]
    if minutes is not None:
        figures.update(TIME_FIGURE)
        plots.append(('training_time', plot_sample_efficiency(
            {agent: aggregates.sample_efficiency_curve(
                scores_by_time(runs, agent, minutes, table), aggregates.iqm,
                reps, confidence, seed) for agent in agents}, confidence,
            x_label='minutes of training',
            title='Return against training time')))
    taus = profile_taus(scores)
    profiles = {agent: aggregates.performance_profile_with_ci(
        list(scores[agent].values()), taus, reps, confidence, seed)
        for agent in agents}

    plots.append(('profiles', plot_performance_profiles(taus, profiles,
                                                        confidence)))
    os.makedirs(output_dir, exist_ok=True)
    for key, figure in plots:
        figure.savefig(os.path.join(output_dir, figures[key]),
                       dpi=figure.dpi)
    _write_aggregates_csv(metrics, scores,
                          os.path.join(output_dir, AGGREGATES_FILE))
    _write_improvement_csv(probabilities,
                           os.path.join(output_dir, IMPROVEMENT_FILE))
    if successes:
        _write_success_csv(successes, os.path.join(output_dir, SUCCESS_FILE))
    used = {run.path for run in runs}
    protocol = _evaluation_protocol(
        [trial.params for trial in trials if trial.path in used])
    markdown = format_report(runs, scores, metrics, notices, steps, reps,
                             seed, confidence, protocol, figures, table,
                             curve_notes(runs, curves), probabilities,
                             minutes, successes)
    report = Report(markdown, notices, output_dir)
    with open(report.path, 'w') as f:
        f.write(markdown)
    return report
