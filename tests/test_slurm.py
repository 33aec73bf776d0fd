"""examples/slurm/: the sbatch script's Ray start-up across an allocation.

There is no SLURM here, so `srun` and `scontrol` are stand-ins that run on
this machine (a two-"node" allocation whose nodes are both this machine);
everything Ray does is real: a head and a worker node start, the example
runs on the cluster through run_example_cluster, and the cluster stops with
the job."""

import os
import stat
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import REPO_ROOT, read_progress, trial_dirs
from ray_processes import free_port
from test_cluster import TINY_TRIAL, isolated_env

pytestmark = pytest.mark.slow

SRUN = """#!/usr/bin/env bash
# srun --nodes=1 --ntasks=1 -w NODE COMMAND...: run COMMAND here.
while [[ "$1" == -* ]]; do
    case "$1" in -w) shift 2 ;; *) shift ;; esac
done
exec "$@"
"""
SCONTROL = """#!/usr/bin/env bash
# scontrol show hostnames LIST: one node per line.
[[ "$1 $2" == "show hostnames" ]] || exit 1
tr ',' '\\n' <<< "$3"
"""


def _write_executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _processes_of(temp_dir, wait_s):
    """The ids of processes whose command line names ``temp_dir`` (the
    job's Ray processes), once none is left or after ``wait_s`` seconds:
    Ray's workers and agents end shortly after the node that started them,
    not with it."""
    deadline = time.time() + wait_s
    while True:
        left = subprocess.run(['pgrep', '-f', temp_dir], capture_output=True,
                              text=True).stdout.split()
        if not left or time.time() > deadline:
            return left
        time.sleep(0.5)


@pytest.mark.timing
def test_sbatch_script_starts_ray_across_the_allocation(tmp_path):
    shims = tmp_path / 'bin'
    shims.mkdir()
    _write_executable(shims / 'srun', SRUN)
    _write_executable(shims / 'scontrol', SCONTROL)
    home = tmp_path / 'home'
    home.mkdir()
    env = isolated_env(home)
    temp_dir = os.path.join(tempfile.gettempdir(), f'rs{os.getpid()}')
    env.update({
        'PATH': f"{shims}:{os.path.dirname(sys.executable)}:{env['PATH']}",
        'PYTHONPATH': REPO_ROOT, 'SLURM_JOB_ID': '42',
        'SLURM_JOB_NODELIST': 'node1,node2', 'SLURM_CPUS_PER_TASK': '1',
        'SLURM_SUBMIT_DIR': REPO_ROOT, 'RAY_PORT': str(free_port()),
        'RAY_TEMP_DIR': temp_dir,
        # The script's wait for the nodes (seconds here; 120 s by default)
        # as a hang guard only.
        'RAY_START_TIMEOUT': '600'})
    results = tmp_path / 'results'
    try:
        result = subprocess.run(
            ['bash', os.path.join(REPO_ROOT, 'examples/slurm/sbatch_example.sh'),
             'examples.development', '--num-samples', '2', '--trial-cpus', '1',
             '--upload-dir', str(results), *TINY_TRIAL],
            cwd=str(tmp_path), env=env, capture_output=True, text=True,
            timeout=900)
        assert result.returncode == 0, (result.stdout[-4000:]
                                        + result.stderr[-4000:])
        assert 'Ray cluster: 2 nodes at 127.0.0.1:' in result.stdout
        dirs = trial_dirs(results)
        assert len(dirs) == 2
        # One CPU per node and two 1-CPU trials: one trial on each node.
        assert len({read_progress(d)['node_id'].iloc[-1] for d in dirs}) == 2
    finally:
        # The job stopped its nodes; give their processes time to end.
        leftover = _processes_of(temp_dir, wait_s=120)
        subprocess.run(['pkill', '-9', '-f', temp_dir])
        subprocess.run(['rm', '-rf', temp_dir])
    assert not leftover, 'the job left Ray processes running'
