import glob
import os
import subprocess
import sys

import pandas as pd
import pytest

os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every command the tests run imports TensorFlow as on a CPU and machine
# where TensorFlow's C++ writes start-up lines (fake_tensorflow_startup/),
# so that what a user sees is checked whatever CPU runs the tests.
FAKE_TENSORFLOW_STARTUP = os.path.join(REPO_ROOT, 'tests',
                                       'fake_tensorflow_startup')
# What that fake writes: a WARNING record shows that TensorFlow was imported
# (and that warnings still show), the other two must never show.
TENSORFLOW_IMPORTED = 'FAKE-WARNING TensorFlow was imported'
TENSORFLOW_NOISE = ('FAKE-INFO', 'FAKE-CUDA')


def pytest_configure(config):
    """Every temporary file of the run (TensorFlow's autograph modules,
    which a killed Ray worker never removes; Ray's session folders; the
    tests' own) goes into one folder, removed when the run ends: the suite
    leaves nothing in /tmp but pytest's own tmp_path folders, which stay
    where pytest keeps them (its last three runs) for a failure's
    post-mortem. A short name: Ray's Unix socket paths under it must stay
    within 107 characters. Set once, by the process that starts the
    workers (pytest -n), which inherit it."""
    if hasattr(config, 'workerinput'):
        return
    import tempfile
    os.environ.setdefault('PYTEST_DEBUG_TEMPROOT', tempfile.gettempdir())
    config.suite_temp_dir = tempfile.mkdtemp(prefix='sl-tests-')
    os.environ['TMPDIR'] = tempfile.tempdir = config.suite_temp_dir


def pytest_unconfigure(config):
    import shutil
    temp_dir = getattr(config, 'suite_temp_dir', None)
    if temp_dir:
        shutil.rmtree(temp_dir, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    """Learning tests first, then timing-sensitive ones, each group's
    longest files first (tests/file_durations.py says why)."""
    import file_durations
    items[:] = file_durations.start_order(items, file_durations.load())


@pytest.fixture(scope='module', autouse=True)
def environment_of_its_own():
    """Each test file starts from the environment the test run started with
    and leaves it so: in-process ``ray.init()`` sets RAY_AUTH_MODE=token in
    os.environ, which the commands of a later file in the same process
    (pytest -n runs files in any order) would inherit. Module scope, and
    autouse, so it wraps the file's own module fixtures (its Ray session)."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def _cli(args, env, environ=None):
    """The command line and environment of ``softlearning ARGS``: ``env``
    (extra variables) laid over ``environ``, a whole environment (default:
    this process's; pass one to leave variables out)."""
    return ([sys.executable, '-m', 'softlearning.cli',
             *map(str, args)],
            {**(os.environ if environ is None else environ),
             'PYTHONPATH': os.pathsep.join([FAKE_TENSORFLOW_STARTUP,
                                            REPO_ROOT]),
             **(env or {})})


def assert_one_line_error(result, message):
    """A bad input: exit code 2 and one line on stderr naming it (after
    argparse's usage lines), before TensorFlow is imported."""
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines()
             if line and not line.startswith(('usage:', ' '))]
    assert len(lines) == 1, result.stderr
    assert message in lines[0], result.stderr
    assert TENSORFLOW_IMPORTED not in result.stderr


def run_cli(*args, timeout=900, env=None, environ=None, cwd=REPO_ROOT):
    """Runs ``softlearning ARGS`` as a user would, from the repository root
    (or ``cwd``); ``env`` and ``environ`` as in ``_cli``."""
    command, full_env = _cli(args, env, environ)
    return subprocess.run(command, cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def run_python(script, timeout=300, env=None):
    """Runs ``python -c SCRIPT`` from the repository root in a fresh
    process (what a statement imports shows in that process's
    ``sys.modules``, not in this one's), with the repository on PYTHONPATH
    and ``env`` (extra variables) laid over this process's environment."""
    return subprocess.run([sys.executable, '-c', script], cwd=REPO_ROOT,
                          env={**os.environ, 'PYTHONPATH': REPO_ROOT,
                               **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def run_clis_at_once(commands, timeout=900, env=None, envs=None):
    """Runs several ``softlearning`` commands ({name: ARGS}) at the same
    time, as ``run_cli`` runs one: end-to-end runs spend much of their time
    starting Ray and importing TensorFlow, which overlaps well. ``envs``:
    {name: extra variables of that command only}, laid over ``env``.
    Returns {name: subprocess.CompletedProcess}."""
    processes = {}
    for name, args in commands.items():
        command, full_env = _cli(args, {**(env or {}),
                                        **(envs or {}).get(name, {})})
        processes[name] = subprocess.Popen(
            command, cwd=REPO_ROOT, env=full_env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
    results = {}
    for name, process in processes.items():
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for other in processes.values():
                other.kill()
            raise
        results[name] = subprocess.CompletedProcess(
            process.args, process.returncode, stdout, stderr)
    return results


def trial_stderr(temp_dir):
    """What the Ray workers (trials, sampler actors) of the run started
    with ``TMPDIR=temp_dir`` wrote to their stderr, from the files Ray
    keeps of it (TMPDIR/ray/session_*/logs/worker-*.err). Ray forwards
    those lines to the command's terminal asynchronously, and loses the
    last ones when the command ends first; the files are complete once the
    run has ended. Give each run a TMPDIR of its own (short: Ray's socket
    paths go in it)."""
    paths = [path for path in glob.glob(os.path.join(
        str(temp_dir), 'ray', 'session_*', 'logs', 'worker-*.err'))
        if not os.path.islink(os.path.dirname(os.path.dirname(path)))]
    text = []
    for path in sorted(paths):
        with open(path, errors='replace') as f:
            text.append(f.read())
    return ''.join(text)


def trial_dirs(local_dir):
    """Trial folders (those holding a progress.csv) under ``local_dir``."""
    return sorted(os.path.dirname(path) for path in glob.glob(
        os.path.join(str(local_dir), '**', 'progress.csv'), recursive=True))


def read_progress(trial_dir):
    return pd.read_csv(os.path.join(trial_dir, 'progress.csv'))


@pytest.fixture
def cli():
    return run_cli
