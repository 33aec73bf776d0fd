"""run_example_cluster on real multi-node Ray clusters on this machine: a
2-node cluster started with `ray start` (token authentication on), and an
autoscaling cluster (Ray's fake_multinode provider, no token)."""

import os
import subprocess
import time

import pytest
import yaml

from conftest import read_progress, run_cli, trial_dirs
from ray_processes import RayProcesses, free_port

pytestmark = pytest.mark.slow

TINY_TRIAL = [
    '--n-epochs', '1', '--epoch-length', '200', '--max-path-length', '100',
    '--config', 'algorithm_params.config.n_initial_exploration_steps=100',
    '--config', 'policy_params.config.hidden_layer_sizes=[8,8]',
    '--config', 'Q_params.config.hidden_layer_sizes=[8,8]',
    '--config', 'algorithm_params.config.eval_n_episodes=1',
    '--checkpoint-at-end', 'False']


def isolated_env(home):
    """A HOME of the test's own, so token files of other Ray sessions on
    this machine do not decide the cluster's authentication mode."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith('RAY_AUTH')}
    env.update(HOME=str(home), RAY_USAGE_STATS_ENABLED='0')
    return env


@pytest.fixture(scope='module')
def token_cluster(tmp_path_factory):
    """Head and worker, 1 CPU each, on loopback. A token exists in HOME, so
    `ray start --head` turns token authentication on and the joining node
    needs RAY_AUTH_MODE=token."""
    home = tmp_path_factory.mktemp('home')
    env = isolated_env(home)
    subprocess.run([os.path.join(os.path.dirname(__import__('sys').executable),
                                 'ray'), 'get-auth-token', '--generate'],
                   env=env, check=True, capture_output=True, timeout=60)
    assert (home / '.ray' / 'auth_token').is_file()
    processes = RayProcesses(env)
    port = free_port()
    try:
        processes.start_head(port, 1)
        processes.start_worker(port, 1, extra_env={'RAY_AUTH_MODE': 'token'})
        yield env, f'127.0.0.1:{port}'
    finally:
        processes.stop()


def test_trials_run_on_both_nodes(token_cluster, tmp_path):
    env, address = token_cluster
    results = tmp_path / 'shared_results'
    result = run_cli('run_example_cluster', 'examples.development',
                     '--address', address, '--upload-dir', results,
                     '--num-samples', '2', '--trial-cpus', '1', *TINY_TRIAL,
                     env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    dirs = trial_dirs(results)
    assert len(dirs) == 2
    node_ids = {read_progress(d)['node_id'].iloc[-1] for d in dirs}
    assert len(node_ids) == 2, (node_ids, result.stdout[-6000:])
    assert f'Results: {results}/gym/Pendulum/v1/' in result.stdout


def test_no_cluster_at_address_fails_fast(tmp_path):
    start = time.time()
    result = run_cli('run_example_cluster', 'examples.development',
                     '--address', f'127.0.0.1:{free_port()}', timeout=120)
    assert result.returncode == 2
    assert 'No Ray cluster answers at 127.0.0.1:' in result.stderr
    assert 'Traceback' not in result.stderr
    assert time.time() - start < 30


def test_no_cluster_on_this_machine_fails_fast(tmp_path):
    env = isolated_env(tmp_path)
    env.pop('RAY_ADDRESS', None)
    result = run_cli('run_example_cluster', 'examples.development',
                     env={**env, 'RAY_TMPDIR': str(tmp_path)}, timeout=120)
    assert result.returncode == 2, result.stderr[-3000:]
    assert 'No running Ray cluster found' in result.stderr


# The autoscaler ------------------------------------------------------------

def fake_cluster_config(gcs_address):
    return {
        'cluster_name': 'softlearning-test',
        'max_workers': 2,
        'upscaling_speed': 2.0,
        'idle_timeout_minutes': 0.1,
        'provider': {'type': 'fake_multinode', 'gcs_address': gcs_address,
                     'use_node_id_as_ip': True,
                     'disable_node_updaters': True,
                     'disable_launch_config_check': True},
        'auth': {'ssh_user': 'ubuntu'},
        'docker': {},
        'available_node_types': {
            'ray.head.default': {'resources': {'CPU': 0}, 'node_config': {},
                                 'max_workers': 0},
            'ray.worker.cpu': {'resources': {'CPU': 1}, 'node_config': {},
                               'min_workers': 0, 'max_workers': 2},
        },
        'head_node_type': 'ray.head.default',
        'file_mounts': {}, 'cluster_synced_files': [],
        'file_mounts_sync_continuously': False, 'rsync_exclude': [],
        'rsync_filter': [], 'initialization_commands': [],
        'setup_commands': [], 'head_setup_commands': [],
        'worker_setup_commands': [], 'head_start_ray_commands': [],
        'worker_start_ray_commands': [],
    }


def alive_worker_nodes(env, address):
    script = ("import ray; ray.init(address='%s', logging_level='ERROR', "
              "log_to_driver=False, _node_ip_address='127.0.0.1'); "
              "print('WORKERS', sum(n['Alive'] and "
              "n['Resources'].get('CPU', 0) > 0 for n in ray.nodes()))"
              % address)
    done = subprocess.run([__import__('sys').executable, '-c', script],
                          env=env, capture_output=True, text=True, timeout=60)
    (line,) = [line for line in done.stdout.splitlines()
               if line.startswith('WORKERS ')]
    return int(line.split()[1])


def test_autoscaler_starts_and_removes_worker_nodes(tmp_path):
    env = isolated_env(tmp_path / 'home')
    os.makedirs(env['HOME'])
    env.update(RAY_FAKE_CLUSTER='1', RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER='0')
    port = free_port()
    address = f'127.0.0.1:{port}'
    config = tmp_path / 'cluster.yaml'
    config.write_text(yaml.safe_dump(fake_cluster_config(address)))
    processes = RayProcesses(env)
    try:
        processes.start_head(port, 0, f'--autoscaling-config={config}')
        assert alive_worker_nodes(env, address) == 0
        results = tmp_path / 'results'
        # Two trials of 1 CPU on a head with none: the autoscaler must start
        # worker nodes for them.
        result = run_cli('run_example_cluster', 'examples.development',
                         '--address', address, '--local-dir', results,
                         '--num-samples', '2', '--trial-cpus', '1',
                         *TINY_TRIAL, env=env, timeout=600)
        assert result.returncode == 0, (result.stdout[-4000:]
                                        + result.stderr[-4000:])
        dirs = trial_dirs(results)
        assert len(dirs) == 2
        assert all(len(read_progress(d)) == 1 for d in dirs)
        # Idle nodes go away after the idle timeout (6 s here).
        deadline = time.time() + 120
        while alive_worker_nodes(env, address) and time.time() < deadline:
            time.sleep(3)
        assert alive_worker_nodes(env, address) == 0
    finally:
        processes.stop()
