"""The success-rate tables of goal-conditioned suites (the fetch_her
suites), generated from the committed runs and their report:

- ``success-rates SUITE``: per task and agent, the IQM over runs of the
  final success rate with its bootstrap interval (the report's
  ``success_rates.csv``) and each seed's final success rate;
- ``success-by-step SUITE [every=STEPS]``: per evaluation step (every
  STEPS steps, if given), each agent's success rate, mean over seeds
  (min-max), from the runs' progress.csv; a run that has not reached a
  step leaves its cell empty;
- ``success-comparison SUITE``: one sentence per task comparing the
  agents' IQMs: "above" only where the intervals do not overlap, else
  "level with".
"""

import os

from markdown_table import numbers_table, table

DOCS = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(os.path.dirname(DOCS), 'benchmarks', 'results')


# A task counts as solved at a success rate of this or more.
SOLVED = 0.95


def _short(task):
    return task.replace('gym/', '').replace('/', '-')


def _runs(suite):
    from generated_tables import _runs as suite_runs
    return suite_runs(suite)


def success_rates(here, suite):
    import csv
    path = os.path.join(RESULTS, suite, 'report', 'success_rates.csv')
    if not os.path.exists(path):
        return f"*No success rates yet: `{os.path.relpath(path, os.path.dirname(DOCS))}` is not committed.*"
    with open(path) as f:
        rates = list(csv.DictReader(f))
    runs = _runs(suite)
    rows = []
    for row in sorted(rates, key=lambda r: (r['task'], r['agent'])):
        mine = sorted((run for run in runs if run.agent == row['agent']
                       and run.task == row['task']),
                      key=lambda run: str(run.seed))
        seeds = ', '.join(f'{run.final_success:.1f}' for run in mine)
        rows.append([_short(row['task']), row['agent'],
                     f"{float(row['iqm']):.2f} [{float(row['low']):.2f}, "
                     f"{float(row['high']):.2f}]", row['runs'], seeds])
    return table(['task', 'agent', 'final success rate: IQM [95% interval]',
                  'runs', 'each seed\'s (by seed)'], rows,
                 ['---', '---', '---:', '---:', '---'])


def _all_trials(suite):
    """(agent, task, folder) of every committed run of ``suite``,
    finished or not: a curve shows how far an unfinished run got."""
    from generated_tables import suite_folders
    from softlearning.analysis import load_trials
    from softlearning.analysis.benchmark_runs import TASK_KEY, Agent
    folders = suite_folders(suite)
    return [(Agent.of(trial).name, trial.params[TASK_KEY], trial.path)
            for trial in (load_trials(folders) if folders else [])]


def success_by_step(here, suite, every=None):
    import numpy as np
    import pandas as pd
    curves = {}
    for agent, task, path in _all_trials(suite):
        progress = pd.read_csv(os.path.join(path, 'progress.csv'))
        if 'evaluation/success-rate' not in progress:
            continue
        for step, rate in zip(progress['total_timestep'],
                              progress['evaluation/success-rate']):
            curves.setdefault((_short(task), agent), {}).setdefault(
                int(step), []).append(float(rate))
    columns = sorted(curves)
    steps = sorted({step for curve in curves.values() for step in curve
                    if every is None or step % int(every) == 0})
    rows = []
    for step in steps:
        cells = [f'{step:,}']
        for column in columns:
            values = np.array(curves[column].get(step, []))
            cells.append(f'{values.mean():.2f} ({values.min():.1f}-'
                         f'{values.max():.1f})' if len(values) else '')
        rows.append(cells)
    header = ['steps'] + [f'{agent} ({task})' for task, agent in columns]
    solved = []
    for task, agent in columns:
        steps_solved = [step for step in steps
                        if min(curves[(task, agent)].get(step, [0])) >= SOLVED]
        solved.append(f'{agent} on {task}: ' + (
            f'every seed at {SOLVED} or more first at {steps_solved[0]:,} steps'
            if steps_solved else f'not every seed at {SOLVED} at any step'))
    shown = '' if every is None else f', every {int(every):,} steps'
    return (f'Evaluation success rate by step{shown}: mean over seeds '
            '(min-max).\n\n'
            + numbers_table(header, rows) + '\n\nSolved (success rate '
            f'{SOLVED} or more): ' + '; '.join(solved) + '.')


def _rates(suite):
    import csv
    path = os.path.join(RESULTS, suite, 'report', 'success_rates.csv')
    with open(path) as f:
        return list(csv.DictReader(f))


def success_comparison(here, suite):
    by_task = {}
    for row in _rates(suite):
        by_task.setdefault(row['task'], []).append(row)
    sentences = []
    for task, rows in sorted(by_task.items()):
        rows.sort(key=lambda row: -float(row['iqm']))
        best, *others = rows
        for other in others:
            overlap = float(best['low']) <= float(other['high'])
            relation = 'level with' if overlap else 'above'
            sentences.append(
                f"On {_short(task)}, {best['agent']}'s final success rate "
                f"(IQM {float(best['iqm']):.2f}, interval "
                f"[{float(best['low']):.2f}, {float(best['high']):.2f}], "
                f"{best['runs']} runs) is {relation} {other['agent']}'s "
                f"({float(other['iqm']):.2f}, [{float(other['low']):.2f}, "
                f"{float(other['high']):.2f}], {other['runs']} runs)"
                + (': the intervals overlap.' if overlap else '.'))
    return ' '.join(sentences)


GENERATORS = {
    'success-comparison': success_comparison,
    'success-rates': success_rates,
    'success-by-step': success_by_step,
}
