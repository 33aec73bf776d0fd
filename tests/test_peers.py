"""benchmarks/peers.py without the peer libraries: the suite file, the
settings and trial folders it writes (read back by softlearning's
analysis), and which runs it skips, continues from a checkpoint or starts
over."""

import csv
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from softlearning.analysis import load_trials, summarize

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = _load_module('peers', os.path.join(REPO_ROOT, 'benchmarks',
                                           'peers.py'))

SUITE = """\
name: mujoco_100k
algorithms: [SAC, TD3]
environments: [gym/HalfCheetah/v5, gym/Pendulum/v1]
seeds: [0, 1]
steps: 3000
evaluation:
  episodes: 2
  first_seed: 1000
  interval: 1000
options: {fused_steps: 1}
config:
  algorithm_params.config.tau: 0.01
"""


@pytest.fixture
def suite(tmp_path):
    path = tmp_path / 'suite.yaml'
    path.write_text(SUITE)
    return peers.read_suite(str(path))


def test_reads_the_suite_with_its_defaults(suite, tmp_path):
    assert suite == {
        'name': 'mujoco_100k', 'algorithms': ['SAC', 'TD3'],
        'environments': ['gym/HalfCheetah/v5', 'gym/Pendulum/v1'],
        'seeds': [0, 1], 'steps': 3000, 'warmup_steps': 10000,
        'evaluation': {'episodes': 2, 'first_seed': 1000, 'interval': 1000},
        'config': {'algorithm_params.config.tau': 0.01}}
    # JSON by its name; the name defaults to the file's stem.
    path = tmp_path / 'small.json'
    path.write_text(json.dumps({
        'algorithms': ['SAC'], 'environments': ['gym/Hopper/v5'],
        'seeds': [3], 'steps': 10, 'warmup_steps': 5,
        'evaluation': {'episodes': 1, 'first_seed': 0, 'interval': 5}}))
    small = peers.read_suite(str(path))
    assert (small['name'], small['warmup_steps'],
            small['config']) == ('small', 5, {})


@pytest.mark.parametrize('text, message', [
    ('algorithms: [SAC]\n', "'environments' must be a non-empty list"),
    (SUITE.replace('steps: 3000', 'steps: 2500'), 'not a multiple of'),
    (SUITE.replace('  interval: 1000\n', ''), "has no 'interval'"),
    (SUITE.replace('gym/Pendulum/v1', 'Pendulum-v1'),
     'is not universe/domain/task'),
    ('algorithms: [SAC\n', 'does not parse'),
])
def test_a_bad_suite_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / 'suite.yaml'
    path.write_text(text)
    with pytest.raises(peers.SuiteError, match=message):
        peers.read_suite(str(path))


def test_environments_map_to_gymnasium_ids():
    assert peers.gymnasium_id('gym/HalfCheetah/v5') == 'HalfCheetah-v5'
    assert peers.gymnasium_id('gym/Pendulum/v1') == 'Pendulum-v1'
    assert peers.trial_name('sbx', 'TD3', 'gym/Walker2d/v5', 4) == (
        'sbx-TD3-Walker2d-v5-seed4')
    with pytest.raises(peers.SuiteError, match='gymnasium environments'):
        peers.gymnasium_id('dm_control/cheetah/run')


def test_selection_keeps_the_suite_order_and_rejects_strangers():
    assert peers.select(['SAC', 'TD3'], None, 'Algorithm') == ['SAC', 'TD3']
    assert peers.select([0, 1, 2], [2, 0], 'Seed') == [0, 2]
    with pytest.raises(peers.SuiteError, match='SQL not in the suite'):
        peers.select(['SAC', 'TD3'], ['SQL'], 'Algorithm')


def test_params_have_softlearning_layout_and_the_protocol(suite):
    versions = {'sbx': '0.28.0', 'jax': '0.10.2'}
    params = peers.trial_params(suite, 'sbx', versions, 'SAC',
                                'gym/HalfCheetah/v5', 1)
    config = params['algorithm_params']['config']
    assert params['algorithm_params']['class_name'] == 'SAC'
    assert {key: config[key] for key in (
        'policy_lr', 'Q_lr', 'alpha_lr', 'tau', 'discount', 'batch_size',
        'n_initial_exploration_steps', 'initial_alpha', 'target_entropy',
        'hidden_layer_sizes', 'replay_pool_max_size', 'n_epochs',
        'epoch_length', 'eval_n_episodes')} == {
        'policy_lr': 3e-4, 'Q_lr': 3e-4, 'alpha_lr': 3e-4, 'tau': 5e-3,
        'discount': 0.99, 'batch_size': 256,
        'n_initial_exploration_steps': 10000, 'initial_alpha': 1.0,
        'target_entropy': 'auto', 'hidden_layer_sizes': [256, 256],
        'replay_pool_max_size': 1000000, 'n_epochs': 3,
        'epoch_length': 1000, 'eval_n_episodes': 2}
    assert params['environment_params'] == {'training': {
        'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5',
        'kwargs': {}}}
    assert params['run_params'] == {'seed': 1}
    benchmark = params['benchmark']
    assert {key: benchmark[key] for key in (
        'suite', 'library', 'library_version', 'algorithm', 'environment',
        'steps', 'warmup_steps', 'evaluation')} == {
        'suite': 'mujoco_100k', 'library': 'sbx',
        'library_version': '0.28.0', 'algorithm': 'SAC',
        'environment': 'gym/HalfCheetah/v5', 'steps': 3000,
        'warmup_steps': 10000,
        'evaluation': {'episodes': 2, 'first_seed': 1000, 'interval': 1000,
                       'deterministic': True,
                       'reward': 'raw environment reward'}}
    kwargs = benchmark['constructor']['kwargs']
    assert {key: kwargs[key] for key in (
        'learning_rate', 'qf_learning_rate', 'learning_starts', 'ent_coef',
        'target_entropy', 'train_freq', 'gradient_steps')} == {
        'learning_rate': 3e-4, 'qf_learning_rate': 3e-4,
        'learning_starts': 10000, 'ent_coef': 'auto_1.0',
        'target_entropy': 'auto', 'train_freq': 1, 'gradient_steps': 1}
    # The seed is the run's (the peer process adds it): seeds of one
    # configuration differ in run_params.seed only.
    assert 'seed' not in kwargs
    json.dumps(params)  # all of it is JSON


def test_td3_settings_and_pendulum_learning_rates(suite):
    params = peers.trial_params(suite, 'sb3', {'stable_baselines3': '2'},
                                'TD3', 'gym/Pendulum/v1', 0)
    config = params['algorithm_params']['config']
    assert {key: config[key] for key in (
        'policy_lr', 'Q_lr', 'exploration_noise', 'target_noise',
        'target_noise_clip', 'policy_delay')} == {
        'policy_lr': 1e-3, 'Q_lr': 1e-3, 'exploration_noise': 0.1,
        'target_noise': 0.2, 'target_noise_clip': 0.5, 'policy_delay': 2}
    assert 'alpha_lr' not in config
    kwargs = params['benchmark']['constructor']['kwargs']
    assert kwargs['action_noise'] == {'class': 'NormalActionNoise',
                                      'mean': 0.0, 'sigma': 0.1}
    assert (kwargs['learning_rate'], kwargs['policy_delay'],
            kwargs['target_policy_noise'], kwargs['target_noise_clip'],
            kwargs['policy_kwargs']['net_arch']) == (
        1e-3, 2, 0.2, 0.5, [256, 256])


def test_learning_rates_follow_softlearnings_presets():
    """The Pendulum learning rates are those of softlearning's presets
    (read from their files, without importing TensorFlow)."""
    presets = os.path.join(REPO_ROOT, 'softlearning', 'experiments',
                           'presets')
    for algorithm in ('SAC', 'TD3'):
        preset = _load_module(f'preset_{algorithm}', os.path.join(
            presets, f'{algorithm.lower()}.py'))
        expected = {key.rsplit('.', 1)[1]: value for key, value in
                    preset.DOMAINS['gym/Pendulum'].items()
                    if key.endswith('_lr')}
        assert peers.DOMAIN_SETTINGS[(algorithm, 'gym/Pendulum')] == expected


def _write_run(folder, suite, returns, library='sbx', algorithm='SAC',
               seed=0):
    params = peers.trial_params(suite, library, {'sbx': '0.28.0'},
                                algorithm, 'gym/Pendulum/v1', seed)
    peers.write_params(str(folder), params)
    writer = peers.ProgressWriter(str(folder))
    for epoch, value in enumerate(returns, 1):
        writer.write(peers.evaluation_row(
            epoch, 1000 * epoch, [value - 1, value + 1], [200, 200],
            time_total_s=10.0 * epoch, epoch_seconds=10.0,
            evaluation_seconds=0.5, epoch_steps=1000))
    return writer


def test_progress_is_read_by_softlearnings_analysis(suite, tmp_path):
    _write_run(tmp_path / 'sbx-SAC-Pendulum-v1-seed0', suite,
               [-1500.0, -900.0, -300.0]).close()
    # Still running: the rows written so far are on disk.
    running = _write_run(tmp_path / 'sbx-SAC-Pendulum-v1-seed1', suite,
                         [-1400.0], seed=1)
    trials = load_trials([str(tmp_path)])
    assert sorted(t.status for t in trials) == ['done', 'unfinished']
    for trial in trials:
        assert list(trial.progress.columns) == list(peers.PROGRESS_COLUMNS)
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
    _write_run(finished, suite, [-1.0, -2.0, -3.0]).close()
    unfinished = output / 'sbx-SAC-Pendulum-v1-seed1'
    _write_run(unfinished, suite, [-1.0], seed=1).close()
    (unfinished / peers.ERROR_FILE).write_text('Killed\n')
    assert peers.run_status(str(finished), 3000) == 'finished'
    assert peers.run_status(str(finished), 4000) == 'unfinished'
    assert peers.run_status(str(unfinished), 3000) == 'unfinished'
    assert peers.run_status(str(output / 'new'), 3000) == 'new'
    # Killed after its last evaluation but before it ended: started over,
    # as softlearning's analysis reports it an error.
    failed = output / 'sbx-SAC-Pendulum-v1-seed2'
    _write_run(failed, suite, [-1.0, -2.0, -3.0], seed=2).close()
    (failed / peers.ERROR_FILE).write_text('killed by signal 15\n')
    assert peers.run_status(str(failed), 3000) == 'unfinished'
    # A header only, or a last row cut short by a kill.
    header_only = output / 'header_only'
    peers.ProgressWriter(str(header_only)).close()
    assert peers.last_timestep(str(header_only)) is None
    with open(unfinished / peers.PROGRESS_FILE, 'a') as f:
        f.write('2,20')
    assert peers.last_timestep(str(unfinished)) == 1000

    runs = peers.plan_runs(suite, 'sbx', str(output), ['SAC'],
                           ['gym/Pendulum/v1'], [0, 1])
    printed = capsys.readouterr().out
    assert 'sbx-SAC-Pendulum-v1-seed0: finished (3000 steps), skipped' in (
        printed)
    assert [run['name'] for run in runs] == ['sbx-SAC-Pendulum-v1-seed1']
    assert runs[0]['gymnasium_id'] == 'Pendulum-v1'
    peers.clear_run(runs[0]['folder'])
    assert os.listdir(unfinished) == []


def _checkpoint(folder, step, epoch):
    """What save_checkpoint leaves (the files' contents are the peer's)."""
    directory = folder / peers.CHECKPOINT_DIR
    directory.mkdir(parents=True, exist_ok=True)
    record = {'total_timestep': step, 'epoch': epoch,
              'time_total_s': 10.0 * epoch, 'model': f'model-{step}.zip',
              'replay_buffer': f'replay_buffer-{step}.pkl'}
    (directory / record['model']).write_bytes(b'model')
    (directory / record['replay_buffer']).write_bytes(b'buffer')
    (directory / peers.CHECKPOINT_FILE).write_text(json.dumps(record))
    return record


def _start_with_recording_peer(run, params, tmp_path):
    """peers._start with a stand-in interpreter that writes the spec it
    was given to spec.json: what the peer process would train."""
    peer = tmp_path / 'peer'
    peer.write_text('#!/bin/sh\nprintf %s "$4" > "$(dirname "$0")/spec.json"\n')
    peer.chmod(0o755)
    assert peers._start(run, params, str(peer)).wait(timeout=60) == 0
    return json.loads((tmp_path / 'spec.json').read_text())


def test_unfinished_run_continues_from_its_checkpoint(suite, tmp_path,
                                                      capsys):
    """Killed after its third evaluation, its checkpoint from the second:
    progress.csv is cut back to step 2000, the peer gets the checkpoint."""
    folder = tmp_path / 'out' / 'sbx-SAC-Pendulum-v1-seed0'
    _write_run(folder, suite, [-1.0, -2.0, -3.0]).close()
    with open(folder / peers.PROGRESS_FILE, 'a') as f:
        f.write('4,40')  # a row cut short by the kill
    (folder / peers.STDERR_FILE).write_text('Killed\n')
    record = _checkpoint(folder, 2000, 2)
    (run,) = peers.plan_runs({**suite, 'steps': 5000}, 'sbx',
                             str(tmp_path / 'out'), ['SAC'],
                             ['gym/Pendulum/v1'], [0])
    params = peers.trial_params(suite, 'sbx', {'sbx': '0.28.0'}, 'SAC',
                                'gym/Pendulum/v1', 0)
    assert peers.resumable(str(folder), params) == record

    spec = _start_with_recording_peer(run, params, tmp_path)
    assert spec['resume'] == record
    assert 'continuing from its checkpoint at step 2000' in (
        capsys.readouterr().out)
    with open(folder / peers.PROGRESS_FILE, newline='') as f:
        assert [row['total_timestep'] for row in csv.DictReader(f)] == [
            '1000', '2000']
    assert not (folder / peers.STDERR_FILE).read_text()  # the new run's
    assert (folder / peers.RESUMES_FILE).read_text() == (
        'resumed from the checkpoint at step 2000\n')

    # Once finished, the checkpoint goes.
    assert peers._finish(run, 0)
    assert not (folder / peers.CHECKPOINT_DIR).exists()


@pytest.mark.parametrize('damage', [
    'other settings', 'no record', 'missing buffer', 'progress behind'])
def test_a_run_without_a_usable_checkpoint_starts_over(suite, tmp_path,
                                                       capsys, damage):
    folder = tmp_path / 'sbx-SAC-Pendulum-v1-seed0'
    _write_run(folder, suite, [-1.0, -2.0]).close()
    record = _checkpoint(folder, 2000, 2)
    params = peers.trial_params(suite, 'sbx', {'sbx': '0.28.0'}, 'SAC',
                                'gym/Pendulum/v1', 0)
    directory = folder / peers.CHECKPOINT_DIR
    if damage == 'other settings':  # e.g. another library version
        params = peers.trial_params(suite, 'sbx', {'sbx': '0.29.0'}, 'SAC',
                                    'gym/Pendulum/v1', 0)
    elif damage == 'no record':  # killed before the record was written
        (directory / peers.CHECKPOINT_FILE).unlink()
    elif damage == 'missing buffer':
        (directory / record['replay_buffer']).unlink()
    else:
        _checkpoint(folder, 3000, 3)
    assert peers.resumable(str(folder), params) is None
    (run,) = peers.plan_runs({**suite, 'steps': 5000}, 'sbx', str(tmp_path),
                             ['SAC'], ['gym/Pendulum/v1'], [0])
    spec = _start_with_recording_peer(run, params, tmp_path)
    assert spec['resume'] is None
    assert 'starting over' in capsys.readouterr().out
    assert not directory.exists()
    with open(folder / peers.PARAMS_FILE) as f:
        assert json.load(f) == json.loads(json.dumps(params))
    assert not (folder / peers.PROGRESS_FILE).exists()


def test_other_algorithms_and_universes_are_skipped(suite, tmp_path,
                                                    capsys):
    runs = peers.plan_runs(suite, 'sbx', str(tmp_path), ['SQL', 'TD3'],
                           ['dm_control/cheetah/run', 'gym/Hopper/v5'], [0])
    printed = capsys.readouterr().out
    assert 'SQL: not run with the peers' in printed
    assert 'gymnasium environments only' in printed
    assert [run['name'] for run in runs] == ['sbx-TD3-Hopper-v5-seed0']


def test_peer_processes_use_one_thread():
    environment = peers.peer_process_environment({'XLA_FLAGS': '--a=1'})
    assert environment['OMP_NUM_THREADS'] == '1'
    assert environment['JAX_PLATFORMS'] == 'cpu'
    assert environment['XLA_FLAGS'].startswith('--a=1 ')
    assert '--xla_cpu_multi_thread_eigen=false' in environment['XLA_FLAGS']


def test_command_line_notices_and_errors(tmp_path):
    """Everything finished: the config notice, the skips, no peer needed;
    a selection outside the suite: one line, exit code 2."""
    suite_file = tmp_path / 'suite.yaml'
    suite_file.write_text(SUITE)
    suite = peers.read_suite(str(suite_file))
    output = tmp_path / 'out'
    for seed in (0, 1):
        _write_run(output / f'sbx-SAC-Pendulum-v1-seed{seed}', suite,
                   [-1.0, -2.0, -3.0], seed=seed).close()
    command = [sys.executable, os.path.join(REPO_ROOT, 'benchmarks',
                                            'peers.py'),
               str(suite_file), '--peer-python', '/nonexistent/python',
               '--output', str(output), '--algorithms', 'SAC',
               '--environments', 'gym/Pendulum/v1']
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert sum('not applied to the peers' in line for line in lines) == 1
    assert sum('skipped' in line for line in lines) == 2
    assert 'Nothing to run' in lines[-1]

    result = subprocess.run(command[:-1] + ['gym/Ant/v5'],
                            capture_output=True, text=True)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines()
              if line and not line.startswith(('usage:', ' '))]
    assert len(errors) == 1 and 'gym/Ant/v5 not in the suite' in errors[0]

    result = subprocess.run(command[:5] + ['--seeds', '7'],
                            capture_output=True, text=True)
    assert result.returncode == 2 and 'Seed 7 not in the suite' in (
        result.stderr)

    with open(output / 'sbx-SAC-Pendulum-v1-seed0' / 'progress.csv') as f:
        assert len(list(csv.DictReader(f))) == 3


def test_tqc_and_droq_mirror_softlearnings_presets(suite):
    """SBX's TQC with its two critics and the preset's quantiles and
    per-domain drop, and DroQ as SBX runs it: its SAC with dropout +
    LayerNorm critics, 20 updates per step and the policy every 20."""
    from softlearning.experiments.presets import tqc as preset
    assert peers.TQC_PRESET_CRITICS == (
        preset.VARIANT['Q_params']['config']['n_Q_functions'])
    tqc = peers.constructor_arguments(
        'sbx', 'TQC', peers.settings('TQC', 'gym/Hopper/v5', suite))
    assert tqc['policy_kwargs']['n_critics'] == 2
    assert tqc['policy_kwargs']['n_quantiles'] == 25
    assert tqc['top_quantiles_to_drop_per_net'] == 5  # Hopper, as the paper
    droq = peers.constructor_arguments(
        'sbx', 'DroQ', peers.settings('DroQ', 'gym/Hopper/v5', suite))
    assert droq['gradient_steps'] == droq['policy_delay'] == 20
    assert droq['policy_kwargs']['dropout_rate'] == 0.01
    assert droq['policy_kwargs']['layer_norm'] is True
    assert peers.PEER_CLASSES['DroQ'] == 'SAC'
    with pytest.raises(peers.SuiteError, match='SB3 has no TQC'):
        peers.constructor_arguments(
            'sb3', 'TQC', peers.settings('TQC', 'gym/Hopper/v5', suite))


def test_sbx_tqc_runs_only_against_a_two_critic_suite(tmp_path):
    """SBX's TQC builds two critics whatever n_critics says: a suite whose
    softlearning TQC has the preset's five is refused for it (one line,
    before any run), a suite that sets two is accepted, and leaving TQC out
    of the selection runs the rest."""
    def suite_with(config):
        path = tmp_path / 'tqc.yaml'
        path.write_text(SUITE.replace('[SAC, TD3]', '[SAC, TQC]').replace(
            "algorithm_params.config.tau: 0.01", config))
        return peers.read_suite(str(path))

    five = suite_with('algorithm_params.config.tau: 0.01')
    with pytest.raises(peers.SuiteError, match=r"has 2 critics; this "
                       r"suite's softlearning TQC has 5"):
        peers.check_tqc_critics(five, ['SAC', 'TQC'], 'sbx')
    peers.check_tqc_critics(five, ['SAC'], 'sbx')
    two = suite_with('Q_params.config.n_Q_functions: 2')
    peers.check_tqc_critics(two, ['SAC', 'TQC'], 'sbx')
    config = {**peers.settings('TQC', 'gym/Hopper/v5', two),
              'n_Q_functions': 5}
    with pytest.raises(peers.SuiteError, match='2 critics, not 5'):
        peers.constructor_arguments('sbx', 'TQC', config)

    suite_with('algorithm_params.config.tau: 0.01')  # five critics again
    result = subprocess.run(
        [sys.executable, os.path.join(REPO_ROOT, 'benchmarks', 'peers.py'),
         str(tmp_path / 'tqc.yaml'), '--peer-python', '/nonexistent/python',
         '--output', str(tmp_path / 'out')], capture_output=True, text=True)
    assert result.returncode == 2, result.stdout
    assert 'n_Q_functions: 2' in result.stderr


def test_the_tqc_suite_compares_two_critics(tmp_path):
    """examples/benchmarks/tqc_50k.yaml passes the check; sac_family_50k's
    TQC (the preset's five critics) does not."""
    family = peers.read_suite(os.path.join(
        REPO_ROOT, 'examples', 'benchmarks', 'sac_family_50k.yaml'))
    with pytest.raises(peers.SuiteError):
        peers.check_tqc_critics(family, family['algorithms'], 'sbx')
    tqc = peers.read_suite(os.path.join(
        REPO_ROOT, 'examples', 'benchmarks', 'tqc_50k.yaml'))
    peers.check_tqc_critics(tqc, tqc['algorithms'], 'sbx')


def test_crossq_mirrors_softlearnings_preset(suite):
    """SBX's CrossQ at the preset's learning rates, policy delay and critic
    width (its batch renormalization and Adam beta1 0.5 are its defaults),
    without the tau it has no use for."""
    from softlearning.experiments.presets import crossq as preset
    assert peers.CROSSQ_CRITIC_WIDTH == preset.CRITIC_WIDTH
    config = preset.VARIANT['algorithm_params']['config']
    arguments = peers.constructor_arguments(
        'sbx', 'CrossQ', peers.settings('CrossQ', 'gym/Hopper/v5', suite))
    assert arguments['learning_rate'] == config['policy_lr']
    assert arguments['qf_learning_rate'] == config['Q_lr']
    assert arguments['policy_delay'] == config['policy_delay'] == 3
    assert arguments['policy_kwargs']['net_arch'] == {
        'pi': [256, 256], 'qf': [preset.CRITIC_WIDTH] * 2}
    assert 'tau' not in arguments
    assert peers.PEER_CLASSES['CrossQ'] == 'CrossQ'


collect_results = _load_module('collect_results', os.path.join(
    REPO_ROOT, 'benchmarks', 'collect_results.py'))


def test_collect_results_keeps_finished_trials_one_row_per_epoch(tmp_path):
    """A trial resumed from an older checkpoint repeats epochs in its
    progress.csv: the copy has each epoch once (its last row, the values
    as written); an unfinished trial is not copied."""
    source, destination = tmp_path / 'suite', tmp_path / 'results'
    rows = {'SAC-Hopper-v5-seed0_e1e9d_00001': [1, 2, 3, 2, 3, 4],
            'SAC-Hopper-v5-seed1_e1e9d_00002': [1, 2]}
    for name, epochs in rows.items():
        trial = source / name
        trial.mkdir(parents=True)
        (trial / 'params.json').write_text(json.dumps(
            {'benchmark': {'steps': 400}}))
        with open(trial / 'progress.csv', 'w', newline='') as f:
            writer = csv.writer(f)
            writer.writerow(['epoch', 'total_timestep',
                             'evaluation/return-mean'])
            for i, epoch in enumerate(epochs):
                writer.writerow([epoch, 100 * epoch, f'{epoch}.{i}'])
    copied = collect_results.collect(str(source), str(destination))
    assert copied == [{'trial': 'SAC-Hopper-v5-seed0',
                       'from': str(source / 'SAC-Hopper-v5-seed0_e1e9d_00001'),
                       'repeated_rows_dropped': 2}]
    assert os.listdir(destination) == ['SAC-Hopper-v5-seed0']
    with open(destination / 'SAC-Hopper-v5-seed0' / 'progress.csv') as f:
        kept = list(csv.DictReader(f))
    assert [(row['epoch'], row['evaluation/return-mean']) for row in kept] == [
        ('1', '1.0'), ('2', '2.3'), ('3', '3.4'), ('4', '4.5')]
