"""Benchmark runs from trials: who ran them (an Agent: library, algorithm
and an ablation's label), on which task, and each run's final score (and
final success rate, on goal-conditioned tasks) and evaluations. A
benchmark trial's params.json has a ``benchmark`` section (library,
algorithm, environment, steps, evaluation protocol, and an ablation's
label); a run is one trial (agent, task, seed).
"""

import dataclasses

import numpy as np

from .results import PARAMS_FILE, ResultsError, _sort_key
from .summary import DEFAULT_METRIC, STEPS_COLUMN, SUCCESS_METRIC

LIBRARY_KEY = 'benchmark.library'
LABEL_KEY = 'benchmark.label'
ALGORITHM_KEY = 'benchmark.algorithm'
TASK_KEY = 'benchmark.environment'
LENGTH_KEY = 'benchmark.steps'
# A per-hour suite's budget (minutes of collecting and training per run),
# and the column of the seconds each run had spent at each evaluation.
BUDGET_KEY = 'benchmark.budget.training_minutes'
SECONDS_COLUMN = 'training_seconds'
SEED_KEY = 'run_params.seed'
REQUIRED_KEYS = (LIBRARY_KEY, ALGORITHM_KEY, TASK_KEY, LENGTH_KEY)


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
    # Training seconds spent at each of those evaluations (NaN where the
    # run did not record them), and a per-hour suite's budget in minutes.
    seconds: np.ndarray = None
    budget_minutes: float = None
    # Goal-conditioned tasks: the success rate of the evaluation that gave
    # the final score (NaN for a run whose progress.csv has none).
    final_success: float = np.nan

    @property
    def agent(self):
        """Its agent's name: the key of scores, tables and figures."""
        return self.identity.name


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
    """The trial's (steps, returns, training seconds, success rates), one
    per evaluation, sorted by step (seconds and success rates NaN where
    the run did not record them)."""
    progress = trial.progress
    if STEPS_COLUMN not in progress or DEFAULT_METRIC not in progress:
        return np.empty(0), np.empty(0), np.empty(0), np.empty(0)
    points = (progress[[STEPS_COLUMN, DEFAULT_METRIC]].dropna()
              .assign(seconds=progress.get(SECONDS_COLUMN, np.nan),
                      success=progress.get(SUCCESS_METRIC, np.nan))
              .drop_duplicates(STEPS_COLUMN, keep='last')
              .sort_values(STEPS_COLUMN))
    return (points[STEPS_COLUMN].to_numpy(float),
            points[DEFAULT_METRIC].to_numpy(float),
            points['seconds'].to_numpy(float),
            points['success'].to_numpy(float))


def _spent_its_budget(trial, seconds):
    """Whether a per-hour run ended: its budget spent (or Tune marked it
    done: it reached its steps first)."""
    minutes = trial.params.get(BUDGET_KEY)
    progress = trial.progress
    done = ('done' in progress and len(progress)
            and bool(progress['done'].iloc[-1]))
    return done or (len(seconds) and np.nanmax(seconds) >= 60 * minutes)


def final_score(trial, steps=None):
    """(step, return) of the trial's final score, or (None, why not).

    Without ``steps``: the evaluation at the run's planned length
    (benchmark.steps); a run without it has not finished. With ``steps``:
    the last evaluation at or before that many steps, from a run that got
    at least that far (or to its own end, if shorter). A per-hour suite's
    run (without ``steps``): its last evaluation, once its budget is spent."""
    length = trial.params[LENGTH_KEY]
    at, returns, seconds, _ = _evaluations(trial)
    reached = (f"last evaluation at {at[-1]:.0f}" if len(at)
               else 'no evaluation yet')
    if steps is None and trial.params.get(BUDGET_KEY) is not None:
        if not len(at) or not _spent_its_budget(trial, seconds):
            return None, (f"unfinished, {reached}, its budget of "
                          f"{trial.params[BUDGET_KEY]} minutes not spent")
        index = len(at) - 1
    elif steps is None:
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
        at, returns, seconds, successes = _evaluations(trial)
        kept = at <= step
        runs.append(Run(identity, task, seed, trial.path,
                        trial.params[LENGTH_KEY], step, final_return,
                        at[kept], returns[kept], seconds[kept],
                        trial.params.get(BUDGET_KEY),
                        # The final score's evaluation is the last kept.
                        float(successes[kept][-1])))
    if not runs and not trials:
        raise ResultsError("No benchmark trials to report on.")
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
