"""Results in object storage: a local S3-compatible server (moto), trials
writing results and checkpoints to an s3:// URI, --restore from it."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import assert_one_line_error, run_cli
from ray_processes import free_port
from checkpoint_helpers import tiny_args
from test_fault_tolerance import _start, interrupt_at_epoch

pytestmark = pytest.mark.slow

BUCKET = 'softlearning-results'


@pytest.fixture(scope='module')
def s3_server():
    port = free_port(31000, 32000)
    server = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), 'moto_server'),
         '-H', '127.0.0.1', '-p', str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    endpoint = f'http://127.0.0.1:{port}'
    # Until the server answers (a few seconds); a hang guard, and a server
    # that exits (its port taken meanwhile) fails at once.
    deadline = time.time() + 300
    while True:
        try:
            urllib.request.urlopen(endpoint, timeout=5)
            break
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f'moto_server exited ({server.returncode})'
                                   f' before answering on port {port}')
            if time.time() > deadline:
                os.killpg(server.pid, signal.SIGKILL)
                raise
            time.sleep(0.2)
    env = {'AWS_ACCESS_KEY_ID': 'testing', 'AWS_SECRET_ACCESS_KEY': 'testing',
           'AWS_DEFAULT_REGION': 'us-east-1', 'AWS_EC2_METADATA_DISABLED': 'true'}
    import boto3
    boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1',
                 aws_access_key_id='testing',
                 aws_secret_access_key='testing').create_bucket(Bucket=BUCKET)
    yield port, env
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=30)


def s3_uri(port, path):
    return (f's3://{BUCKET}/{path}?endpoint_override=127.0.0.1:{port}'
            '&scheme=http')


def s3_keys(port, env, prefix):
    import boto3
    client = boto3.client('s3', endpoint_url=f'http://127.0.0.1:{port}',
                          region_name='us-east-1',
                          aws_access_key_id=env['AWS_ACCESS_KEY_ID'],
                          aws_secret_access_key=env['AWS_SECRET_ACCESS_KEY'])
    pages = client.get_paginator('list_objects_v2').paginate(
        Bucket=BUCKET, Prefix=prefix)
    return [item['Key'] for page in pages for item in page.get('Contents', [])]


def s3_text(port, env, key):
    import boto3
    client = boto3.client('s3', endpoint_url=f'http://127.0.0.1:{port}',
                          region_name='us-east-1',
                          aws_access_key_id=env['AWS_ACCESS_KEY_ID'],
                          aws_secret_access_key=env['AWS_SECRET_ACCESS_KEY'])
    return client.get_object(Bucket=BUCKET, Key=key)['Body'].read().decode()


@pytest.mark.timing
def test_results_and_checkpoints_go_to_s3_and_restore_resumes(s3_server,
                                                              tmp_path):
    port, env = s3_server
    n_epochs = 8
    uri = s3_uri(port, 'runs')
    process = _start(tmp_path, '--max-failures', '0', '--upload-dir', uri,
                     '--checkpoint-replay-pool', 'False', epochs=n_epochs,
                     env=env)
    output = interrupt_at_epoch(process, 3)
    keys = s3_keys(port, env, 'runs/gym/HalfCheetah/v5/')
    assert any(key.endswith('/progress.csv') for key in keys), output[-3000:]
    assert any('/checkpoint_000000/manifest.json' in key for key in keys), keys
    # (keys ending in '/' are folder markers)
    experiments = {key.split('/')[4] for key in keys} - {''}
    assert len(experiments) == 1, keys[:5]
    (experiment,) = experiments
    assert experiment.endswith('-ft') and not os.listdir(tmp_path)
    experiment_uri = s3_uri(port, f'runs/gym/HalfCheetah/v5/{experiment}')
    # The report names the storage with its scheme.
    assert (f"Results: s3://{BUCKET}/runs/gym/HalfCheetah/v5/{experiment}"
            in output), output[-3000:]

    result = run_cli('run_example_local', 'examples.development',
                     *map(str, tiny_args(epochs=n_epochs)), '--cpus', '2',
                     '--restore', experiment_uri, '--verbose', '0', env=env,
                     timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert 'Resuming experiment s3://' in result.stdout
    [result_key] = [key for key in s3_keys(port, env, 'runs/')
                    if key.endswith('/result.json')]
    epochs = [json.loads(line)['epoch'] for line in
              s3_text(port, env, result_key).splitlines() if line.strip()]
    # Counters continue from the last checkpoint in the bucket.
    assert epochs[-1] == n_epochs and epochs == sorted(epochs)
    assert set(epochs) == set(range(1, n_epochs + 1))


def test_unreachable_storage_uri_is_one_clear_error(s3_server):
    _, env = s3_server
    closed_port = free_port(32000, 33000)
    result = run_cli('run_example_local', 'examples.development',
                     '--upload-dir', s3_uri(closed_port, 'x'), env=env,
                     timeout=180)
    assert_one_line_error(result, 'Cannot write results to --upload-dir')


def test_errored_trials_are_set_aside_in_object_storage(s3_server,
                                                        monkeypatch):
    """--restart-errored's bookkeeping on an s3:// suite folder: the errored
    trial's folder (found from Tune's latest state file) moves to
    .restarted/, the finished one stays, and the empty folder Tune makes
    again for the restarted trial is removed afterwards."""
    import pyarrow.fs
    from softlearning.experiments.tune.state import tune_statuses
    from softlearning.experiments.tune import runner as tune_runner
    port, env = s3_server
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    suite = s3_uri(port, 'suites/aside')
    fs, root = pyarrow.fs.FileSystem.from_uri(suite)

    def write(path, text):
        with fs.open_output_stream(f'{root}/{path}') as stream:
            stream.write(text.encode())

    def state(statuses):
        return json.dumps({'trial_data': [
            [json.dumps({'relative_logdir': name, 'status': status}), '{}']
            for name, status in statuses.items()]})

    for name in ('errored', 'finished'):
        write(f'{name}/params.json', '{}')
        write(f'{name}/progress.csv', 'epoch\n1\n')
    # The older run's file says the opposite: only the latest one counts.
    write('experiment_state-2026-01-01_00-00-00.json',
          state({'errored': 'TERMINATED', 'finished': 'ERROR'}))
    write('experiment_state-2026-01-02_00-00-00.json',
          state({'errored': 'ERROR', 'finished': 'TERMINATED'}))
    assert tune_statuses(suite) == {'errored': 'ERROR',
                                    'finished': 'TERMINATED'}

    moved = tune_runner._set_aside_errored_trials(suite)

    keys = set(s3_keys(port, env, 'suites/aside/'))
    assert {'suites/aside/.restarted/errored/params.json',
            'suites/aside/.restarted/errored/progress.csv',
            'suites/aside/finished/params.json'} <= keys
    assert not any(key.startswith('suites/aside/errored/') for key in keys)
    # Tune makes the old folder again, with log files but no trial.
    write('errored/events.out', 'log')
    for folder in moved:
        tune_runner._remove_if_no_trial(folder)
    keys = set(s3_keys(port, env, 'suites/aside/'))
    assert not any(key.startswith('suites/aside/errored/') for key in keys)
    assert 'suites/aside/finished/params.json' in keys
