"""Cluster launchers and their configs: the YAMLs in config/ pass Ray's own
validation, and launch_example_{ec2,gce,cluster} generate the commands
(including the shutdown) we expect, without touching a cloud."""

import os
import shlex

import pytest
import yaml

from conftest import REPO_ROOT, assert_one_line_error, run_cli

CONFIGS = ['softlearning/experiments/cluster/cluster_configs/ec2.yaml', 'softlearning/experiments/cluster/cluster_configs/gce.yaml']
EXAMPLE = ['examples.development', '--universe', 'gym', '--domain',
           'HalfCheetah', '--task', 'v5', '--num-samples', '8',
           '--upload-dir', 's3://my-bucket/softlearning']


@pytest.mark.parametrize('path', CONFIGS)
def test_cluster_yaml_passes_rays_validation(path):
    from ray.autoscaler._private.util import prepare_config, validate_config
    with open(os.path.join(REPO_ROOT, path)) as f:
        config = yaml.safe_load(f)
    validate_config(prepare_config(config))
    node_types = config['available_node_types']
    assert config['head_node_type'] in node_types
    # CPU and GPU worker types, and token authentication on every node.
    assert any('gpu' in name for name in node_types)
    assert any('cpu' in name for name in node_types)
    for key in ('head_start_ray_commands', 'worker_start_ray_commands'):
        assert any('RAY_AUTH_MODE=token' in c for c in config[key]), key
    assert any('--autoscaling-config=~/ray_bootstrap_config.yaml' in c
               for c in config['head_start_ray_commands'])


@pytest.mark.parametrize('provider, config', [
    ('ec2', 'softlearning/experiments/cluster/cluster_configs/ec2.yaml'),
    ('gce', 'softlearning/experiments/cluster/cluster_configs/gce.yaml')])
def test_dry_run_prints_up_run_and_shutdown(provider, config, tmp_path):
    result = run_cli(f'launch_example_{provider}', *EXAMPLE, '--dry-run',
                     '--exp-name', 'cheetah', env={'HOME': str(tmp_path)})
    assert result.returncode == 0, result.stderr[-3000:]
    up, run = [shlex.split(line) for line in result.stdout.splitlines()
               if line.startswith('ray ')]
    config_path = str(tmp_path / '.softlearning/clusters/'
                      'softlearning-cheetah.yaml')
    assert up == ['ray', 'up', '-y', config_path]
    assert run[:4] == ['ray', 'exec', '--tmux', config_path]
    assert run[4] == (
        'cd ~/softlearning && softlearning run_example_cluster '
        'examples.development --universe gym --domain HalfCheetah --task v5 '
        '--num-samples 8 --upload-dir s3://my-bucket/softlearning '
        '--exp-name cheetah; ray stop; ray down -y --workers-only '
        '~/ray_bootstrap_config.yaml; sudo shutdown -h now')
    with open(config_path) as f:
        written = yaml.safe_load(f)
    assert written['cluster_name'] == 'softlearning-cheetah'
    assert written['file_mounts']['~/softlearning'] == REPO_ROOT
    assert written['file_mounts']['~/.ray/auth_token'] == str(
        tmp_path / '.ray/auth_token')


def test_keep_cluster_and_job_submission(tmp_path):
    result = run_cli('launch_example_cluster', *EXAMPLE, '--config-file',
                     'softlearning/experiments/cluster/cluster_configs/ec2.yaml', '--keep-cluster',
                     'True', '--submit', 'job', '--dry-run',
                     env={'HOME': str(tmp_path)})
    assert result.returncode == 0, result.stderr[-3000:]
    run = shlex.split(result.stdout.splitlines()[-1])
    assert run[:3] == ['ray', 'exec', '--tmux']
    assert run[4].startswith('ray job submit --address http://127.0.0.1:8265'
                             ' -- bash -lc ')
    assert 'shutdown' not in run[4] and 'ray down' not in run[4]


def test_generic_launcher_needs_a_config_file():
    result = run_cli('launch_example_cluster', 'examples.development')
    assert_one_line_error(result, '--config-file')


def test_invalid_yaml_is_one_clear_error(tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('cluster_name: x\nprovider: {type: aws}\n'
                   'available_node_types: 3\n')
    result = run_cli('launch_example_cluster', 'examples.development',
                     '--config-file', bad, '--dry-run',
                     env={'HOME': str(tmp_path)})
    assert_one_line_error(
        result, f"--config-file '{bad}' is not a valid Ray autoscaler config")


def test_bad_example_options_fail_before_any_cloud_call(tmp_path):
    result = run_cli('launch_example_ec2', 'examples.development',
                     '--domain', 'HalfCheeta', '--dry-run',
                     env={'HOME': str(tmp_path)})
    assert_one_line_error(result, "Unknown gym domain 'HalfCheeta'")


def test_missing_cloud_extra_is_one_clear_error(tmp_path):
    # google-api-python-client is not a test dependency.
    result = run_cli('launch_example_gce', *EXAMPLE, '--confirm-remote',
                     'False', env={'HOME': str(tmp_path)})
    assert_one_line_error(result, "needs googleapiclient")
    assert "pip install -e '.[gcp]'" in result.stderr


def test_never_prompts_without_a_terminal(tmp_path):
    # The generic launcher needs no cloud library here, so it gets as far
    # as asking.
    result = run_cli('launch_example_cluster', *EXAMPLE, '--config-file',
                     'softlearning/experiments/cluster/cluster_configs/ec2.yaml',
                     env={'HOME': str(tmp_path)})
    assert_one_line_error(result, 'Standard input is not a terminal')
    assert '--confirm-remote False' in result.stderr
