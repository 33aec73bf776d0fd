"""softlearning.experiments in rooms by job: each sub-package imports only
the ones below it (config, trial, cluster, tune, benchmark, in that order),
and the top level holds the public API only."""

import os
import re

from conftest import REPO_ROOT

EXPERIMENTS = os.path.join(REPO_ROOT, 'softlearning', 'experiments')
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


def test_the_top_level_holds_the_public_api_only():
    entries = set(os.listdir(EXPERIMENTS)) - {'__pycache__'}
    assert entries == TOP_LEVEL | set(ORDER)
    for package in ORDER:
        with open(os.path.join(EXPERIMENTS, package, '__init__.py')) as f:
            assert 'May import' in f.read(), package  # its rule, written
