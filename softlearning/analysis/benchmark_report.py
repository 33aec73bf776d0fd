"""The learning-quality report of benchmark runs: aggregate metrics of
normalized final scores with stratified bootstrap confidence intervals,
final returns per task, sample-efficiency curves and performance profiles,
after Agarwal et al. (2021), "Deep Reinforcement Learning at the Edge of
the Statistical Precipice".

    softlearning report ~/ray_results/benchmarks/<suite> [--output-dir OUT]

A benchmark trial's params.json has a ``benchmark`` section (library,
algorithm, environment, steps, evaluation protocol, and an ablation's
label). An agent is "<library> <algorithm>" (and "(<label>)"), a task is
the environment, a run is one trial (agent, task, seed).
"""

import dataclasses
import os

import numpy as np

from . import aggregates
from .reference_scores import REFERENCE_SCORES, normalize
from .results import PARAMS_FILE, ResultsError, _sort_key, format_value
from .summary import DEFAULT_METRIC, STEPS_COLUMN

LIBRARY_KEY = 'benchmark.library'
LABEL_KEY = 'benchmark.label'
ALGORITHM_KEY = 'benchmark.algorithm'
TASK_KEY = 'benchmark.environment'
LENGTH_KEY = 'benchmark.steps'
SEED_KEY = 'run_params.seed'
EVALUATION_KEYS = ('episodes', 'first_seed', 'interval', 'deterministic')
REQUIRED_KEYS = (LIBRARY_KEY, ALGORITHM_KEY, TASK_KEY, LENGTH_KEY)

REPORT_FILE = 'report.md'
AGGREGATES_FILE = 'aggregates.csv'
IMPROVEMENT_FILE = 'improvement.csv'
HOME_LIBRARY = 'softlearning'
FIGURES = {'aggregates': 'aggregate_metrics.png',
           'sample_efficiency': 'sample_efficiency.png',
           'profiles': 'performance_profiles.png'}
PROFILE_POINTS = 101


@dataclasses.dataclass(frozen=True)
class Agent:
    """Who made a run: a library, its algorithm, and the suite's label (an
    ablation's config overrides; empty for the defaults)."""
    library: str
    algorithm: str
    label: str = ''

    @property
    def name(self):
        """"<library> <algorithm>", and "(<label>)" for an ablation."""
        return (f"{self.library} {self.algorithm}"
                + (f" ({self.label})" if self.label else ''))

    @classmethod
    def of(cls, trial):
        return cls(trial.params[LIBRARY_KEY], trial.params[ALGORITHM_KEY],
                   trial.params.get(LABEL_KEY) or '')


@dataclasses.dataclass
class Run:
    identity: Agent
    task: str
    seed: object
    path: str
    length: int          # benchmark.steps: the run's planned length
    step: int            # where its final score was taken
    final_return: float
    steps: np.ndarray    # its evaluations up to ``step``
    returns: np.ndarray

    @property
    def agent(self):
        """Its agent's name: the key of scores, tables and figures."""
        return self.identity.name


@dataclasses.dataclass
class Report:
    markdown: str
    notices: list        # runs left out, and why
    output_dir: str

    @property
    def path(self):
        return os.path.join(self.output_dir, REPORT_FILE)


def agent_name(trial):
    return Agent.of(trial).name


def check_benchmark_trials(trials):
    """One clear error for trials that were not run by a benchmark suite:
    the report needs to know each run's agent, task and length."""
    lacking = [trial for trial in trials
               if any(trial.params.get(key) is None for key in REQUIRED_KEYS)]
    if lacking:
        others = (f" (and {len(lacking) - 1} other trial"
                  f"{'s' if len(lacking) > 2 else ''})"
                  if len(lacking) > 1 else '')
        raise ResultsError(
            f"{lacking[0].path}{others} has no benchmark section in its "
            f"{PARAMS_FILE}: the report compares benchmark runs, whose "
            f"variant names {', '.join(REQUIRED_KEYS)}.")
    for trial in trials:
        length = trial.params[LENGTH_KEY]
        if isinstance(length, bool) or not isinstance(length, int) or (
                length < 1):
            raise ResultsError(
                f"{trial.path}: {LENGTH_KEY} must be a positive integer, "
                f"got {length!r}.")


def _evaluations(trial):
    """The trial's (steps, returns), one per evaluation, sorted by step."""
    progress = trial.progress
    if STEPS_COLUMN not in progress or DEFAULT_METRIC not in progress:
        return np.empty(0), np.empty(0)
    points = (progress[[STEPS_COLUMN, DEFAULT_METRIC]].dropna()
              .drop_duplicates(STEPS_COLUMN, keep='last')
              .sort_values(STEPS_COLUMN))
    return (points[STEPS_COLUMN].to_numpy(float),
            points[DEFAULT_METRIC].to_numpy(float))


def final_score(trial, steps=None):
    """(step, return) of the trial's final score, or (None, why not).

    Without ``steps``: the evaluation at the run's planned length
    (benchmark.steps); a run without it has not finished. With ``steps``:
    the last evaluation at or before that many steps, from a run that got
    at least that far (or to its own end, if shorter)."""
    length = trial.params[LENGTH_KEY]
    at, returns = _evaluations(trial)
    reached = (f"last evaluation at {at[-1]:.0f}" if len(at)
               else 'no evaluation yet')
    if steps is None:
        if not (at == length).any():
            return None, f"unfinished, {reached} of {length} steps"
        index = int(np.flatnonzero(at == length)[0])
    else:
        target = min(steps, length)
        progress = trial.progress
        furthest = (progress[STEPS_COLUMN].max()
                    if STEPS_COLUMN in progress and len(progress) else -1)
        inside = np.flatnonzero(at <= steps)
        if furthest < target or not len(inside):
            return None, (f"unfinished, {reached}, short of the "
                          f"{target} steps asked for")
        index = int(inside[-1])
    return (int(at[index]), float(returns[index])), None


def collect_runs(trials, steps=None):
    """(runs, notices): the runs with a final score, in order of agent,
    task and seed, and one line for each trial left out."""
    check_benchmark_trials(trials)
    runs, notices, first_reason = [], [], None
    for trial in trials:
        identity, task = Agent.of(trial), trial.params[TASK_KEY]
        agent = identity.name  # for the notices
        seed = trial.params.get(SEED_KEY)
        score, why_not = final_score(trial, steps)
        if score is None:
            first_reason = first_reason or (trial.path, why_not)
            notices.append(f"Left out {trial.path} ({agent}, {task}, seed "
                           f"{seed}): {why_not}.")
            continue
        step, final_return = score
        at, returns = _evaluations(trial)
        kept = at <= step
        runs.append(Run(identity, task, seed, trial.path,
                        trial.params[LENGTH_KEY], step, final_return,
                        at[kept], returns[kept]))
    if not runs:
        raise ResultsError(
            f"No run finished: none of the {len(trials)} benchmark trials "
            f"has a final score (e.g. {first_reason[0]}: {first_reason[1]}); "
            "--steps N reports on the first N steps.")
    runs.sort(key=lambda run: (run.agent, run.task, _sort_key(run.seed)))
    counts = {}
    for run in runs:
        key = (run.agent, run.task, run.seed)
        counts[key] = counts.get(key, 0) + 1
    for (agent, task, seed), n in counts.items():
        if n > 1:
            notices.append(f"{agent} on {task} has {n} runs with seed "
                           f"{seed}: each counts as a run.")
    return runs, notices


def agents_and_tasks(runs):
    return (sorted({run.agent for run in runs}),
            sorted({run.task for run in runs}))


def normalized_scores(runs, table=None):
    """{agent: {task: normalized final scores of its runs}}; every task
    must be in the reference table (one clear error otherwise)."""
    table = REFERENCE_SCORES if table is None else table
    scores = {}
    for run in runs:
        scores.setdefault(run.agent, {}).setdefault(run.task, []).append(
            run.final_return)
    return {agent: {task: normalize(task, returns, table)
                    for task, returns in sorted(by_task.items())}
            for agent, by_task in sorted(scores.items())}


def unequal_runs_notices(scores):
    """One line for each agent whose tasks have different numbers of runs:
    its aggregates pool the runs, so a task weighs by its runs, and two
    agents compare fairly once both have the same runs on every task."""
    notices = []
    for agent, by_task in scores.items():
        counts = {task: len(values) for task, values in by_task.items()}
        if len(set(counts.values())) > 1:
            listed = ', '.join(f"{n} on {task}" for task, n in counts.items())
            notices.append(
                f"{agent} has unequal runs per task ({listed}): its "
                "aggregates weigh each task by its number of runs.")
    return notices


def aggregate_metrics(scores, reps=2000, seed=0, confidence=0.95):
    """{agent: {metric: (value, low, high)}} over each agent's tasks."""
    return {agent: {name: aggregates.with_ci(list(by_task.values()),
                                             statistic, reps, confidence,
                                             seed)
                    for name, statistic in aggregates.AGGREGATES.items()}
            for agent, by_task in scores.items()}


def _goes_first(agent):
    """Which side of a pair is X: softlearning before a peer, an ablation
    (a labelled agent) before the defaults it changes."""
    return (agent.library != HOME_LIBRARY, not agent.label)


def comparison_pairs(agents):
    """(X, Y) pairs of Agents that run the same algorithm: softlearning
    against a peer library, an ablation against softlearning's defaults or
    a peer (X: softlearning's, the ablation; else the first in order). The
    comparisons a learning-quality report is for."""
    pairs = []
    for i, x in enumerate(agents):
        for y in agents[i + 1:]:
            if x.algorithm != y.algorithm:
                continue
            pairs.append((y, x) if _goes_first(y) < _goes_first(x)
                         else (x, y))
    return pairs


def improvement_probabilities(runs, scores, reps=2000, seed=0,
                              confidence=0.95):
    """{(X, Y): (P(X > Y), low, high, tasks)} by agent name, for the
    comparison pairs of the runs' agents, on the tasks both have runs on."""
    agents = sorted({run.identity for run in runs}, key=lambda a: a.name)
    probabilities = {}
    for x, y in comparison_pairs(agents):
        x, y = x.name, y.name
        tasks = sorted(set(scores[x]) & set(scores[y]))
        if tasks:
            probabilities[x, y] = (*aggregates.probability_of_improvement_with_ci(
                [scores[x][task] for task in tasks],
                [scores[y][task] for task in tasks], reps, confidence, seed),
                tasks)
    return probabilities


def scores_by_step(runs, agent, table=None):
    """{step: per-task normalized returns} of the agent's runs evaluated at
    that step, for the steps where every task of the agent has at least one
    run (a task missing from a step would silently change what the
    aggregate is over)."""
    table = REFERENCE_SCORES if table is None else table
    mine = [run for run in runs if run.agent == agent]
    tasks = sorted({run.task for run in mine})
    at = {}
    for run in mine:
        for step, value in zip(run.steps, run.returns):
            at.setdefault(step, {}).setdefault(run.task, []).append(value)
    return {step: [normalize(task, by_task[task], table) for task in tasks]
            for step, by_task in sorted(at.items())
            if all(task in by_task for task in tasks)}


def profile_taus(scores):
    """Thresholds over the scores' range, at least 0 (random) to 1
    (reference)."""
    pooled = np.concatenate([np.concatenate(list(by_task.values()))
                             for by_task in scores.values()])
    low, high = min(0.0, pooled.min()), max(1.0, pooled.max())
    return np.linspace(low, high, PROFILE_POINTS)


# Figures. A Figure without pyplot draws with Agg and leaves the user's
# interactive backend alone.

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


def plot_sample_efficiency(curves, confidence=0.95, dpi=100):
    """IQM of normalized scores against environment steps, one line per
    agent with its confidence band."""
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
    axes.set_xlabel('environment steps')
    axes.set_ylabel('IQM of normalized score')
    axes.xaxis.set_major_formatter(EngFormatter(sep=''))
    axes.grid(alpha=0.3)
    axes.legend(loc='best', fontsize='small')
    axes.set_title(f'Sample efficiency: IQM with {confidence:.0%} '
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


# Markdown.

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
                  probabilities=None):
    table = REFERENCE_SCORES if table is None else table
    agents, tasks = agents_and_tasks(runs)
    where = ('the evaluation at each run\'s planned length (benchmark.steps)'
             if steps is None else
             f'the last evaluation at or before {steps} steps')
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
        '## Sample efficiency', '',
        'IQM of normalized scores at each evaluation step, over the runs '
        'evaluated there (steps where one of the agent\'s tasks has no run '
        'are left out).', '',
        f"![Sample efficiency]({figures['sample_efficiency']})", '',
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


def write_report(trials, output_dir, steps=None, reps=2000, seed=0,
                 confidence=0.95, table=None):
    """Writes report.md, aggregates.csv, improvement.csv and the three PNG
    figures into ``output_dir``; returns a Report (its markdown, the
    notices about runs left out, the folder)."""
    if steps is not None and steps < 1:
        raise ResultsError(f"--steps must be a positive number, got {steps}.")
    if reps < 1:
        raise ResultsError(f"--reps must be at least 1, got {reps}.")
    runs, notices = collect_runs(trials, steps)
    scores = normalized_scores(runs, table)
    notices += unequal_runs_notices(scores)
    metrics = aggregate_metrics(scores, reps, seed, confidence)
    probabilities = improvement_probabilities(runs, scores, reps, seed,
                                              confidence)
    agents, _ = agents_and_tasks(runs)
    curves = {agent: aggregates.sample_efficiency_curve(
        scores_by_step(runs, agent, table), aggregates.iqm, reps,
        confidence, seed) for agent in agents}
    taus = profile_taus(scores)
    profiles = {agent: aggregates.performance_profile_with_ci(
        list(scores[agent].values()), taus, reps, confidence, seed)
        for agent in agents}

    os.makedirs(output_dir, exist_ok=True)
    for key, figure in (
            ('aggregates', plot_aggregate_metrics(metrics, confidence)),
            ('sample_efficiency', plot_sample_efficiency(curves, confidence)),
            ('profiles', plot_performance_profiles(taus, profiles,
                                                   confidence))):
        figure.savefig(os.path.join(output_dir, FIGURES[key]),
                       dpi=figure.dpi)
    _write_aggregates_csv(metrics, scores,
                          os.path.join(output_dir, AGGREGATES_FILE))
    _write_improvement_csv(probabilities,
                           os.path.join(output_dir, IMPROVEMENT_FILE))
    used = {run.path for run in runs}
    protocol = _evaluation_protocol(
        [trial.params for trial in trials if trial.path in used])
    markdown = format_report(runs, scores, metrics, notices, steps, reps,
                             seed, confidence, protocol, FIGURES, table,
                             curve_notes(runs, curves), probabilities)
    report = Report(markdown, notices, output_dir)
    with open(report.path, 'w') as f:
        f.write(markdown)
    return report
