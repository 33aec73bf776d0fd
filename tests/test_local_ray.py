"""Ray's start on a busy machine: a start that timed out is made again,
once the processes it left are stopped; other errors are raised at once."""

import sys
import time

import pytest
import ray

from softlearning.utils import local_ray

# Ray's words (ray/_private/node.py) when the raylet did not register with
# the GCS within its 30 seconds.
TIMED_OUT = ("The current node timed out during startup. This could happen "
             "because some of the raylet failed to startup or the GCS has "
             "become overloaded.")


def running(pid):
    fields = local_ray.stat_fields(pid)
    return bool(fields) and fields[0] not in ('Z', 'X')  # a zombie has ended


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != 'linux', reason='reads /proc')
def test_a_start_that_timed_out_is_made_again_without_its_leftovers(
        monkeypatch, capfd):
    """Ray's own start, whose raylet the GCS does not show within Ray's 30
    seconds the first time (as on a machine too busy to register it): the
    real error, then a second start on a machine cleared of the first."""
    import ray._private.services as services
    get_node, first_start = services.get_node, set()
    before = local_ray._children()

    def not_registered_the_first_time(*args, **kwargs):
        if not first_start:
            first_start.update(local_ray._children() - before)  # GCS, raylet
        if first_start and not started_again:
            time.sleep(0.1)  # Ray asks again at once: an RPC's wait, not a spin
            raise RuntimeError('not registered yet')
        return get_node(*args, **kwargs)

    started_again = []

    def init(**kwargs):
        if first_start:
            started_again.append(True)
        return ray.init(**kwargs)

    monkeypatch.setattr(services, 'get_node', not_registered_the_first_time)
    try:
        local_ray.start(init=init, num_cpus=1, include_dashboard=False)
        assert ray.cluster_resources()['CPU'] == 1
        assert len(ray.nodes()) == 1
    finally:
        ray.shutdown()
    assert first_start and started_again == [True]
    assert not any(running(pid) for pid, _ in first_start)
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
