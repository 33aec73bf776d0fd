"""The hard-task suite's runs beside MR.Q's published curves
(benchmarks/results/published_curves/mrq.csv, written by
benchmarks/published_curves.py from its authors' result files):

- ``against-published SUITE [every=N]``: per task and agent, the
  evaluation return (mean over the runs that reached it, and how many)
  every N steps (50,000 by default) up to the furthest any run reached,
  with MR.Q's mean over its 10 seeds at the same step count.
- ``critics-trace RUN:LABEL[,RUN:LABEL...] [start=N]``: each committed
  run's evaluation return, mean Q value, critics' and policy's losses and
  temperature at every row of its progress.csv from N steps on (RUN: a
  trial's folder under benchmarks/results), for reading where critics
  diverge. A peer's run has no mean Q value, and its losses are the last
  update's (ours are the epoch's means); with a small temperature the
  policy's loss is about minus the critics' value of its actions.
"""

import csv
import os

from markdown_table import table

DOCS = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(os.path.dirname(DOCS), 'benchmarks', 'results')
PUBLISHED = os.path.join(RESULTS, 'published_curves', 'mrq.csv')
EVERY = 50000


def _short(task):
    return task.replace('gym/', '').replace('dm_control/', '').replace(
        '/', '-')


def published_curve(task):
    """{steps: MR.Q's mean return} of one of our benchmark environments."""
    with open(PUBLISHED) as f:
        return {int(row['steps']): float(row['mean'])
                for row in csv.DictReader(f) if row['environment'] == task}


def _return_at(run, step):
    """The run's evaluation return at ``step`` (None if it has none)."""
    for steps, value in zip(run.steps, run.returns):
        if int(steps) == step:
            return float(value)
    return None


def against_published(here, suite, every=EVERY):
    from generated_tables import NO_RUNS, _runs
    runs = _runs(suite)
    if not runs:
        return NO_RUNS.format(suite=suite)
    rows = []
    for task in sorted({run.task for run in runs}):
        mine = [run for run in runs if run.task == task]
        reference = published_curve(task)
        furthest = max(int(run.step) for run in mine)
        for step in range(int(every), furthest + 1, int(every)):
            row = [_short(task), f'{step // 1000:,}k']
            for agent in sorted({run.agent for run in runs}):
                values = [value for value in (
                    _return_at(run, step) for run in mine
                    if run.agent == agent) if value is not None]
                row.append(f'{sum(values) / len(values):,.0f} '
                           f'({len(values)})' if values else '')
            row.append(f'{reference[step]:,.0f}' if step in reference
                       else '')
            rows.append(row)
    agents = [str(agent) for agent in sorted({run.agent for run in runs})]
    return ('Evaluation return at each step count (mean over the runs that '
            'reached it; how many in brackets), beside MR.Q\'s published '
            'mean over 10 seeds.\n\n'
            + table(['task', 'steps', *agents, 'MR.Q (published)'], rows,
                    ['---', '---:'] + ['---:'] * (len(agents) + 1)))


# progress.csv's columns, as the trace names them.
TRACE = {'evaluation': 'evaluation/return-mean', 'mean Q': 'Q_value-mean',
         "critics' loss": 'Q_loss', "policy's loss": 'policy_loss',
         'temperature': 'alpha'}


def _trace_cell(name, value):
    if value in (None, ''):
        return ''  # a peer's run records no critics' diagnostics
    value = float(value)
    if name == 'temperature' or 0 < abs(value) < 0.1:
        return f'{value:.2g}'  # (a loss of 0.0017 is not 0.00)
    return f'{value:,.2f}' if abs(value) < 10 else f'{value:,.1f}'


def critics_trace(here, runs, start='0'):
    """See the module's docstring."""
    header, traces = ['steps'], []
    for run, label in (item.split(':') for item in runs.split(',')):
        with open(os.path.join(RESULTS, run, 'progress.csv')) as f:
            traces.append({
                int(row['total_timestep']): [
                    _trace_cell(name, row.get(key))
                    for name, key in TRACE.items()]
                for row in csv.DictReader(f)
                if int(row['total_timestep']) >= int(start)})
        header += [f'{label}: {name}' for name in TRACE]
    steps = sorted({step for trace in traces for step in trace})
    body = [[f'{step // 1000:,}k'] + [
        cell for trace in traces
        for cell in trace.get(step, [''] * len(TRACE))] for step in steps]
    return ("From the committed runs' progress.csv: the evaluation return, "
            "the mean Q value of a minibatch, the critics' and the "
            "policy's losses and the temperature.\n\n"
            + table(header, body, ['---:'] * len(header)))


GENERATORS = {'against-published': against_published,
              'critics-trace': critics_trace}
