"""``--vector-mode async`` (environments/subprocess_environment.py): a
sampler whose other environments live in processes of their own collects
exactly what the same sampler collects with all of them in its process,
restores exactly, reaches the environments' own methods (the curriculum's
parameters), reports a failing environment with its traceback, and leaves
no process behind."""

import threading
import time

import numpy as np
import pytest

from softlearning.environments.subprocess_environment import (
    EnvironmentProcessError, SubprocessEnvironment)
from softlearning.samplers.sampler_worker import SamplerWorker
from test_vector_sampler import HOPPER, make

POLICY = {'class_name': 'FeedforwardGaussianPolicy',
          'config': {'hidden_layer_sizes': (16, 16)}}
UNIFORM = {'class_name': 'UniformPolicy', 'config': {}}


def _made(vector_mode):
    return make(envs_per_sampler=3, params=HOPPER, max_path_length=40,
                vector_mode=vector_mode)


def _ended(process, timeout=30):
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return process.poll() is not None


def test_async_collects_what_sync_collects_and_restores_exactly():
    sync_policy, sync_pool, sync = _made('sync')
    policy, pool, sampler = _made('async')
    try:
        processes = [environment._process
                     for environment in sampler.environments[1:]]
        assert len(processes) == 2
        assert all(isinstance(environment, SubprocessEnvironment)
                   for environment in sampler.environments[1:])
        policy.set_weights(sync_policy.get_weights())
        policy.set_np_random_state(sync_policy.get_np_random_state())
        # Episodes end at different steps in each environment (Hopper's
        # falls, the cap of 40 steps).
        sync.sample(200)
        sampler.sample(200)
        for key in ('actions', 'rewards', 'terminals'):
            np.testing.assert_array_equal(pool.data[key][:200],
                                          sync_pool.data[key][:200])
        np.testing.assert_array_equal(
            pool.data['next_observations']['observations'][:200],
            sync_pool.data['next_observations']['observations'][:200])
        assert (sampler.get_diagnostics()['total-paths']
                == sync.get_diagnostics()['total-paths'] > 0)

        # Mid-episode in every environment; the simulators' state comes
        # back from their processes and goes into new ones.
        state = sampler.get_state()
        random_state = policy.get_np_random_state()
        sampler.sample(41)
        expected = pool.data['observations']['observations'][200:241].copy()
        restored_policy, restored_pool, restored = _made('async')
        try:
            restored_policy.set_weights(policy.get_weights())
            restored.set_state(state)
            restored_policy.set_np_random_state(random_state)
            restored.sample(41)
            np.testing.assert_array_equal(
                restored_pool.data['observations']['observations'][:41],
                expected)
        finally:
            restored.close()
    finally:
        sampler.close()
        sync.close()
    assert all(_ended(process) for process in processes)


def test_the_curriculum_reaches_environments_in_their_processes():
    _, _, sampler = _made('async')
    try:
        sampler.set_physical_parameters({'mass': 1.5})
        sampler.sample(6)
        assert sampler.get_physical_parameters() == [{'mass': 1.5}] * 3
    finally:
        sampler.close()


def test_a_sampler_actors_body_steps_its_environments_in_processes():
    worker = SamplerWorker(HOPPER, POLICY, UNIFORM, max_path_length=30,
                           seed=5, envs_per_sampler=2, vector_mode='async')
    try:
        assert isinstance(worker.environments[1], SubprocessEnvironment)
        samples = worker.sample(50)['samples']
        assert len(samples['rewards']) == 50
        assert np.isfinite(samples['rewards']).all()
        # Both environments stepped: 25 steps each, each with its episodes.
        assert len(set(samples['episodes'][:25]) & set(
            samples['episodes'][25:])) == 0
    finally:
        for environment in worker.environments[1:]:
            environment.close()


def test_failures_in_the_environments_process_are_reported():
    failed = SubprocessEnvironment({'universe': 'gym', 'domain': 'Nope',
                                    'task': 'v0'})
    with pytest.raises(EnvironmentProcessError,
                       match="(?s)process failed.*Nope"):
        failed.started()
    # Closing it waits for no answer that will never come (in a thread: a
    # wait that never ends fails the test rather than hanging it).
    closing = threading.Thread(target=failed.close, daemon=True)
    closing.start()
    closing.join(timeout=60)
    assert not closing.is_alive()
    assert _ended(failed._process)
    environment = SubprocessEnvironment(HOPPER)
    try:
        assert not hasattr(environment, 'no_such_attribute')
        assert environment.observation_space['observations'].shape == (11,)
        environment.reset(seed=0)
        with pytest.raises(EnvironmentProcessError, match='(?s)step'):
            environment.step(np.zeros(5))  # Hopper's actions are 3-long.
        # The environment still answers after a failed request.
        observation, reward, *_ = environment.step(np.zeros(3))
        assert np.isfinite(reward)
    finally:
        environment.close()
    assert _ended(environment._process)


def test_an_environments_process_ends_with_its_sampler():
    """A sampler that dies without closing its environments (a killed
    actor) closes their sockets: the processes end on their own."""
    environment = SubprocessEnvironment(HOPPER)
    process = environment._process
    environment._closed = True  # what a process that died never did
    environment._connection.close()
    assert _ended(process)
    assert process.returncode == 0
