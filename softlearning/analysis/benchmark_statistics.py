"""The statistics of a learning-quality report, after Agarwal et al.
(2021), "Deep Reinforcement Learning at the Edge of the Statistical
Precipice": final returns normalized per task, aggregate metrics (IQM,
median, mean, optimality gap), probabilities of improvement between
comparable agents, sample-efficiency scores and performance-profile
thresholds, and goal-conditioned tasks' final success rates, each with
stratified bootstrap intervals (aggregates.py).
"""

import numpy as np

from . import aggregates
from .reference_scores import REFERENCE_SCORES, normalize
from .results import ResultsError

HOME_LIBRARY = 'softlearning'
PROFILE_POINTS = 101


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


def success_rates(runs, reps=2000, seed=0, confidence=0.95):
    """{task: {agent: (IQM, low, high, runs)}} of the runs' final success
    rates, for the tasks (goal-conditioned ones) where some run has one:
    the IQM over the agent's runs of the task, with its bootstrap interval
    (the runs redrawn with replacement, the task its only stratum). Runs
    without a success rate count for nothing; an agent none of whose runs
    of a task has one is not in that task's entry."""
    values = {}
    for run in runs:
        if not np.isnan(run.final_success):
            values.setdefault(run.task, {}).setdefault(run.agent, []).append(
                run.final_success)
    return {task: {agent: (*aggregates.with_ci([rates], aggregates.iqm,
                                               reps, confidence, seed),
                           len(rates))
                   for agent, rates in sorted(by_agent.items())}
            for task, by_agent in sorted(values.items())}


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


def extra_pairs(runs, compare):
    """The (X, Y) agent-name pairs asked for beyond the comparison pairs
    (``report --compare 'X,Y'``, e.g. an agent of one algorithm against a
    peer's of another); a name no run has is an error naming those that
    are there."""
    names = sorted({run.identity.name for run in runs})
    pairs = []
    for text in compare or ():
        pair = [name.strip() for name in text.split(',')]
        unknown = [name for name in pair if name not in names]
        if len(pair) != 2 or unknown or pair[0] == pair[1]:
            raise ResultsError(
                f"--compare takes two different agents as 'X,Y', got "
                f"{text!r}; the agents are: {', '.join(names)}.")
        pairs.append(tuple(pair))
    return pairs


def improvement_probabilities(runs, scores, reps=2000, seed=0,
                              confidence=0.95, compare=None):
    """{(X, Y): (P(X > Y), low, high, tasks)} by agent name, for the
    comparison pairs of the runs' agents and the ``compare`` pairs
    (``extra_pairs``), on the tasks both have runs on."""
    agents = sorted({run.identity for run in runs}, key=lambda a: a.name)
    pairs = [(x.name, y.name) for x, y in comparison_pairs(agents)]
    pairs += [pair for pair in extra_pairs(runs, compare)
              if pair not in pairs]
    probabilities = {}
    for x, y in pairs:
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
    return _where_every_task_has_runs(at, tasks, table)


def _where_every_task_has_runs(at, tasks, table):
    """{point: per-task normalized returns} of ``at`` ({point: {task:
    returns}}), for the points where every task has a run."""
    return {point: [normalize(task, by_task[task], table) for task in tasks]
            for point, by_task in sorted(at.items())
            if all(task in by_task for task in tasks)}


# A per-hour curve's points: this many fractions of the budget.
TIME_POINTS = 10


def budget_minutes(runs):
    """The per-hour budget the runs share, or None for runs by steps."""
    budgets = {run.budget_minutes for run in runs}
    if budgets == {None}:
        return None
    if len(budgets) > 1:
        raise ResultsError(
            f"The runs have different training budgets "
            f"({', '.join(str(b) for b in sorted(budgets, key=str))} "
            "minutes): report each suite on its own.")
    return budgets.pop()


def scores_by_time(runs, agent, minutes, table=None):
    """{minutes of training: per-task normalized returns} of the agent's
    runs at ``TIME_POINTS`` fractions of a budget of ``minutes``: each
    run's return is its last evaluation taken within that much training
    time (a run with no evaluation yet by then does not count there).
    Points where one of the agent's tasks has no run are left out."""
    table = REFERENCE_SCORES if table is None else table
    mine = [run for run in runs if run.agent == agent]
    tasks = sorted({run.task for run in mine})
    at = {}
    for run in mine:
        seconds = np.nan_to_num(run.seconds, nan=np.inf)
        for point in np.linspace(minutes / TIME_POINTS, minutes,
                                 TIME_POINTS):
            within = np.flatnonzero(seconds <= 60 * point + 1e-9)
            if len(within):
                at.setdefault(float(point), {}).setdefault(
                    run.task, []).append(run.returns[within[-1]])
    return _where_every_task_has_runs(at, tasks, table)


def profile_taus(scores):
    """Thresholds over the scores' range, at least 0 (random) to 1
    (reference)."""
    pooled = np.concatenate([np.concatenate(list(by_task.values()))
                             for by_task in scores.values()])
    low, high = min(0.0, pooled.min()), max(1.0, pooled.max())
    return np.linspace(low, high, PROFILE_POINTS)
