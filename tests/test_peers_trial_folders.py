"""benchmarks/peers.py's trial folders and runs, without the peer libraries
(but for the last test): progress.csv as softlearning's analysis reads it,
which runs are skipped, continue from a checkpoint or start over, and the
peer worker: standard library only, its evaluation protocol and the
checkpoints it leaves for the host to resume from."""

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from peer_helpers import (BENCHMARKS, PEER_PYTHON, PEERS_SCRIPT, SUITE,
                          VERSIONS, needs_peer_python, plan_one, skip_without,
                          write_run, write_suite)
import peer_processes
import peer_trial_folder as folders
import peer_worker
import peers
from softlearning.analysis import load_trials, summarize
from softlearning.utils.machine import cpu_model


@pytest.fixture
def suite(tmp_path):
    return write_suite(tmp_path)


def test_progress_is_read_by_softlearnings_analysis(suite, tmp_path):
    write_run(tmp_path / 'sbx-SAC-Pendulum-v1-seed0', suite,
              [-1500.0, -900.0, -300.0]).close()
    # Still running: the rows written so far are on disk.
    running = write_run(tmp_path / 'sbx-SAC-Pendulum-v1-seed1', suite,
                        [-1400.0], seed=1)
    trials = load_trials([str(tmp_path)])
    assert sorted(t.status for t in trials) == ['done', 'unfinished']
    for trial in trials:
        assert list(trial.progress.columns) == list(folders.PROGRESS_COLUMNS)
        assert trial.params['benchmark.library'] == 'sbx'
    done = next(t for t in trials if t.status == 'done').progress
    assert list(done['epoch']) == [1, 2, 3]
    assert list(done['total_timestep']) == [1000, 2000, 3000]
    assert list(done['evaluation/return-mean']) == [-1500.0, -900.0, -300.0]
    assert list(done['evaluation/return-std']) == [1.0, 1.0, 1.0]
    assert list(done['evaluation/return-min']) == [-1501.0, -901.0, -301.0]
    assert list(done['evaluation/episode-length-mean']) == [200.0] * 3
    assert list(done['timesteps_per_second']) == [100.0] * 3
    assert list(done['time_total_s']) == [10.0, 20.0, 30.0]
    row = summarize(trials).iloc[0]
    assert (row['seeds'], row['final_mean']) == (2, -850.0)
    running.close()


def test_finished_runs_are_skipped_and_unfinished_ones_planned_again(
        suite, tmp_path, capsys):
    output = tmp_path / 'out'
    finished = output / 'sbx-SAC-Pendulum-v1-seed0'
    write_run(finished, suite, [-1.0, -2.0, -3.0]).close()
    unfinished = output / 'sbx-SAC-Pendulum-v1-seed1'
    write_run(unfinished, suite, [-1.0], seed=1).close()
    (unfinished / folders.ERROR_FILE).write_text('Killed\n')
    assert folders.run_status(str(finished), 3000) == 'finished'
    assert folders.run_status(str(finished), 4000) == 'unfinished'
    assert folders.run_status(str(unfinished), 3000) == 'unfinished'
    assert folders.run_status(str(output / 'new'), 3000) == 'new'
    # Killed after its last evaluation but before it ended: started over,
    # as softlearning's analysis reports it an error.
    failed = output / 'sbx-SAC-Pendulum-v1-seed2'
    write_run(failed, suite, [-1.0, -2.0, -3.0], seed=2).close()
    (failed / folders.ERROR_FILE).write_text('killed by signal 15\n')
    assert folders.run_status(str(failed), 3000) == 'unfinished'
    # A header only, or a last row cut short by a kill.
    header_only = output / 'header_only'
    folders.ProgressWriter(str(header_only)).close()
    assert folders.last_timestep(str(header_only)) is None
    with open(unfinished / folders.PROGRESS_FILE, 'a') as f:
        f.write('2,20')
    assert folders.last_timestep(str(unfinished)) == 1000

    runs = peers.plan_runs(suite, 'sbx', str(output), ['SAC'],
                           ['gym/Pendulum/v1'], [0, 1])
    printed = capsys.readouterr().out
    assert 'sbx-SAC-Pendulum-v1-seed0: finished (3000 steps), skipped' in (
        printed)
    assert [run['name'] for run in runs] == ['sbx-SAC-Pendulum-v1-seed1']
    assert runs[0]['gymnasium_id'] == 'Pendulum-v1'
    folders.clear_run(runs[0]['folder'])
    assert os.listdir(unfinished) == []


class SavingModel:
    """What save_checkpoint asks of a peer's model: files it saves."""

    def save(self, path):
        with open(path, 'wb') as f:
            f.write(b'model')

    def save_replay_buffer(self, path):
        with open(path, 'wb') as f:
            f.write(b'buffer')


def _checkpoint(folder, step, epoch):
    """The peer worker's checkpoint at ``step``, as it saves it."""
    folders.save_checkpoint(SavingModel(), str(folder), {
        'total_timestep': step, 'epoch': epoch,
        'time_total_s': 10.0 * epoch})
    return folders.read_checkpoint(str(folder))


def _start_with_recording_peer(run, params, tmp_path):
    """peer_processes.start_run with a stand-in interpreter that writes the
    worker, the spec it was given, the cores it may run on and its
    niceness to started.json: what the peer worker would train, and how."""
    peer = tmp_path / 'peer'
    peer.write_text(
        '#!/bin/sh\ncores=$(grep Cpus_allowed_list /proc/$$/status '
        '| cut -f2)\nnice=$(cut -d" " -f19 /proc/$$/stat)\n'
        'printf \'{"worker": "%s", "spec": %s, "cores": "%s", "nice": %s}\' '
        '"$1" "$2" "$cores" "$nice" > "$(dirname "$0")/started.json"\n')
    peer.chmod(0o755)
    core = max(os.sched_getaffinity(0))
    process = peer_processes.start_run(run, params, str(peer), core)
    assert process.wait(timeout=60) == 0
    started = json.loads((tmp_path / 'started.json').read_text())
    assert started['worker'] == os.path.join(BENCHMARKS, 'peer_worker.py')
    assert started['cores'] == str(core)  # pinned to the one core
    assert started['nice'] == max(peer_processes.RAY_WORKER_NICENESS,
                                  os.getpriority(os.PRIO_PROCESS, 0))
    assert started['spec']['cpu'] == cpu_model()  # for progress.csv
    return started['spec']


def test_unfinished_run_continues_from_its_checkpoint(tmp_path, capsys):
    """Killed after its third evaluation of five, its checkpoint from the
    second: progress.csv is cut back to step 2000, the worker gets the
    checkpoint and the run's constructor."""
    suite = write_suite(tmp_path, SUITE.replace('steps: 3000', 'steps: 5000'))
    folder = tmp_path / 'out' / 'sbx-SAC-Pendulum-v1-seed0'
    write_run(folder, suite, [-1.0, -2.0, -3.0]).close()
    with open(folder / folders.PROGRESS_FILE, 'a') as f:
        f.write('4,40')  # a row cut short by the kill
    (folder / folders.STDERR_FILE).write_text('Killed\n')
    _checkpoint(folder, 1000, 1)
    record = _checkpoint(folder, 2000, 2)  # (the older one is removed)
    assert sorted(os.listdir(folder / folders.CHECKPOINT_DIR)) == [
        folders.CHECKPOINT_FILE, 'model-2000.zip', 'replay_buffer-2000.pkl']
    run = plan_one(suite, tmp_path / 'out')
    params = peers.trial_params(suite, VERSIONS, run)
    assert folders.resumable(str(folder), params) == record

    spec = _start_with_recording_peer(run, params, tmp_path)
    assert spec['resume'] == record
    assert spec['constructor'] == json.loads(json.dumps(
        params['benchmark']['constructor']))
    assert {key: spec[key] for key in ('name', 'gymnasium_id', 'seed')} == {
        'name': 'sbx-SAC-Pendulum-v1-seed0', 'gymnasium_id': 'Pendulum-v1',
        'seed': 0}
    assert 'continuing from its checkpoint at step 2000' in (
        capsys.readouterr().out)
    with open(folder / folders.PROGRESS_FILE, newline='') as f:
        assert [row['total_timestep'] for row in csv.DictReader(f)] == [
            '1000', '2000']
    assert not (folder / folders.STDERR_FILE).read_text()  # the new run's
    assert (folder / folders.RESUMES_FILE).read_text() == (
        'resumed from the checkpoint at step 2000\n')

    # Once finished, the checkpoint goes.
    assert peer_processes.finish_run(run, 0)
    assert not (folder / folders.CHECKPOINT_DIR).exists()


@pytest.mark.parametrize('damage', [
    'other settings', 'no record', 'missing buffer', 'progress behind'])
def test_a_run_without_a_usable_checkpoint_starts_over(suite, tmp_path,
                                                       capsys, damage):
    folder = tmp_path / 'sbx-SAC-Pendulum-v1-seed0'
    write_run(folder, suite, [-1.0, -2.0]).close()
    record = _checkpoint(folder, 2000, 2)
    run = plan_one(suite, tmp_path / 'planned')
    run['folder'] = str(folder)
    params = peers.trial_params(suite, VERSIONS, run)
    directory = folder / folders.CHECKPOINT_DIR
    if damage == 'other settings':  # e.g. another library version
        params = peers.trial_params(suite, {**VERSIONS, 'sbx': '0.29.0'},
                                    run)
    elif damage == 'no record':  # killed before the record was written
        (directory / folders.CHECKPOINT_FILE).unlink()
    elif damage == 'missing buffer':
        (directory / record['replay_buffer']).unlink()
    else:
        _checkpoint(folder, 3000, 3)
    assert folders.resumable(str(folder), params) is None
    spec = _start_with_recording_peer(run, params, tmp_path)
    assert spec['resume'] is None
    assert 'starting over' in capsys.readouterr().out
    assert not directory.exists()
    with open(folder / folders.PARAMS_FILE) as f:
        assert json.load(f) == json.loads(json.dumps(params))
    assert not (folder / folders.PROGRESS_FILE).exists()


def test_a_failed_run_keeps_its_error_output(suite, tmp_path, capsys):
    run = plan_one(suite, tmp_path)
    os.makedirs(run['folder'])
    with open(os.path.join(run['folder'], folders.STDERR_FILE), 'w') as f:
        f.write('Traceback (most recent call last):\nValueError: bad\n')
    assert not peer_processes.finish_run(run, 1)
    assert 'failed (exit code 1: ValueError: bad' in capsys.readouterr().out
    assert folders.run_status(run['folder'], 3000) == 'unfinished'
    with open(os.path.join(run['folder'], folders.ERROR_FILE)) as f:
        assert f.read().endswith('ValueError: bad\n')


def test_other_algorithms_and_universes_are_skipped(suite, tmp_path,
                                                    capsys):
    runs = peers.plan_runs(suite, 'sbx', str(tmp_path), ['SQL', 'TD3'],
                           ['pybullet/HopperBulletEnv/v0', 'gym/Hopper/v5'],
                           [0])
    printed = capsys.readouterr().out
    assert 'SQL: not run with the peers' in printed
    assert 'gymnasium and dm_control environments only' in printed
    assert [run['name'] for run in runs] == ['sbx-TD3-Hopper-v5-seed0']


def test_peer_processes_use_one_thread():
    environment = peer_processes.peer_process_environment(
        {'XLA_FLAGS': '--a=1'})
    assert environment['OMP_NUM_THREADS'] == '1'
    assert environment['JAX_PLATFORMS'] == 'cpu'
    assert environment['XLA_FLAGS'].startswith('--a=1 ')
    assert '--xla_cpu_multi_thread_eigen=false' in environment['XLA_FLAGS']


def test_the_worker_imports_the_standard_library_only():
    """The worker runs in the peer library's interpreter, where softlearning
    (and anything else of ours) is not installed."""
    result = subprocess.run([sys.executable, '-I', '-c', f"""
import sys
sys.path.insert(0, {BENCHMARKS!r})
before = set(sys.modules)
import peer_worker
top = {{name.split('.')[0] for name in set(sys.modules) - before}}
print(sorted(top - set(sys.stdlib_module_names)
             - {{'peer_worker', 'peer_trial_folder'}}))
"""], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '[]'


class ZeroActionModel:
    """A model whose deterministic action is zero (no torque)."""

    def predict(self, observation, deterministic):
        assert deterministic
        return [0.0], None


def test_the_worker_evaluates_by_the_protocol():
    """Episode i of every evaluation resets with first_seed + i and runs to
    its time limit (Pendulum's 200 steps); the return is the sum of the raw
    rewards."""
    import gymnasium as gym
    environment = gym.make('Pendulum-v1')
    returns, lengths, successes = peer_worker.evaluate(
        ZeroActionModel(), environment, episodes=2, first_seed=1000)
    assert lengths == [200, 200]
    assert successes == [None, None]  # Pendulum reports none
    for i, value in enumerate(returns):
        observation, _ = environment.reset(seed=1000 + i)
        total = sum(float(environment.step([0.0])[1]) for _ in range(200))
        assert value == pytest.approx(total)
    assert returns[0] != returns[1]
    again, _, _ = peer_worker.evaluate(ZeroActionModel(), environment, 2,
                                       1000)
    assert again == returns


def test_the_worker_is_told_a_per_hour_suites_budget(tmp_path):
    """A per-hour suite's budget reaches the peer worker as training
    seconds; without a budget the worker is told null (steps alone)."""
    per_hour = write_suite(tmp_path, SUITE + 'budget: {training_minutes: 30}\n',
                           name='per_hour.yaml')
    for suite, seconds in ((per_hour, 1800), (write_suite(tmp_path), None)):
        run = plan_one(suite, tmp_path / 'out')
        params = peers.trial_params(suite, VERSIONS, run)
        spec = peer_processes.worker_spec(run, params, resume=None)
        assert spec['training_seconds'] == seconds
        assert spec['steps'] == 3000


def _peer_sac_on_pendulum(tmp_path, library, name, length):
    """The trial of ``peers.py`` running the peer's SAC on Pendulum (seed
    0, one evaluation episode every 200 steps), ``length`` its steps (and
    budget) lines of the suite."""
    suite = tmp_path / f'{name}.yaml'
    suite.write_text(
        'algorithms: [SAC]\nenvironments: [gym/Pendulum/v1]\nseeds: [0]\n'
        f'{length}warmup_steps: 100\n'
        'evaluation: {episodes: 1, first_seed: 1000, interval: 200}\n')
    result = subprocess.run(
        [sys.executable, PEERS_SCRIPT, str(suite), '--peer-python',
         PEER_PYTHON, '--library', library, '--output', str(tmp_path / name)],
        capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    (trial,) = load_trials([str(tmp_path / name)])
    return trial


@pytest.mark.slow
@needs_peer_python
@pytest.mark.parametrize('library', peers.LIBRARIES)
def test_a_peer_run_is_a_softlearning_trial(tmp_path, library):
    """With a peer library installed: a short Pendulum run of the peer's
    SAC through the command line, read back by softlearning's analysis."""
    modules = peer_processes.VERSION_MODULES[library]
    skip_without(modules[0])
    trial = _peer_sac_on_pendulum(tmp_path, library, 'out', 'steps: 400\n')
    assert trial.status == 'done'
    assert list(trial.progress['total_timestep']) == [200, 400]
    assert set(trial.progress['cpu']) == {cpu_model()}
    # The peer's learned temperature, in our column, moved by the updates
    # between the two evaluations.
    alpha = trial.progress[peer_worker.TEMPERATURE_COLUMN]
    assert (alpha > 0).all() and alpha.iloc[1] != alpha.iloc[0], alpha
    # And its last update's losses (training started at step 100).
    for column in peer_worker.LOSS_COLUMNS:
        losses = trial.progress[column]
        assert np.isfinite(losses).all() and losses.iloc[1] != losses.iloc[0]
    assert not os.path.exists(os.path.join(
        tmp_path, 'out', f'{library}-SAC-Pendulum-v1-seed0',
        folders.CHECKPOINT_DIR))

    # A per-hour suite: the run ends when its budget (3 s of collecting
    # and training) is spent, far short of its steps, evaluated there.
    trial = _peer_sac_on_pendulum(
        tmp_path, library, 'per_hour',
        'steps: 100000\nbudget: {training_minutes: 0.05}\n')
    spent = trial.progress['training_seconds']
    assert spent.iloc[-1] >= 3 and (spent.iloc[:-1] < 3).all(), spent
    assert trial.progress['total_timestep'].iloc[-1] < 100000
    from softlearning.analysis.benchmark_runs import final_score
    assert final_score(trial)[0] is not None


def test_each_running_peer_run_gets_a_core_of_its_own():
    """The last core first, then down; shared only once all are taken."""
    cores = [3, 2, 1, 0]
    assert peer_processes.next_core(cores, []) == 3
    assert peer_processes.next_core(cores, [3]) == 2
    assert peer_processes.next_core(cores, [3, 1]) == 2
    assert peer_processes.next_core(cores, [3, 2, 1, 0]) == 3
    assert peer_processes.next_core([1, 0], [1, 0, 1]) == 0
