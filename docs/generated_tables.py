"""The documentation's generated tables (see hooks.py). Each generator
takes the folder of the page that asks for it (for relative links) and the
marker's arguments, and returns Markdown."""

import argparse
import contextlib
import csv
import functools
import glob
import importlib
import io
import json
import os
import posixpath
import re
import sys

# (docs/, beside this file)
import error_catalogue
import examples_page
import frontier_figures
from markdown_table import table as _table
import result_sentences
import precision_figures
import success_figures
import vector_figures

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
RESULTS = os.path.join(ROOT, 'benchmarks', 'results')

# The environment the hyperparameter tables resolve presets for.
DEFAULT_ENVIRONMENT = 'gym/HalfCheetah/v5'

# The families of variant entries a hyperparameter table shows.
TABLE_FAMILIES = ('algorithm_params', 'policy_params', 'Q_params',
                  'encoder_params', 'replay_pool_params', 'sampler_params',
                  'exploration_policy_params', 'environment_params.training.pixels')

# Benchmark suites: the results folders (globs under benchmarks/results)
# their committed report was written from, and the step it scores at (None:
# each run's planned length), as in the report's command line.
SUITES = {
    'mujoco_100k': {'runs': ['mujoco_100k/*/*'], 'steps': None},
    'sac_family_50k': {'runs': ['sac_family_50k/*/*',
                                'mujoco_100k/*/*SAC-HalfCheetah-v5-seed[012]',
                                'mujoco_100k/*/*SAC-Hopper-v5-seed[012]'],
                       'steps': 50000},
    'tqc_50k': {'runs': ['tqc_50k/*/*'], 'steps': None},
    # CrossQ's Hopper cell with one thing changed per ablation suite; the
    # report lives in crossq_hopper_ablations/report.
    'crossq_hopper_ablations': {
        'runs': ['sac_family_50k/*/*CrossQ-Hopper-v5-seed[012]',
                 'crossq_hopper_lecun_init/*/*', 'crossq_hopper_per_step/*/*',
                 'crossq_hopper_fused_5/*/*'],
        'steps': 50000},
    # SAC's mujoco_100k runs of the same seeds stand beside the frontier.
    'frontier_100k': {'runs': ['frontier_100k/*/*',
                               'mujoco_100k/softlearning/SAC-*-seed[012]'],
                      'steps': 100000},
    # One update per step against the fused preset, on the cells run so far.
    'frontier_crossq_per_step': {
        'runs': ['frontier_crossq_per_step/*/*',
                 'frontier_100k/*/*CrossQ-Hopper-v5-seed[012]'],
        'steps': 100000},
    # Per-hour: each run scored at the end of its training budget.
    'per_hour_selection': {'runs': ['per_hour_selection/*/*'], 'steps': None},
    'per_hour_fast': {'runs': ['per_hour_fast/*/*'], 'steps': None},
    'per_hour_fast_scored': {'runs': ['per_hour_fast_scored/*/*'],
                             'steps': None},
    # FastTD3's per-hour HalfCheetah run on the authors' support, +-250.
    'fasttd3_support_250': {'runs': ['fasttd3_support_250/*/*'],
                            'steps': None},
    'per_hour': {'runs': ['per_hour/*/*'], 'steps': None},
    'fetch_her': {'runs': ['fetch_her/*/*'], 'steps': None},
    'fetch_her_reach': {'runs': ['fetch_her_reach/*/*'], 'steps': None},
    'fetch_her_300k': {'runs': ['fetch_her_300k/*/*'], 'steps': None},
    # CrossQ and TQC on FetchPush, seed 10 (TQC stopped at 45,000 steps).
    'fetch_push_agents': {'runs': ['fetch_push_agents/*/*'], 'steps': None},
    'frontier_hard': {'runs': ['frontier_hard/*/*'], 'steps': None},
    # dog-run's runs made before the log-probability fix (AVX-512 machine
    # type); the suite's dog-run runs were made again after it (AVX2).
    'frontier_hard_dog_before_fix': {
        'runs': ['frontier_hard_dog_before_fix/*/*'], 'steps': None},
    # Humanoid's runs made before the log-probability fix (AVX-512 machine
    # type, under XLA); the suite's Humanoid pairs were made again after it
    # (AVX2).
    'frontier_hard_humanoid_before_fix': {
        'runs': ['frontier_hard_humanoid_before_fix/*/*'], 'steps': None},
    # Humanoid, 200,000 steps, seeds of their own: the preset and ablations.
    'crossq_humanoid_200k': {'runs': ['crossq_humanoid_200k/*/*',
                                      'crossq_humanoid_renorm_warmup/*/*',
                                      'crossq_humanoid_per_step/*/*',
                                      'crossq_humanoid_log_alpha/*/*'],
                             'steps': None},
    'per_hour_equal_sizes': {'runs': ['per_hour_equal_sizes/*/*'],
                             'steps': None},
    # SAC with 1024-wide critics in float32 and in bfloat16, same seeds:
    # both halves are this comparison's own runs (their costs are its own).
    'sac_halfcheetah_1024': {'runs': ['sac_halfcheetah_1024/*/*',
                                      'sac_halfcheetah_1024_bfloat16/*/*'],
                             'steps': 50000,
                             'own': ['sac_halfcheetah_1024',
                                     'sac_halfcheetah_1024_bfloat16']},
    'droq_20k': {'runs': ['droq_20k/*/*',
                          'mujoco_100k/*/*SAC-HalfCheetah-v5-seed[012]',
                          'mujoco_100k/*/*SAC-Hopper-v5-seed[012]'],
                 'steps': 20000},
}


def registry():
    from softlearning.algorithms import ALGORITHMS
    return ALGORITHMS


def algorithm_page(name):
    from softlearning.algorithms import page
    return page(name)


def algorithms_without_pages(docs_dir):
    return [(name, algorithm_page(name)) for name in registry()
            if not os.path.exists(os.path.join(docs_dir, algorithm_page(name)))]


def _link(here, path):
    return posixpath.relpath(path, here or '.')


def _first_sentence(text):
    text = ' '.join((text or '').split())
    # "et al. 2018" and "e.g. x" do not end a sentence.
    first = re.split(r'(?<!\bal)(?<!e\.g)(?<!i\.e)\.\s', text)[0]
    return first.rstrip('.') + '.' if text else ''


def algorithms_table(here):
    """Every registered algorithm: its page, its update class, its preset's
    default policy and summary."""
    from softlearning.algorithms import preset_of
    from softlearning.experiments.config import presets
    rows = []
    for name, entry in registry().items():
        module, _, cls = entry['class'].partition(':')
        preset = presets.get(name)
        source = module.replace('.', '/') + '.py'
        base = preset_of(name)
        rows.append([f'[{name}]({_link(here, algorithm_page(name))})'
                     + (f' (a {base} preset)' if base else ''),
                     f'`--algorithm {name}`', f'`{cls}` ({source})',
                     f'`{preset.POLICIES[0]}`',
                     _first_sentence(preset.__doc__)])
    return _table(['algorithm', 'option', 'update', 'policy', 'preset'], rows)


def _flatten(tree, prefix=''):
    flat = {}
    for key, value in tree.items():
        path = f'{prefix}{key}'
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, path + '.'))
        else:
            flat[path] = value
    return flat


def _format(value):
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(_format(v) for v in value) + ']'
    if isinstance(value, float):
        return f'{value:g}'
    if isinstance(value, dict):  # as --config KEY=VALUE takes it: JSON
        return '{' + ', '.join(f'{json.dumps(str(k))}: {_format(v)}'
                               for k, v in value.items()) + '}'
    return json.dumps(value) if isinstance(value, (str, type(None), bool)) else str(value)


@functools.lru_cache(maxsize=None)
def _variant(algorithm, environment, options):
    from softlearning import experiments
    universe, domain, task = environment.split('/')
    # Its notices (e.g. pixels' sampler actors) are for a run, not a page.
    with contextlib.redirect_stderr(io.StringIO()):
        return experiments.variant_spec(
            algorithm=algorithm, universe=universe, domain=domain, task=task,
            **dict(options))


def _preset_sources(algorithm, environment, options):
    """{dotted key: the preset file (and domain) that set it}, the last
    writer winning, in the order variants.preset_variant applies them."""
    from softlearning.experiments.config import presets
    from softlearning.experiments.config.presets import common
    universe, domain, _ = environment.split('/')
    preset = presets.get(algorithm)
    forms = [name for name, wanted in (
        ('recurrent', options.get('policy') == 'recurrent'),
        ('pixels', options.get('observation') == 'pixels')) if wanted]
    modules = [('common.py', common), (f'{preset.__name__.rsplit(".", 1)[1]}.py', preset)]
    modules += [(f'{name}.py', presets.form(name)) for name in forms]
    sources = {}
    for filename, module in modules:
        variant = (module.variant(algorithm) if hasattr(module, 'variant')
                   else getattr(module, 'VARIANT', {}))
        for key in _flatten(variant):
            sources[key] = f'`presets/{filename}`'
    for filename, module in modules:
        overrides = getattr(module, 'DOMAINS', {})
        for scope in (universe, f'{universe}/{domain}'):
            for key in overrides.get(scope, {}):
                sources[key] = f"`presets/{filename}` (`'{scope}'`)"
    return sources


def hyperparameters(here, algorithm, environment=DEFAULT_ENVIRONMENT, **options):
    """The resolved variant of ``--algorithm ALGORITHM`` (and options such
    as policy=recurrent, observation=pixels, network=simba, n_step=3) on one
    environment: each entry, its value, and which preset set it."""
    from softlearning.experiments.config.config_keys import (
        constructor_defaults)
    if 'n_step' in options:
        options['n_step'] = int(options['n_step'])
    key = tuple(sorted(options.items()))
    variant = _variant(algorithm, environment, key)
    defaults = constructor_defaults(variant)
    sources = _preset_sources(algorithm, environment, options)
    rows = []
    for family in TABLE_FAMILIES:
        node = variant
        for part in family.split('.'):
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        for entry, value in _flatten(node, family + '.').items():
            if entry in sources:
                source = sources[entry]
            elif entry in defaults and defaults[entry] == value:
                source = 'constructor default'
            else:
                source = 'derived from the others'
            rows.append([f'`{entry}`', f'`{_format(value)}`', source])
    command = ' '.join([f'--algorithm {algorithm}'] + [
        f"--{name.replace('_', '-')} {value}" for name, value in key])
    universe, domain, task = environment.split('/')
    return (f'`{command} --universe {universe} --domain {domain} --task {task}` '
            'resolves to these settings; each is a `--config KEY=VALUE` '
            '(the key as in the first column).\n\n'
            + _table(['entry', 'value', 'set by'], rows))


def domain_overrides(here, algorithm):
    """The algorithm's preset's per-universe/domain overrides."""
    from softlearning.experiments.config import presets
    preset = presets.get(algorithm)
    rows = [[f'`{scope}`', f'`{key}`', f'`{_format(value)}`']
            for scope, overrides in getattr(preset, 'DOMAINS', {}).items()
            for key, value in overrides.items()]
    if not rows:
        return f'The {algorithm} preset has no per-domain overrides.'
    return _table(['universe/domain', 'entry', 'value'], rows)


def options_reference(here):
    """Every option of ``softlearning run_example_* examples.development``,
    by group, from the parser the commands use."""
    from softlearning.cli.options import get_parser
    parser = get_parser()
    formatter = parser._get_formatter()  # expands %(default)s as --help does
    sections = []
    for group in parser._action_groups:
        rows = []
        for action in group._group_actions:
            if isinstance(action, argparse._HelpAction) or not action.option_strings:
                continue
            flags = ', '.join(f'`{flag}`' for flag in action.option_strings)
            choices = (', '.join(f'`{c}`' for c in action.choices)
                       if action.choices else '')
            default = ('' if action.default in (None, argparse.SUPPRESS)
                       else f'`{_format(action.default)}`')
            text = (formatter._expand_help(action) if action.help else '')
            # Table cells: no pipes, and brackets that are not links.
            text = (text.replace('|', '\\|').replace('\n', ' ')
                    .replace('[', '\\[').replace(']', '\\]'))
            rows.append([flags, choices, default, text])
        if rows:
            sections.append(f'## {group.title.capitalize()}\n\n'
                            + _table(['option', 'choices', 'default', 'meaning'], rows))
    return '\n\n'.join(sections)


def _report_csv(suite, name):
    with open(os.path.join(RESULTS, suite, 'report', name)) as f:
        return list(csv.DictReader(f))


def _interval(row, key='value'):
    return f"{float(row[key]):.3f} [{float(row['low']):.3f}, {float(row['high']):.3f}]"


def aggregates(here, suite, metrics='IQM,median,mean,optimality gap'):
    """A suite's aggregate metrics, from its committed report/aggregates.csv."""
    metrics = metrics.split(',')
    by_agent = {}
    for row in _report_csv(suite, 'aggregates.csv'):
        by_agent.setdefault(row['agent'], {'runs': row['runs'], 'tasks': row['tasks']})
        by_agent[row['agent']][row['metric']] = _interval(row)
    rows = [[agent] + [cells.get(m, '') for m in metrics] + [cells['runs'], cells['tasks']]
            for agent, cells in sorted(by_agent.items())]
    return _table(['agent', *metrics, 'runs', 'tasks'], rows,
                  ['---'] + ['---:'] * (len(metrics) + 2))


def improvement(here, suite):
    """A suite's probabilities of improvement, from report/improvement.csv."""
    rows = [[row['x'], row['y'], _interval(row, 'probability'),
             row['tasks'].replace(' ', ', ')]
            for row in _report_csv(suite, 'improvement.csv')]
    return _table(['X', 'Y', 'P(X > Y)', 'tasks'], rows, ['---', '---', '---:', '---'])


@functools.lru_cache(maxsize=None)
def suite_folders(suite):
    """The committed trial folders of ``suite`` (SUITES' globs)."""
    return sorted(path for pattern in SUITES[suite]['runs']
                  for path in glob.glob(os.path.join(RESULTS, pattern))
                  if os.path.isdir(path))


def _runs(suite):
    from softlearning.analysis import load_trials
    from softlearning.analysis.benchmark_runs import collect_runs
    folders = suite_folders(suite)
    if not folders:  # a suite under way
        return []
    runs, _ = collect_runs(load_trials(folders), SUITES[suite]['steps'])
    return runs


# A suite under way, none of whose runs is committed yet.
NO_RUNS = "*No runs of `{suite}` are committed yet.*"


def final_returns(here, suite):
    """Per task and agent: the final evaluation return, mean ± std over
    seeds (numpy's, ddof 0), and each seed's, from the committed runs."""
    import numpy as np
    runs = _runs(suite)
    if not runs:
        return NO_RUNS.format(suite=suite)
    agents = sorted({run.agent for run in runs})
    tasks = sorted({run.task for run in runs})
    all_seeds = {str(run.seed) for run in runs}
    rows = []
    # Returns of a few tens (the Fetch tasks') keep a decimal.
    digits = 1 if max(abs(run.final_return) for run in runs) < 100 else 0
    for task in tasks:
        row = [task.replace('gym/', '').replace('/', '-')]
        for agent in agents:
            mine = sorted((run for run in runs if run.agent == agent and run.task == task),
                          key=lambda run: str(run.seed))
            values = np.array([run.final_return for run in mine])
            # A per-hour run's steps in its budget say what it could afford.
            # A cell short of some seeds (a suite under way) names its own.
            named = {str(run.seed) for run in mine} != all_seeds
            seeds = [(f'seed {run.seed}: ' if named else '')
                     + f'{run.final_return:,.{digits}f}' + (
                f' at {run.step / 1000:,.0f}k' if run.budget_minutes else '')
                for run in mine]
            row.append(f"{values.mean():,.{digits}f} ± "
                       f"{values.std():,.{digits}f} ("
                       + ', '.join(seeds) + ')' if len(values) else '')
        rows.append(row)
    steps = SUITES[suite]['steps']
    budgets = {run.budget_minutes for run in runs} - {None}
    if budgets:
        scored = ('at the end of each run\'s budget of '
                  + ', '.join(f'{m:g}' for m in sorted(budgets))
                  + ' minutes of training (steps reached: k, thousands)')
    else:
        scored = (f'at {steps:,} steps' if steps
                  else "at each run's planned length")
    return (f'Final evaluation return {scored}: mean ± std over seeds '
            '(each seed\'s in brackets, by seed).\n\n'
            + _table(['task', *agents], rows, ['---'] + ['---:'] * len(agents)))


def run_costs(here, suite):
    """Per agent, task and CPU: each run's seconds (``time_total_s`` of its
    last row, evaluations included) and its median steps a second over the
    epochs after warm-up, from the committed progress.csv files of the
    suite's own runs (its folder, or the folders its ``own`` names; not
    runs borrowed from other suites)."""
    import pandas as pd
    groups = {}
    own = tuple(os.path.join(RESULTS, folder, '')
                for folder in SUITES[suite].get('own', [suite]))
    for run in (run for run in _runs(suite) if run.path.startswith(own)):
        progress = pd.read_csv(os.path.join(run.path, 'progress.csv'))
        with open(os.path.join(run.path, 'params.json')) as f:
            warmup = json.load(f)['benchmark']['warmup_steps']
        cpus = progress['cpu'].dropna().unique() if 'cpu' in progress else []
        cpu = ', '.join(sorted(cpus)) or 'not recorded'
        warm = progress[progress['total_timestep'] > warmup]
        groups.setdefault((str(run.agent), run.task, cpu), []).append(
            (str(run.seed), progress['time_total_s'].iloc[-1],
             warm['timesteps_per_second'].median()))
    if not groups:
        return NO_RUNS.format(suite=suite)
    rows = []
    for (agent, task, cpu), runs in sorted(groups.items()):
        runs.sort()
        rows.append([agent, task.replace('gym/', '').replace('/', '-'), cpu,
                     ', '.join(seed for seed, _, _ in runs),
                     ', '.join(f'{seconds:,.0f}' for _, seconds, _ in runs),
                     ', '.join(f'{rate:.0f}' for _, _, rate in runs)])
    return _table(['agent', 'task', 'CPU', 'seeds', 'seconds per run',
                   'env steps/s (median epoch)'], rows,
                  ['---', '---', '---', '---', '---:', '---:'])


def report_link(here, suite):
    return (f"The full report: `benchmarks/results/{suite}/report/report.md` "
            "(all metrics, per-task tables, curves and profiles).")


def calibration(here):
    """The learning tests' calibration (``tests/calibrate_learning.py
    --report --markdown``)."""
    sys.path.insert(0, os.path.join(ROOT, 'tests'))
    calibrate_learning = importlib.import_module('calibrate_learning')
    return calibrate_learning.markdown(calibrate_learning.load())


GENERATORS = {
    'algorithms': algorithms_table,
    'hyperparameters': hyperparameters,
    'domain-overrides': domain_overrides,
    'options': options_reference,
    'aggregates': aggregates,
    'improvement': improvement,
    'final-returns': final_returns,
    'run-costs': run_costs,
    'report-link': report_link,
    'calibration': calibration,
    # The troubleshooting page's errors and the examples page's folders.
    'errors': lambda here: error_catalogue.markdown(here),
    'examples': lambda here: examples_page.markdown(here),
}
# Speed tables and the results said in sentences (result_sentences.py), the
# figures of K environments per sampler (vector_figures.py) and of bfloat16
# (precision_figures.py).
GENERATORS.update(result_sentences.GENERATORS)
GENERATORS.update(vector_figures.GENERATORS)
GENERATORS.update(precision_figures.GENERATORS)
GENERATORS.update(success_figures.GENERATORS)
GENERATORS.update(frontier_figures.GENERATORS)
