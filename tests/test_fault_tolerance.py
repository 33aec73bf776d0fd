"""End to end through Ray Tune: a trial whose worker is SIGKILLed recovers
from its last checkpoint. It runs the real CLI in a subprocess (an
interrupted experiment resumed with --restore: test_first_day_runs.py, and
test_cloud_storage.py for results in S3). The helpers here start, interrupt
and read such runs for those tests too."""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from checkpoint_helpers import tiny_args
from conftest import REPO_ROOT

pytestmark = pytest.mark.slow

N_EPOCHS = 6
# The command's epoch line (console.py); with more than one trial it starts
# with the trial's name in brackets.
EPOCH_LINE = re.compile(r'^(?:\[(\S+)\] )?epoch\s+(\d+)/')
RECOVERY_LINE = re.compile(r'^Trial \S+ failed \(.*\); starting it again '
                           r'from its last checkpoint\.$')
TRIAL_PROCESS_TITLES = ('ray::ResourceTrainable', 'ray::ExperimentRunner')


def _start(local_dir, *extra, epochs=N_EPOCHS, env=None):
    args = ['run_example_local', 'examples.development',
            *map(str, tiny_args(epochs=epochs)), '--cpus', '2',
            '--checkpoint-frequency', '1', '--checkpoint-replay-pool', 'True',
            '--local-dir', str(local_dir), '--exp-name', 'ft',
            '--verbose', '0', *extra]
    return subprocess.Popen(
        [sys.executable, '-m', 'softlearning.cli', *args],
        cwd=REPO_ROOT, env={**os.environ, 'PYTHONPATH': REPO_ROOT,
                            **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)


def _wait_for_epoch(process, epoch, log, deadline=600):
    """Reads the run's output until the command prints a trial's line of
    ``epoch EPOCH/N``."""
    start = time.time()
    for line in process.stdout:
        log.append(line)
        match = EPOCH_LINE.search(line)
        if match and int(match.group(2)) == epoch:
            return
        assert time.time() - start < deadline, ''.join(log[-40:])
    raise AssertionError('run ended before epoch %d:\n%s'
                         % (epoch, ''.join(log[-40:])))


def trial_processes(session):
    """The process ids of the Ray actors that run trials, among the
    processes of the session ``session`` (a command started with
    ``start_new_session``: Ray's processes stay in its session)."""
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open(f'/proc/{name}/cmdline', 'rb') as f:
                title = f.read().split(b'\0')[0].decode(errors='replace')
            if (os.getsid(int(name)) == session
                    and title.startswith(TRIAL_PROCESS_TITLES)):
                found.append(int(name))
        except OSError:  # ended meanwhile
            continue
    return found


def _finish(process, log, timeout=600):
    try:
        out, _ = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    log.append(out)
    return ''.join(log)


def interrupt_at_epoch(process, epoch, timeout=600):
    """Ctrl+C (Tune stops the run) once a trial prints ``epoch EPOCH/N``;
    returns the run's output."""
    log = []
    try:
        _wait_for_epoch(process, epoch, log)
        os.killpg(process.pid, signal.SIGINT)
    finally:
        output = _finish(process, log, timeout=timeout)
    return output


def _results(trial_dir):
    with open(os.path.join(trial_dir, 'result.json')) as f:
        return [json.loads(line) for line in f if line.strip()]


def _trial_status(experiment_dir):
    from ray.tune import ExperimentAnalysis
    return [trial.status for trial in ExperimentAnalysis(experiment_dir).trials]


def _assert_complete(trial_dir, n_epochs=N_EPOCHS, every_epoch=True):
    """The trial ran to its last epoch with counters that continued across
    the restart (never back to epoch 1). ``every_epoch=False``: around a
    SIGKILLed trial process Tune (2.60) can lose result.json lines written
    before the kill, and records again an epoch the restarted process
    re-runs from an earlier checkpoint ([1, 4, 5, 6], [3, 4, 5, 6] and
    [1, 2, 3, 3, 4, 5, 6] all happen); the test reads which epochs ran
    from the trial's output instead."""
    results = _results(trial_dir)
    epochs = [r['epoch'] for r in results]
    assert epochs[-1] == n_epochs and results[-1]['done']
    assert epochs == sorted(epochs), epochs
    assert all(r['total_timestep'] == 100 * r['epoch'] for r in results)
    if every_epoch:
        assert epochs == list(range(1, n_epochs + 1)), epochs
    return results


@pytest.mark.timing
def test_killed_trial_recovers_from_its_checkpoint(tmp_path):
    process = _start(tmp_path, '--max-failures', '2')
    log = []
    try:
        _wait_for_epoch(process, 3, log)
        # The trial's process has reported epoch 3: it is alive.
        (pid,) = trial_processes(process.pid)
        os.kill(pid, signal.SIGKILL)
    finally:
        output = _finish(process, log)
    assert process.returncode == 0, output[-3000:]
    [experiment_dir] = glob.glob(str(tmp_path / '*/*/*/*-ft'))
    [trial_dir] = glob.glob(os.path.join(experiment_dir, 'id=*'))
    assert _trial_status(experiment_dir) == ['TERMINATED']
    _assert_complete(trial_dir, every_epoch=False)
    # The command said the trial failed and started again, and the trial
    # then ran in a second process, from a checkpoint (one of the first
    # three), not from scratch, every epoch to the last.
    lines = output.splitlines()
    (recovered,) = [i for i, line in enumerate(lines)
                    if RECOVERY_LINE.match(line)]
    before, after = ([int(m.group(2)) for m in map(EPOCH_LINE.match, part)
                      if m] for part in (lines[:recovered],
                                         lines[recovered:]))
    assert len(before) >= 3 and before == list(range(1, len(before) + 1)), (
        before, after)
    assert 2 <= after[0] <= len(before) + 1, (before, after)
    assert after == list(range(after[0], N_EPOCHS + 1)), (before, after)
    assert _results(trial_dir)[-1]['pid'] != pid
