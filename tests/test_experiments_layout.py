"""softlearning.experiments in rooms by job: each sub-package imports only
the ones below it (config, trial, cluster, tune, benchmark, in that order),
and the top level holds the public API only. And the package's modules stay
small enough to read whole."""

import os
import re

from conftest import REPO_ROOT

PACKAGE = os.path.join(REPO_ROOT, 'softlearning')
EXPERIMENTS = os.path.join(PACKAGE, 'experiments')
# The most lines a module of the package may have: one job per module.
MAX_MODULE_LINES = 450
ORDER = ('config', 'trial', 'cluster', 'tune', 'benchmark')
IMPORT = re.compile(
    r'^\s*(?:from|import)\s+softlearning\.experiments\.(\w+)')
TOP_LEVEL = {'__init__.py', 'errors.py', 'definition.py'}


def test_sub_packages_import_only_the_ones_below_them():
    upward = []
    for package in ORDER:
        for folder, _, names in os.walk(os.path.join(EXPERIMENTS, package)):
            for name in (n for n in names if n.endswith('.py')):
                path = os.path.join(folder, name)
                with open(path) as f:
                    for number, line in enumerate(f, 1):
                        match = IMPORT.match(line)
                        if match and match.group(1) in ORDER and (
                                ORDER.index(match.group(1))
                                > ORDER.index(package)):
                            upward.append(
                                f'{os.path.relpath(path, REPO_ROOT)}:'
                                f'{number}: {line.strip()}')
    assert not upward, '\n'.join(upward)


def test_no_module_is_over_450_lines():
    long = []
    for folder, _, names in os.walk(PACKAGE):
        for name in (n for n in names if n.endswith('.py')):
            path = os.path.join(folder, name)
            with open(path) as f:
                lines = sum(1 for _ in f)
            if lines > MAX_MODULE_LINES:
                long.append(f'{os.path.relpath(path, REPO_ROOT)}: {lines}')
    assert not long, '\n'.join(long)


def test_the_top_level_holds_the_public_api_only():
    entries = set(os.listdir(EXPERIMENTS)) - {'__pycache__'}
    assert entries == TOP_LEVEL | set(ORDER)
    for package in ORDER:
        with open(os.path.join(EXPERIMENTS, package, '__init__.py')) as f:
            assert 'May import' in f.read(), package  # its rule, written


def test_what_softlearning_1_0_pickled_unpickles():
    """Tune pickles an experiment's trainable, callbacks and a suite's
    sample_from functions by module path: an experiment started with 1.0
    resumes only where 1.0's paths still import."""
    import pickle

    from softlearning.experiments.benchmark.suite_experiment import (
        merge_cells)
    from softlearning.experiments.trial.console import EpochConsole
    from softlearning.experiments.trial.trainable import ExperimentRunner

    def as_1_0(obj, new, old):
        return pickle.dumps(obj, protocol=0).replace(new.encode(),
                                                     old.encode())

    assert pickle.loads(as_1_0(
        ExperimentRunner, 'softlearning.experiments.trial.trainable',
        'softlearning.experiments.trainable')) is ExperimentRunner
    assert pickle.loads(as_1_0(
        EpochConsole, 'softlearning.experiments.trial.console',
        'softlearning.experiments.console')) is EpochConsole
    assert pickle.loads(as_1_0(
        merge_cells, 'softlearning.experiments.benchmark.suite_experiment',
        'softlearning.experiments.benchmark')) is merge_cells
    import softlearning.experiments.presets.sac as old_preset
    from softlearning.experiments.config.presets import sac
    assert old_preset is sac
