"""What the tests of benchmarks/peers.py share: the host and worker modules
(benchmarks/, put on the import path as running the script does), a suite
file, trial folders written as a peer run writes them, and the peer
interpreter (SOFTLEARNING_PEER_PYTHON) with the worker run in it."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(REPO_ROOT, 'benchmarks')
PEERS_SCRIPT = os.path.join(BENCHMARKS, 'peers.py')
if BENCHMARKS not in sys.path:
    sys.path.insert(0, BENCHMARKS)

import peer_processes  # noqa: E402
import peer_trial_folder  # noqa: E402
import peers  # noqa: E402
from softlearning.experiments.benchmark.suites import load_suite  # noqa: E402

SUITE = """\
name: mujoco_100k
algorithms: [SAC, TD3]
environments: [gym/HalfCheetah/v5, gym/Pendulum/v1]
seeds: [0, 1]
steps: 3000
evaluation:
  episodes: 2
  first_seed: 1000
  interval: 1000
options: {fused_steps: 1}
config:
  algorithm_params.config.tau: 0.01
"""
VERSIONS = {'sbx': '0.28.0', 'jax': '0.10.2'}

# An interpreter with the peer libraries (benchmarks/README.md): the tests
# that run a peer need it and are skipped without it.
PEER_PYTHON = os.environ.get('SOFTLEARNING_PEER_PYTHON')
needs_peer_python = pytest.mark.skipif(
    not PEER_PYTHON, reason='no peer library: set SOFTLEARNING_PEER_PYTHON '
    'to an interpreter with sbx-rl or stable-baselines3 (and '
    'gymnasium-robotics for the Fetch tasks)')


def skip_without(*modules):
    """Skips a test whose peer interpreter cannot import ``modules``."""
    if subprocess.run([PEER_PYTHON, '-c', 'import ' + ', '.join(modules)],
                      capture_output=True).returncode:
        pytest.skip(f'{PEER_PYTHON} has no {" or ".join(modules)}')


def run_worker(spec, timeout=300):
    """The peer worker run on ``spec`` in the peer interpreter."""
    return subprocess.run(
        [PEER_PYTHON, peer_processes.WORKER, json.dumps(spec)],
        capture_output=True, text=True, timeout=timeout,
        env=peer_processes.peer_process_environment())


def write_suite(tmp_path, text=SUITE, name='suite.yaml'):
    path = tmp_path / name
    path.write_text(text)
    return load_suite(str(path))


def plan_one(suite, output, algorithm='SAC', environment='gym/Pendulum/v1',
             seed=0, library='sbx', peer_defaults=False):
    """The one run peers.py would start for this cell and seed."""
    (run,) = peers.plan_runs(suite, library, str(output), [algorithm],
                             [environment], [seed], peer_defaults)
    return run


def write_run(folder, suite, returns, library='sbx', algorithm='SAC',
              seed=0, versions=VERSIONS):
    """A run's params.json and progress.csv with one evaluation per return
    (two episodes each, of 200 steps), as the peer worker writes them;
    returns the open ProgressWriter."""
    # (Planned into a folder that does not exist: never skipped.)
    run = plan_one(suite, os.path.join(str(folder), 'unplanned'), algorithm,
                   seed=seed, library=library)
    params = peers.trial_params(suite, versions, run)
    peer_trial_folder.write_params(str(folder), params)
    writer = peer_trial_folder.ProgressWriter(str(folder))
    for epoch, value in enumerate(returns, 1):
        writer.write(peer_trial_folder.evaluation_row(
            epoch, 1000 * epoch, [value - 1, value + 1], [200, 200],
            time_total_s=10.0 * epoch, epoch_seconds=10.0,
            evaluation_seconds=0.5, epoch_steps=1000))
    return writer
