import glob
import os
import subprocess
import sys

import pandas as pd
import pytest

os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args, timeout=900, env=None, cwd=REPO_ROOT):
    """Runs ``softlearning ARGS`` as a user would, from the repository root
    (or ``cwd``)."""
    full_env = {**os.environ, 'PYTHONPATH': REPO_ROOT, **(env or {})}
    return subprocess.run(
        [sys.executable, '-m', 'softlearning.scripts.console_scripts',
         *map(str, args)],
        cwd=cwd, env=full_env, capture_output=True, text=True,
        timeout=timeout)


def trial_dirs(local_dir):
    """Trial folders (those holding a progress.csv) under ``local_dir``."""
    return sorted(os.path.dirname(path) for path in glob.glob(
        os.path.join(str(local_dir), '**', 'progress.csv'), recursive=True))


def read_progress(trial_dir):
    return pd.read_csv(os.path.join(trial_dir, 'progress.csv'))


@pytest.fixture
def cli():
    return run_cli
