"""Ray's start on a busy machine: a start that timed out is made again,
once the processes it left are stopped; other errors are raised at once."""

import subprocess
import sys

import pytest
import ray

from softlearning.utils import local_ray

# Ray's words (ray/_private/node.py) when the raylet did not register with
# the GCS within its 30 seconds.
TIMED_OUT = ("The current node timed out during startup. This could happen "
             "because some of the raylet failed to startup or the GCS has "
             "become overloaded.")

# A process that starts one of its own, as a raylet starts workers, and
# prints that one's pid.
PARENT_OF_ONE = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', "
    "'import time; time.sleep(300)'])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(300)\n")


def running(pid):
    try:
        with open(f'/proc/{pid}/stat') as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ('Z', 'X')  # a zombie has ended


@pytest.mark.skipif(sys.platform != 'linux', reason='reads /proc')
def test_a_start_that_timed_out_is_made_again_without_its_leftovers(capfd):
    left = []

    def init(**kwargs):
        if not left:
            process = subprocess.Popen([sys.executable, '-c', PARENT_OF_ONE],
                                       stdout=subprocess.PIPE, text=True)
            left.extend([process.pid, int(process.stdout.readline())])
            raise Exception(TIMED_OUT)
        return ray.init(**kwargs)

    try:
        local_ray.start(init=init, num_cpus=1, include_dashboard=False)
        assert ray.is_initialized()
        assert ray.cluster_resources()['CPU'] == 1
    finally:
        ray.shutdown()
    assert len(left) == 2 and not any(running(pid) for pid in left)
    assert [line for line in capfd.readouterr().err.splitlines()
            if 'timed out' in line] == [
        "Ray's start-up timed out on a busy machine (attempt 1 of 3); "
        "starting it again."]


def test_other_errors_of_ray_init_are_raised_at_once():
    calls = []

    def init(**kwargs):
        calls.append(kwargs)
        raise ValueError('num_cpus must be a non-negative integer')

    with pytest.raises(ValueError, match='num_cpus'):
        local_ray.start(init=init, num_cpus=-1)
    assert calls == [{'num_cpus': -1}]


def test_a_start_that_keeps_timing_out_ends_with_rays_error(capfd):
    calls = []

    def init(**kwargs):
        calls.append(kwargs)
        raise Exception(TIMED_OUT)

    with pytest.raises(Exception, match='timed out during startup'):
        local_ray.start(init=init)
    assert len(calls) == local_ray.ATTEMPTS
    retries = capfd.readouterr().err.splitlines()
    assert retries == [
        f"Ray's start-up timed out on a busy machine (attempt {attempt} of "
        f"{local_ray.ATTEMPTS}); starting it again."
        for attempt in range(1, local_ray.ATTEMPTS)]
