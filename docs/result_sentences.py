"""Results said in sentences, generated from the committed results, so that
the README's and the pages' claims say what the measurements say:

- ``speed``: the pinned side-by-side measurements of
  ``benchmarks/results/speed/*.jsonl`` (``compare_peers.py --side-by-side
  --record``), one row per pair, with the CPU they ran on;
- ``speed-summary``: those ratios in one sentence per CPU;
- ``crossq-comparison SUITE``: our CrossQ against SBX's in a suite, in
  one sentence (the word from the intervals, the steps each took);
- ``headline``: the README's results paragraph: our CrossQ against SBX's
  at 100,000 steps and per 30 minutes of training, with the comparison
  word chosen from the intervals ("level with" where they overlap);
- ``iqm-against SUITE AGENT OTHER...``: one agent's IQM against others'
  in a suite (the word from the intervals), with the steps its runs took;
- ``last-evaluations SUITE [n=5] [agent=NAME]``: how much each committed
  run swings at its end (the mean, lowest and highest of its last n
  evaluations), where a final score is one evaluation;
- ``returns-at SUITE STEP``: each committed run's evaluation at STEP;
- ``calibration-curves CASE ...``: the learning tests' calibrated runs
  (tests/calibration/learning.json), the median over seeds per epoch.

``python docs/result_sentences.py`` writes the README's generated blocks
(between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``);
tests/test_claims.py checks that they are up to date.
"""

import glob
import json
import os
import re
import statistics
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
RESULTS = os.path.join(ROOT, 'benchmarks', 'results')
SPEED = os.path.join(RESULTS, 'speed')
README = os.path.join(ROOT, 'README.md')
END = '<!-- end generated -->'

PEER_NAMES = {'sbx': 'SBX', 'sb3': 'SB3'}
# Pairs that are not the same agent on both sides (compare_peers.py).
NOT_THE_SAME = {
    'SimbaV2': " (SAC with SimBa networks: SBX has no SimbaV2)",
    'categorical': " (our SAC with categorical critics, SBX's scalar ones)",
}


def speed_records():
    """The side-by-side measurements, oldest first."""
    records = []
    for path in sorted(glob.glob(os.path.join(SPEED, '*.jsonl'))):
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return [record for record in records if record.get('side_by_side')]


def _peers(record):
    return [library for library in PEER_NAMES
            if record.get(f'softlearning_over_{library}')]


def speed(here):
    rows = []
    for record in speed_records():
        for library in _peers(record):
            rows.append([
                record['algorithm'], record['cpu'],
                f"{record['softlearning']:.1f}", f"{record[library]:.1f}",
                PEER_NAMES[library],
                f"{record[f'softlearning_over_{library}']:.2f}x",
                record['date']])
    header = ['agent', 'CPU', 'softlearning', 'peer', 'peer library',
              'ratio', 'measured']
    lines = ['| ' + ' | '.join(header) + ' |',
             '| --- | --- | ---: | ---: | --- | ---: | --- |']
    lines += ['| ' + ' | '.join(row) + ' |' for row in rows]
    if not rows:
        lines.append('\nNo side-by-side measurement is committed yet.')
    return ('Env steps/s, pinned side by side (one CPU thread each, the two '
            'libraries at the same time on cores of their own; '
            '`compare_peers.py --side-by-side`), from '
            '`benchmarks/results/speed/`:\n\n' + '\n'.join(lines))


def _ratio_range(values):
    low, high = min(values), max(values)
    return f'{low:.2f}x' if low == high else f'{low:.2f}-{high:.2f}x'


def speed_summary(here=''):
    """One sentence per CPU: each agent's ratio against each peer (a range
    where it was measured more than once)."""
    by_cpu = {}
    for record in speed_records():
        for library in _peers(record):
            by_cpu.setdefault(record['cpu'], {}).setdefault(
                (record['algorithm'], library), []).append(
                record[f'softlearning_over_{library}'])
    sentences = []
    for cpu, ratios in by_cpu.items():
        parts = [f"{algorithm} {_ratio_range(values)} "
                 f"{PEER_NAMES[library]}'s{NOT_THE_SAME.get(algorithm, '')}"
                 for (algorithm, library), values in ratios.items()]
        sentences.append(
            f"on an {cpu}, pinned side by side (one core each), "
            "softlearning's env steps/s were " + ', '.join(parts))
    if not sentences:
        return 'no side-by-side speed measurement is committed yet'
    return '; '.join(sentences)


def _generated_tables():
    """generated_tables.py (which imports this module: imported here,
    when first needed), for the committed runs and reports it reads."""
    if DOCS not in sys.path:
        sys.path.insert(0, DOCS)
    import generated_tables
    return generated_tables


def _report_rows(suite, name):
    return _generated_tables()._report_csv(suite, name)


def _iqm(suite, agent):
    for row in _report_rows(suite, 'aggregates.csv'):
        if row['agent'] == agent and row['metric'] == 'IQM':
            return {key: float(row[key]) for key in ('value', 'low', 'high')}
    raise KeyError(f'{suite}: no IQM of {agent!r}')


def _interval(figure):
    return (f"{figure['value']:.3f} [{figure['low']:.3f}, "
            f"{figure['high']:.3f}]")


def _improvement(suite, x, y):
    for row in _report_rows(suite, 'improvement.csv'):
        if (row['x'], row['y']) == (x, y):
            return {'value': float(row['probability']),
                    'low': float(row['low']), 'high': float(row['high'])}
    raise KeyError(f'{suite}: no P({x} > {y})')


def compared(ours, theirs):
    """The word for two intervals: 'level with' where they overlap."""
    if ours['low'] > theirs['high']:
        return 'above'
    if ours['high'] < theirs['low']:
        return 'below'
    return 'level with'


def _crossq_against_sbx(suite):
    ours = _iqm(suite, 'softlearning CrossQ')
    theirs = _iqm(suite, 'sbx CrossQ')
    better = _improvement(suite, 'softlearning CrossQ', 'sbx CrossQ')
    return ours, theirs, better


def headline(here=''):
    from softlearning.experiments.config.presets.crossq import CRITIC_WIDTH
    width = f'{CRITIC_WIDTH}-{CRITIC_WIDTH}'
    ours, theirs, better = _crossq_against_sbx('frontier_100k')
    sac = _iqm('frontier_100k', 'softlearning SAC')
    hour_ours, hour_theirs, hour_better = _crossq_against_sbx('per_hour')
    equal_ours, equal_theirs, equal_better = _crossq_against_sbx(
        'per_hour_equal_sizes')
    return (
        f"At 100,000 steps, our CrossQ is {compared(ours, theirs)} SBX's "
        f"CrossQ at the same sizes (critics {width}): IQM "
        f"{_interval(ours)} against {_interval(theirs)}, "
        f"P(ours > SBX's) = {_interval(better)}; it is "
        f"{ours['value'] / sac['value']:.1f} times our SAC's IQM "
        f"({_interval(sac)}) ([the frontier]"
        f"(docs/benchmarks/frontier-100k.md), with SimbaV2). Trained for 30 "
        f"minutes on one CPU core, our CrossQ (critics {width}) is "
        f"{compared(hour_ours, hour_theirs)} SBX's CrossQ at SBX's defaults "
        f"(critics 1024-1024; {_steps_ratio('per_hour')} times fewer steps "
        "in the budget): "
        f"{_interval(hour_ours)} against {_interval(hour_theirs)}, "
        f"P(ours > SBX's) = {_interval(hour_better)}; at our sizes "
        f"(critics {width} on both sides), it is "
        f"{compared(equal_ours, equal_theirs)} SBX's: "
        f"{_interval(equal_ours)} against {_interval(equal_theirs)}, "
        f"P(ours > SBX's) = {_interval(equal_better)} ([return per "
        "CPU-hour](docs/benchmarks/per-hour.md)). Speed: "
        f"{speed_summary()} ([performance](docs/benchmarks/performance.md)).")


def _steps(suite, agent):
    """The step of each committed run's final score, of ``agent``'s runs
    (its report name, e.g. 'sbx CrossQ') in ``suite``."""
    return [run.step for run in _generated_tables()._runs(suite)
            if run.agent == agent]


def _crossq_steps(suite):
    """{library: _steps of its CrossQ runs}, ours and SBX's."""
    return {library: _steps(suite, f'{library} CrossQ')
            for library in ('softlearning', 'sbx')}


def _steps_ratio(suite):
    """How many times more steps our runs took in their budget than the
    peer's, over the suite's committed runs."""
    mean = {library: sum(v) / len(v)
            for library, v in _crossq_steps(suite).items()}
    return f"{mean['softlearning'] / mean['sbx']:.0f}"


def _suite_cells(suite, agent=None):
    """{(task, agent): runs by seed} of a suite's committed runs."""
    cells = {}
    for run in _generated_tables()._runs(suite):
        if agent in (None, run.agent):
            cells.setdefault((run.task, run.agent), []).append(run)
    return {key: sorted(runs, key=lambda run: str(run.seed))
            for key, runs in sorted(cells.items())}


def _per_seed_table(cells, cell):
    seeds = sorted({str(run.seed) for runs in cells.values() for run in runs})
    rows = []
    for (task, agent), runs in cells.items():
        by_seed = {str(run.seed): cell(run) for run in runs}
        rows.append([task.replace('gym/', '').replace('/', '-'), agent]
                    + [by_seed.get(seed, '') for seed in seeds])
    lines = ['| task | agent | ' + ' | '.join(f'seed {s}' for s in seeds)
             + ' |', '| --- | --- |' + ' ---: |' * len(seeds)]
    return '\n'.join(lines + ['| ' + ' | '.join(row) + ' |' for row in rows])


def last_evaluations(here, suite, n='5', agent=None):
    """Each run's last ``n`` evaluations: their mean, then their lowest and
    highest, from the committed runs."""
    n = int(n)
    cells = _suite_cells(suite, agent)
    spans = {(int(run.steps[-n:][0]), int(run.steps[-1]))
             for runs in cells.values() for run in runs}
    span = (' ({:,} to {:,} steps)'.format(*spans.pop())
            if len(spans) == 1 else '')
    table = _per_seed_table(cells, lambda run: (
        f'{run.returns[-n:].mean():,.0f} ({run.returns[-n:].min():,.0f} '
        f'to {run.returns[-n:].max():,.0f})'))
    return (f"Each run's last {n} evaluations{span}: their mean (lowest to "
            "highest), from the committed runs.\n\n" + table)


def returns_at(here, suite, step):
    """Each run's evaluation at ``step`` steps, from the committed runs."""
    step = int(step)
    cells = _suite_cells(suite)

    def at(run):
        found = [r for s, r in zip(run.steps, run.returns) if int(s) == step]
        return f'{found[0]:,.0f}' if found else ''
    return (f'Evaluation return at {step:,} steps, from the committed '
            'runs.\n\n' + _per_seed_table(cells, at))


def calibration_curves(here, *cases):
    """The median evaluation return over a calibrated case's seeds after
    each epoch of 1,000 steps (tests/calibration/learning.json)."""
    with open(os.path.join(ROOT, 'tests', 'calibration',
                           'learning.json')) as f:
        calibration = json.load(f)
    curves = {case: [run['returns'] for run in
                     calibration[case]['seeds'].values()] for case in cases}
    epochs = max(len(r) for runs in curves.values() for r in runs)
    rows = []
    for case, runs in curves.items():
        medians = []
        for epoch in range(epochs):
            at = [r[epoch] for r in runs if len(r) > epoch]
            medians.append(f'{statistics.median(at):.0f}' if at else '')
        rows.append(f'| {case} | {len(runs)} | ' + ' | '.join(medians) + ' |')
    header = ('| case | seeds | ' + ' | '.join(
        f'{epoch + 1}k' for epoch in range(epochs)) + ' |\n| --- | ---: |'
        + ' ---: |' * epochs)
    return ('Median evaluation return over the calibrated seeds after each '
            '1,000 steps (`tests/calibration/learning.json`, written by '
            '`python tests/calibrate_learning.py`):\n\n' + header + '\n'
            + '\n'.join(rows))


def crossq_comparison(here, suite):
    """One sentence: our CrossQ against SBX's in ``suite``, the word chosen
    from the IQM intervals, and the steps each library's runs reached."""
    ours, theirs, better = _crossq_against_sbx(suite)
    spans = {library: f"{min(v):,}-{max(v):,}"
             for library, v in _crossq_steps(suite).items()}
    return (f"Our CrossQ's IQM is {compared(ours, theirs)} SBX's: "
            f"{_interval(ours)} against {_interval(theirs)}, and a run of "
            f"ours scores above a run of SBX's on the same task with "
            f"probability {_interval(better)}. The runs took "
            f"{spans['softlearning']} steps (ours) and {spans['sbx']} "
            "(SBX's) in their budgets.")


def iqm_against(here, suite, agent, *others):
    """One sentence: ``agent``'s IQM in ``suite`` against each of
    ``others``' (report names, e.g. 'sbx CrossQ'), the word chosen from the
    intervals, and the steps its runs reached in their budgets."""
    ours = _iqm(suite, agent)
    theirs = {other: _iqm(suite, other) for other in others}
    words = [f"{compared(ours, figure)} {other}'s ({_interval(figure)})"
             for other, figure in theirs.items()]
    steps = _steps(suite, agent)
    return (f"{agent}'s IQM, {_interval(ours)}, is " + ', and '.join(words)
            + f"; its runs took {min(steps):,}-{max(steps):,} steps in their "
            "budgets.")


GENERATORS = {
    'crossq-comparison': crossq_comparison,
    'iqm-against': iqm_against,
    'speed': speed,
    'speed-summary': speed_summary,
    'headline': headline,
    'last-evaluations': last_evaluations,
    'returns-at': returns_at,
    'calibration-curves': calibration_curves,
}


def readme_blocks(text):
    """(name, start, end) of each generated block of ``text``: the marker
    line ``<!-- generated: NAME -->``, then its text up to ``END``."""
    pattern = re.compile(r'^<!-- generated: ([\w-]+) -->\n(.*?)^'
                         + re.escape(END) + '$', re.S | re.M)
    return [(m.group(1), m.start(2), m.end(2)) for m in pattern.finditer(text)]


def wrapped(text, width=100):
    """Markdown prose folded at ``width`` (links and words kept whole)."""
    import textwrap
    return '\n'.join(textwrap.wrap(text, width, break_long_words=False,
                                   break_on_hyphens=False))


def render_readme(text):
    """``text`` (the README) with every generated block written anew."""
    for name, start, end in reversed(readme_blocks(text)):
        text = text[:start] + wrapped(GENERATORS[name]('')) + '\n' + text[end:]
    return text


if __name__ == '__main__':
    sys.path.insert(0, ROOT)
    with open(README) as f:
        before = f.read()
    after = render_readme(before)
    with open(README, 'w') as f:
        f.write(after)
    print('README.md: ' + ('rewritten' if after != before else 'up to date'))
