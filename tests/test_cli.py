"""The command line as a user runs it."""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from conftest import (
    REPO_ROOT, TENSORFLOW_IMPORTED, assert_one_line_error, read_progress,
    run_cli, run_clis_at_once, trial_dirs, trial_stderr)
from softlearning.utils.machine import cpu_model
from test_cli_usability import assert_quiet_about_cuda


def test_help():
    result = run_cli('--help')
    assert result.returncode == 0
    assert 'run_example_local' in result.stdout
    # Every registered algorithm, from the registry.
    from softlearning.algorithms import ALGORITHMS
    for algorithm in ALGORITHMS:
        assert re.search(rf'\b{algorithm}\b', result.stdout), algorithm
    result = run_cli('run_example_local', 'examples.development', '--help')
    assert result.returncode == 0
    for option in ('--universe', '--domain', '--task', '--exp-name',
                   '--checkpoint-frequency', '--n-epochs', '--seed',
                   '--trial-cpus', '--resources-per-trial', '--config'):
        assert option in result.stdout, option


@pytest.mark.parametrize('args', [
    ['--help'],
    ['run_example_local', 'examples.development', '--help'],
    ['run_example_debug', '--help'],
    ['run_example_cluster', 'examples.development', '--help'],
    ['launch_example_ec2', 'examples.development', '--dry-run'],
    ['launch_example_gce', 'examples.development', '--help'],
    ['simulate', '--help'], ['export', '--help'], ['plot-policy', '--help'],
    ['summary', '--help'], ['plot', '--help'], ['report', '--help'],
    ['benchmark', '--help']])
def test_help_and_dry_runs_do_not_import_tensorflow(args, tmp_path):
    """What only prints (help, the commands of a launch) answers at once:
    TensorFlow's import alone takes seconds, and writes its start-up lines
    on some machines."""
    result = run_cli(*args, env={'HOME': str(tmp_path)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout
    assert TENSORFLOW_IMPORTED not in result.stderr, result.stderr[-3000:]


def test_main_script_help():
    result = subprocess.run(
        [sys.executable, 'examples/development/main.py', '--help'],
        cwd=REPO_ROOT, capture_output=True, text=True,
        env={**os.environ, 'PYTHONPATH': REPO_ROOT})
    assert result.returncode == 0, result.stderr
    assert '--algorithm' in result.stdout


# A hang guard, not a speed claim (a bad input is refused in seconds).
FAIL_FAST_GUARD_S = 300


@pytest.mark.timing
@pytest.mark.parametrize('args, message', [
    (['--universe', 'gymm'], "invalid choice: 'gymm'"),
    (['--domain', 'HalfCheeta'], "Unknown gym domain 'HalfCheeta'"),
    (['--domain', 'HalfCheetah', '--task', 'v9'],
     "Unknown gym task 'v9' for domain 'HalfCheetah'. Valid tasks: v4, v5"),
    (['--universe', 'dm_control', '--domain', 'cheetah', '--task', 'walk'],
     "Unknown dm_control task 'walk' for domain 'cheetah'. Valid tasks: run"),
    (['--universe', 'pybullet', '--domain', 'Cheetah', '--task', 'v0'],
     "Unknown pybullet domain 'Cheetah'"),
    # A misspelled constructor argument, before Ray starts (not a trial
    # dying with a TypeError --max-failures times).
    (['--config', 'algorithm_params.config.discont=0.9'],
     "Unknown key 'discont' in algorithm_params.config: SAC accepts Q_lr, "
     "adam_beta1, adam_epsilon, alpha_lr, augmentation_pad, batch_size, "),
    (['--config', 'algorithm_params.config.value_n_particles=16'],
     "Unknown key 'value_n_particles' in algorithm_params.config: SAC "
     "accepts"),
    (['--algorithm', 'SQL', '--config', 'algorithm_params.config.alpha_lr=1'],
     "Unknown key 'alpha_lr' in algorithm_params.config: SQL accepts Q_lr, "
     "adam_beta1, adam_epsilon, augmentation_pad, batch_size,"),
    (['--algorithm', 'SQL', '--policy', 'gaussian'],
     '--algorithm SQL cannot train --policy gaussian; valid policies for '
     'SQL: sampling'),
    (['--algorithm', 'TD4'], "invalid choice: 'TD4' (choose from 'SAC', 'SQL', 'TD3', 'DDPG', 'TQC', 'REDQ', 'DroQ', 'CrossQ', 'SimbaV2', 'FastTD3', 'FastSAC')"),
    (['--policy', 'recurrent', '--network', 'simba'],
     "--network simba reads state observations with feedforward networks; "
     "this agent's policy_params are RecurrentGaussianPolicy (recurrent and "
     "pixel agents: --network mlp)."),
    (['--scheduler', 'hyperband'], "invalid choice: 'hyperband'"),
    (['--config', 'algorithm_parms.x=1'], "Unknown variant key 'algorithm_parms'"),
    (['--resources-per-trial', '{cpu: 1}'], 'invalid JSON'),
    (['--checkpoint-at-end', 'maybe'], "invalid boolean value 'maybe'"),
    (['--cpus', '1', '--trial-cpus', '2'], '--trial-cpus 2 is more than the 1 CPUs'),
    (['--cpus', '2', '--trial-cpus', '1', '--num-samplers', '2',
      '--sampler-cpus', '1'],
     '--trial-cpus 1 + --num-samplers 2 x --sampler-cpus 1 is more than the 2 CPUs'),
    (['--cpus', '2', '--trial-cpus', '2', '--num-samplers', '2'],
     "--num-samplers 2: no CPUs are left for sampler actors beside the "
     "trainer's 2"),
])
def test_bad_input_fails_fast_with_one_clear_message(args, message):
    # One message (after argparse's usage lines) and no TensorFlow import:
    # the command stopped before Ray and TensorFlow start (each writes
    # lines of its own), which is what makes it fast (about a second:
    # benchmarks/fail_fast.py times it). The timeout is only a hang guard.
    result = run_cli('run_example_local', 'examples.development', *args,
                     timeout=FAIL_FAST_GUARD_S)
    assert_one_line_error(result, message)


def test_unknown_example_module():
    result = run_cli('run_example_local', 'examples.nope')
    assert_one_line_error(result, "Cannot import example module 'examples.nope'")


def test_debug_run_in_process(tmp_path):
    result = run_cli('run_example_debug', 'examples.development',
                     '--universe', 'gym', '--domain', 'HalfCheetah',
                     '--task', 'v3', '--local-dir', tmp_path,
                     '--max-path-length', '50',
                     '--config', 'policy_params.config.hidden_layer_sizes=[16,16]')
    assert result.returncode == 0, result.stderr[-3000:]
    # The retired v3 runs as v5, and says so once.
    assert 'HalfCheetah-v3 needs mujoco-py' in result.stderr
    (trial_dir,) = trial_dirs(tmp_path)
    assert '/gym/HalfCheetah/v5/' in trial_dir
    progress = read_progress(trial_dir)
    assert list(progress['epoch']) == [1, 2]
    assert progress['total_timestep'].iloc[-1] == 200
    assert np.isfinite(progress['evaluation/return-mean']).all()
    with open(os.path.join(trial_dir, 'params.json')) as f:
        assert json.load(f)['run_params']['run_eagerly'] is True
    assert 'epoch     2/2' in result.stdout


UNIVERSES = [('gym', 'HalfCheetah', 'v5'), ('dm_control', 'cheetah', 'run'),
             ('pybullet', 'HalfCheetahBulletEnv', 'v0')]


@pytest.fixture(scope='module')
def one_epoch_runs(tmp_path_factory):
    """One epoch on each universe, the three commands at once, with
    MUJOCO_GL=osmesa exported as a user without a GPU may have it (MuJoCo
    and dm_control must still load and train; their start-up stays
    quiet)."""
    local_dirs = {universe: tmp_path_factory.mktemp(universe)
                  for universe, _, _ in UNIVERSES}
    # Each run a temporary folder of its own (short: Ray's socket paths go
    # in it), which holds its Ray session's logs: what its trial wrote.
    temp_dirs = {universe: tempfile.mkdtemp(prefix='t')
                 for universe, _, _ in UNIVERSES}
    results = run_clis_at_once({
        universe: [
            'run_example_local', 'examples.development', '--universe',
            universe, '--domain', domain, '--task', task, '--n-epochs', '1',
            '--epoch-length', '1000', '--max-path-length', '250', '--seed',
            '1', '--exp-name', 'smoke', '--local-dir', local_dirs[universe],
            '--cpus', '2', '--checkpoint-frequency', '1', '--config',
            'algorithm_params.config.n_initial_exploration_steps=500',
            # What is checked holds at any width: small networks and one
            # evaluation episode (18.4 CPU-seconds a run -> 13.9).
            '--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
            '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
            '--config', 'algorithm_params.config.eval_n_episodes=1']
        for universe, domain, task in UNIVERSES},
        env={'MUJOCO_GL': 'osmesa', 'PYOPENGL_PLATFORM': 'osmesa'},
        envs={universe: {'TMPDIR': temp_dir}
              for universe, temp_dir in temp_dirs.items()})
    return {universe: (results[universe], local_dirs[universe],
                       temp_dirs[universe])
            for universe in results}


@pytest.mark.timing
@pytest.mark.slow
@pytest.mark.parametrize('universe, domain, task', UNIVERSES)
def test_one_epoch_through_tune(one_epoch_runs, universe, domain, task):
    result, local_dir, temp_dir = one_epoch_runs[universe]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # TensorFlow starts in the trial: its warning is read from what the
    # trial wrote (Ray's copy in the run's session logs), not from the
    # command's output, where Ray forwards it late or, as the command
    # ends, not at all.
    assert_quiet_about_cuda(result, trial_stderr(temp_dir))
    # No autograph modules (of tf.functions a trial traces with autograph)
    # left in the temporary folder, where a Ray worker's end leaves them.
    assert not glob.glob(os.path.join(temp_dir, '__autograph_generated_*'))
    (trial_dir,) = trial_dirs(local_dir)
    relative = os.path.relpath(trial_dir, local_dir).split(os.sep)
    assert relative[:3] == [universe, domain, task]
    assert relative[3].endswith('-smoke')
    assert relative[4].startswith('id=') and relative[4].endswith('seed=1')
    progress = read_progress(trial_dir)
    assert len(progress) == 1
    for column in ('evaluation/return-mean', 'training/return-mean',
                   'Q_loss', 'alpha'):
        assert np.isfinite(progress[column].iloc[0]), column
    assert progress['total_timestep'].iloc[0] == 1000
    assert progress['num_train_steps'].iloc[0] == 500
    assert progress['cpu'].iloc[0] == cpu_model()
    files = os.listdir(trial_dir)
    assert 'result.json' in files
    assert any(name.startswith('events.out.tfevents') for name in files)
    assert any(name.startswith('checkpoint_') for name in files)
