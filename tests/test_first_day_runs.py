"""A newcomer's first runs, end to end: their own environment from its own
folder (trained with MLflow and W&B tracking, then simulated, exported,
summarized and loaded as an agent from elsewhere), a trial that cannot be
built (ended at once, not retried), and Ctrl+C (exit status 130, resumed
with --restore). The three runs start together (module fixture)."""

import glob
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import gymnasium
import numpy as np
import pytest

from conftest import TENSORFLOW_NOISE, _cli, run_cli, trial_dirs
from test_fault_tolerance import _results

pytestmark = pytest.mark.slow

# A user's environment module, in their own folder: a point mass on a line
# (actions in [-2, 2]), and a variant that builds only where its licence
# server answers (in the command's process, not in a trial's).
USER_MODULE = textwrap.dedent('''
    import time

    import gymnasium as gym
    import numpy as np


    class PointMass(gym.Env):
        def __init__(self, render_mode=None):
            self.observation_space = gym.spaces.Box(-10, 10, (2,), np.float32)
            self.action_space = gym.spaces.Box(-2.0, 2.0, (1,), np.float32)

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            self._state = self.np_random.uniform(-1, 1, 2).astype(np.float32)
            return self._state.copy(), {}

        def step(self, action):
            position, velocity = self._state
            velocity = 0.9 * velocity + 0.1 * float(np.clip(action, -2, 2)[0])
            position = float(np.clip(position + velocity, -10, 10))
            self._state = np.array([position, velocity], np.float32)
            return self._state.copy(), -position ** 2, False, False, {}


    class SlowPointMass(PointMass):
        def step(self, action):
            time.sleep(0.01)
            return super().step(action)


    class Licensed(PointMass):
        def __init__(self, render_mode=None):
            import ray
            if ray.is_initialized():
                raise RuntimeError('no licence server at licence.example:2718')
            super().__init__(render_mode)


    gym.register('PointMass-v0', entry_point=PointMass, max_episode_steps=50)
    gym.register('SlowPointMass-v0', entry_point=SlowPointMass,
                 max_episode_steps=50)
    gym.register('Licensed-v0', entry_point=Licensed, max_episode_steps=50)
    ''')
SMALL = ['--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
         '--config', 'Q_params.config.hidden_layer_sizes=[16,16]']
RUN_GUARD_S = 900  # a hang guard; each run takes well under a minute


def _start(args, cwd):
    command, env = _cli(['run_example_local', 'examples.development',
                         *args], None)
    return subprocess.Popen(command, cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(process):
    stdout, stderr = process.communicate(timeout=RUN_GUARD_S)
    return subprocess.CompletedProcess(process.args, process.returncode,
                                       stdout, stderr)


def _interrupt_after_epoch(process, epoch):
    """Ctrl+C once ``epoch`` printed: its stdout so far, and the rest."""
    lines, deadline = [], time.time() + RUN_GUARD_S
    for line in process.stdout:
        lines.append(line)
        if line.startswith(f'epoch {epoch:>5}/') or time.time() > deadline:
            break
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=RUN_GUARD_S)
    return subprocess.CompletedProcess(
        process.args, process.returncode, ''.join(lines) + stdout, stderr)


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp('my_project')
    (folder / 'pointmass.py').write_text(USER_MODULE)
    started = {
        'own': _start([
            '--domain', 'pointmass:PointMass', '--task', 'v0',
            '--n-epochs', '3', '--epoch-length', '500', '--seed', '3',
            '--local-dir', folder / 'results', '--mlflow', folder / 'mlruns',
            '--wandb-project', 'first-day', '--wandb-mode', 'offline',
            *SMALL], folder),
        'licensed': _start([
            '--domain', 'pointmass:Licensed', '--task', 'v0', '--n-epochs',
            '2', '--epoch-length', '200', '--local-dir',
            folder / 'licensed'], folder),
        # At least 2 s an epoch whatever the CPU, so that Ctrl+C, sent once
        # the command printed epoch 2, lands before the trial's last epoch.
        'interrupted': _start([
            '--domain', 'pointmass:SlowPointMass', '--task', 'v0',
            '--n-epochs', '6', '--epoch-length', '200',
            '--checkpoint-frequency', '1', '--local-dir',
            folder / 'interrupted', *SMALL], folder),
    }
    results = {'folder': folder,
               'interrupted': _interrupt_after_epoch(
                   started.pop('interrupted'), epoch=2)}
    results.update({name: _finish(process)
                    for name, process in started.items()})
    return results


def _trial(local_dir):
    (trial,) = trial_dirs(local_dir)
    return trial


def test_own_environment_trains_with_a_warm_up_notice(runs):
    result = runs['own']
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'the default warm-up of 10000 random steps would take the whole' \
        in result.stderr
    progress = _trial(runs['folder'] / 'results')
    import pandas as pd
    steps = pd.read_csv(os.path.join(progress, 'progress.csv'))
    assert steps['epoch'].tolist() == [1, 2, 3]
    assert steps.filter(like='num_train_steps').iloc[-1].max() > 0
    # The results folder names the domain without a colon.
    assert ':' not in progress
    assert 'pointmass.PointMass' in progress
    params = json.load(open(os.path.join(progress, 'params.json')))
    assert params['environment_params']['training']['import_path'] == str(
        runs['folder'])


def test_the_console_is_one_line_per_epoch(runs):
    result = runs['own']
    output = result.stdout + result.stderr
    epoch_lines = [line for line in result.stdout.splitlines()
                   if ' | steps ' in line]
    assert len(epoch_lines) == 3, result.stdout
    for noise in ('Token authentication', 'Current best trial',
                  'repeated', '\x1b[', 'Trainable.setup took',
                  'Checkpoint successfully created', 'Tuner.restore'):
        assert noise not in output, noise


def test_tensorboard_reads_the_curves(runs):
    from tensorboard.backend.event_processing.event_accumulator import (
        EventAccumulator)
    assert os.path.isfile(os.path.join(os.path.dirname(sys.executable),
                                       'tensorboard'))
    (events,) = glob.glob(os.path.join(_trial(runs['folder'] / 'results'),
                                       'events.out.tfevents.*'))
    accumulator = EventAccumulator(events)
    accumulator.Reload()
    (tag,) = [tag for tag in accumulator.Tags()['scalars']
              if tag.endswith('evaluation/return-mean')]
    assert len(accumulator.Scalars(tag)) == 3


def test_mlflow_has_the_runs_metrics_variant_and_checkpoint(runs):
    import mlflow
    folder = runs['folder']
    client = mlflow.MlflowClient(f"sqlite:///{folder / 'mlruns'}/mlflow.db")
    experiment_name = os.path.basename(os.path.dirname(
        _trial(folder / 'results')))
    experiment = client.get_experiment_by_name(experiment_name)
    (run,) = client.search_runs([experiment.experiment_id])
    history = client.get_metric_history(run.info.run_id,
                                        'evaluation/return-mean')
    assert len(history) == 3
    assert run.data.params['algorithm_params/config/n_epochs'] == '3'
    artifacts = [item.path for item in client.list_artifacts(
        run.info.run_id)]
    assert 'progress.csv' in artifacts
    checkpoints = [path for path in artifacts
                   if path.startswith('checkpoint_')]
    assert checkpoints, artifacts
    inside = [item.path for item in client.list_artifacts(
        run.info.run_id, checkpoints[-1])]
    assert f'{checkpoints[-1]}/manifest.json' in inside


def test_wandb_offline_run_holds_the_metrics_and_variant(runs):
    experiment = os.path.dirname(_trial(runs['folder'] / 'results'))
    (log,) = glob.glob(os.path.join(experiment, 'wandb', 'offline-run-*',
                                    'run-*.wandb'))
    data = open(log, 'rb').read()
    debug_logs = glob.glob(os.path.join(os.path.dirname(log), 'logs', '*'))
    why = ''.join(open(path, errors='replace').read()[-3000:]
                  for path in debug_logs) + runs['own'].stderr[-3000:]
    assert b'return-mean' in data, why
    assert b'algorithm_params' in data, why
    # Where the runs went, said once by the command; W&B's own console
    # (a summary of each run) stays out of it.
    assert (f'W&B: offline runs in {experiment}/wandb; upload them with '
            f'wandb sync {experiment}/wandb/offline-run-*') in runs[
                'own'].stdout
    assert 'Run summary' not in runs['own'].stdout + runs['own'].stderr
    # Nor Ray's error line for actors that may restart (its logging actors
    # do not).
    assert 'core_worker.cc' not in runs['own'].stderr, runs['own'].stderr


def test_simulate_and_export_the_own_environment(runs, tmp_path):
    """Simulated from the project's folder, exported from another one (the
    environment's module is found either way: both load the trial alike)."""
    trial = _trial(runs['folder'] / 'results')
    simulated = run_cli('simulate', trial, '--max-path-length', '20',
                        cwd=runs['folder'], timeout=RUN_GUARD_S)
    assert simulated.returncode == 0, simulated.stderr[-2000:]
    exported = run_cli('export', trial, tmp_path / 'saved_model',
                       cwd=tmp_path, timeout=RUN_GUARD_S)
    assert exported.returncode == 0, exported.stderr[-2000:]
    for noise in TENSORFLOW_NOISE:
        assert noise not in exported.stderr


def test_the_agent_acts_in_the_environments_own_terms(runs):
    import softlearning
    agent = softlearning.load(_trial(runs['folder'] / 'results'))
    env = gymnasium.make('PointMass-v0')  # its module: imported by load
    observation, _ = env.reset(seed=0)
    action, state = agent.predict(observation)  # Stable-Baselines3's habit
    assert action.shape == (1,) and env.action_space.contains(action)
    assert state is None  # a feed-forward agent remembers nothing
    batch, _ = agent.predict(np.stack([observation] * 4))
    assert batch.shape == (4, 1)
    np.testing.assert_allclose(batch[0], action, rtol=1e-5)
    with pytest.raises(ValueError, match=r'observes shape \(\d+,\)'):
        agent.predict(np.append(observation, 0.0))
    result = agent.evaluate(env, episodes=2, seed=0)
    assert result['lengths'] == [50, 50]
    assert np.isfinite(result['return-mean'])


def test_a_trial_that_cannot_be_built_ends_at_once(runs):
    result = runs['licensed']
    assert result.returncode == 1, result.stderr[-3000:]
    assert 'no licence server at licence.example:2718' in result.stdout
    (trial,) = glob.glob(os.path.join(runs['folder'] / 'licensed', '**',
                                      'error.txt'), recursive=True)
    errors = open(trial).read()
    assert errors.count('Failure #') == 1, errors  # not retried
    assert 'Traceback' not in result.stderr, result.stderr[-3000:]
    summary = run_cli('summary', runs['folder'] / 'licensed')
    assert summary.returncode == 0, summary.stderr
    assert '[error]' in summary.stdout
    assert 'no licence server at licence.example:2718' in summary.stdout


@pytest.mark.timing
def test_ctrl_c_is_exit_130_and_restore_continues(runs):
    result = runs['interrupted']
    assert result.returncode == 130, result.stderr[-3000:]
    assert 'Tuner.restore' not in result.stdout + result.stderr
    assert '--restore' in result.stdout
    trial = _trial(runs['folder'] / 'interrupted')
    stopped_at = _results(trial)[-1]['epoch']
    assert stopped_at < 6, result.stdout[-3000:]
    experiment = os.path.dirname(trial)
    resumed = run_cli('run_example_local', 'examples.development',
                      '--restore', experiment, cwd=runs['folder'],
                      timeout=RUN_GUARD_S)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    # What a fresh run prints: every epoch's line from where it resumed to
    # the last (the command prints them itself, so none is lost as the
    # command ends), the results, a few lines of notices at most; none of
    # Tune's own console.
    printed = [int(line.split()[1].split('/')[0])
               for line in resumed.stdout.splitlines()
               if line.startswith('epoch ')]
    assert printed and printed[-1] == 6, resumed.stdout
    assert printed == list(range(printed[0], 7)), resumed.stdout
    assert '[OK]' in resumed.stdout
    other = [line for line in resumed.stderr.splitlines() if line.strip()]
    assert len(other) <= 5, resumed.stderr
    for tune_console in ('Configuration for experiment', 'View detailed',
                         'AIR_VERBOSITY', 'tensorboard --logdir'):
        assert tune_console not in resumed.stdout + resumed.stderr
    from ray.tune import ExperimentAnalysis
    assert [t.status for t in ExperimentAnalysis(experiment).trials] == [
        'TERMINATED']
    # Every epoch is recorded. Once, except where the restored trial re-ran
    # from a checkpoint older than the last result: Ctrl+C can come between
    # an epoch's result and its checkpoint (seen: [1, 2, 2, 3, ...]), and
    # the epoch runs again. Never back to epoch 1: the restored trial
    # started from a checkpoint, not from scratch.
    results = _results(trial)
    epochs = [r['epoch'] for r in results]
    assert sorted(set(epochs)) == list(range(1, 7)), epochs
    assert results[-1]['done'], epochs
    repeated = [e for e in set(epochs) if epochs.count(e) > 1]
    assert all(1 < e <= stopped_at and epochs.count(e) == 2
               for e in repeated), epochs
    # The restored trial counts on from its checkpoint's steps. (Whether
    # it had trained yet depends on where Ctrl+C landed in the warm-up.)
    resumed = [r for r in results if r['epoch'] > stopped_at]
    assert resumed and resumed[0]['total_timestep'] == (
        200 * resumed[0]['epoch']), resumed[0]
    assert results[-1]['num_train_steps'] > 0
