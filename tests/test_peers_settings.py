"""benchmarks/peers.py's host side, without the peer libraries: the suite
as softlearning's loader reads it, the selection, the settings read from
softlearning's presets and the peers' constructor arguments made of them,
and the command line's notices and one-line errors."""

import csv
import glob
import json
import os
import subprocess
import sys

import pytest

from peer_helpers import (
    PEERS_SCRIPT, REPO_ROOT, SUITE, VERSIONS, plan_one, write_run, write_suite)
import peer_settings
import peers
from softlearning.experiments.benchmark.suites import SuiteError, load_suite
from softlearning.experiments.config.presets import crossq as crossq_preset


@pytest.fixture
def suite(tmp_path):
    return write_suite(tmp_path)


def test_environments_map_to_gymnasium_ids():
    assert peers.gymnasium_id('gym/HalfCheetah/v5') == 'HalfCheetah-v5'
    assert peers.gymnasium_id('gym/Pendulum/v1') == 'Pendulum-v1'
    assert peers.trial_name('sbx', 'TD3', 'gym/Walker2d/v5', 4) == (
        'sbx-TD3-Walker2d-v5-seed4')
    assert peers.gymnasium_id('dm_control/cheetah/run') == (
        'dm_control/cheetah-run')
    with pytest.raises(SuiteError, match='gymnasium and dm_control'):
        peers.gymnasium_id('pybullet/HopperBulletEnv/v0')


def test_params_have_softlearning_layout_and_the_protocol(suite, tmp_path):
    params = peers.trial_params(suite, VERSIONS, plan_one(
        suite, tmp_path, 'SAC', 'gym/HalfCheetah/v5', seed=1))
    config = params['algorithm_params']['config']
    assert params['algorithm_params']['class_name'] == 'SAC'
    assert {key: config[key] for key in (
        'policy_lr', 'Q_lr', 'alpha_lr', 'tau', 'discount', 'batch_size',
        'n_initial_exploration_steps', 'initial_alpha', 'target_entropy',
        'hidden_layer_sizes', 'replay_pool_max_size', 'n_epochs',
        'epoch_length', 'eval_n_episodes')} == {
        # tau: the suite's config (peer_helpers.py), which the peers take.
        'policy_lr': 3e-4, 'Q_lr': 3e-4, 'alpha_lr': 3e-4, 'tau': 0.01,
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
    assert benchmark['constructor']['module'] == 'sbx'
    kwargs = benchmark['constructor']['kwargs']
    assert {key: kwargs[key] for key in (
        'learning_rate', 'qf_learning_rate', 'learning_starts', 'ent_coef',
        'target_entropy', 'train_freq', 'gradient_steps')} == {
        'learning_rate': 3e-4, 'qf_learning_rate': 3e-4,
        'learning_starts': 10000, 'ent_coef': 'auto_1.0',
        'target_entropy': 'auto', 'train_freq': 1, 'gradient_steps': 1}
    # The seed is the run's (the peer worker adds it): seeds of one
    # configuration differ in run_params.seed only.
    assert 'seed' not in kwargs
    json.dumps(params)  # all of it is JSON


def test_td3_settings_and_pendulum_learning_rates(suite, tmp_path):
    params = peers.trial_params(suite, {'stable_baselines3': '2'}, plan_one(
        suite, tmp_path, 'TD3', 'gym/Pendulum/v1', library='sb3'))
    config = params['algorithm_params']['config']
    assert {key: config[key] for key in (
        'policy_lr', 'Q_lr', 'exploration_noise', 'target_noise',
        'target_noise_clip', 'policy_delay')} == {
        'policy_lr': 1e-3, 'Q_lr': 1e-3, 'exploration_noise': 0.1,
        'target_noise': 0.2, 'target_noise_clip': 0.5, 'policy_delay': 2}
    assert 'alpha_lr' not in config
    constructor = params['benchmark']['constructor']
    assert (constructor['module'], constructor['class']) == (
        'stable_baselines3', 'TD3')
    kwargs = constructor['kwargs']
    assert kwargs['action_noise'] == {'class': 'NormalActionNoise',
                                      'mean': 0.0, 'sigma': 0.1}
    assert (kwargs['learning_rate'], kwargs['policy_delay'],
            kwargs['target_policy_noise'], kwargs['target_noise_clip'],
            kwargs['policy_kwargs']['net_arch'], kwargs['device']) == (
        1e-3, 2, 0.2, 0.5, [256, 256], 'cpu')


def test_settings_follow_softlearnings_presets(monkeypatch):
    """The settings are read from the presets, not copied: what a preset
    (or its per-domain override) changes, the peers follow."""
    from softlearning.experiments.config.presets import sac as sac_preset
    before = peer_settings.preset_settings('SAC', 'gym/Pendulum/v1')
    assert (before['policy_lr'], before['batch_size']) == (1e-3, 256)
    monkeypatch.setitem(sac_preset.DOMAINS['gym/Pendulum'],
                        'algorithm_params.config.policy_lr', 5e-4)
    monkeypatch.setitem(sac_preset.VARIANT['algorithm_params'], 'config',
                        {'batch_size': 128})
    monkeypatch.setitem(sac_preset.VARIANT['Q_params'], 'config',
                        {'hidden_layer_sizes': (64, 64)})
    monkeypatch.setitem(sac_preset.VARIANT['policy_params'], 'config',
                        {'hidden_layer_sizes': (64, 64)})
    after = peer_settings.preset_settings('SAC', 'gym/Pendulum/v1')
    assert (after['policy_lr'], after['batch_size'],
            after['hidden_layer_sizes']) == (5e-4, 128, [64, 64])
    # What the peers cannot take is one clear error.
    monkeypatch.setitem(sac_preset.VARIANT['Q_params'], 'config',
                        {'hidden_layer_sizes': (32, 32)})
    with pytest.raises(SuiteError, match='one network size for actor and '
                       r'critics; .* \[64, 64\] and \[32, 32\]'):
        peer_settings.preset_settings('SAC', 'gym/Pendulum/v1')


def test_committed_peer_runs_have_todays_settings():
    """The params.json of every committed peer run (benchmarks/results) is
    what the host writes for it today: the trial folders' format is kept,
    and an unfinished run of these settings would resume. (A preset change
    fails this on purpose: those runs were made with other settings.)"""
    checked = set()
    for path in sorted(glob.glob(os.path.join(
            REPO_ROOT, 'benchmarks', 'results', '*', '*', '*',
            'params.json'))):
        with open(path) as f:
            committed = json.load(f)
        benchmark = committed.get('benchmark', {})
        cell = (benchmark.get('suite'), benchmark.get('library'),
                benchmark.get('algorithm'), benchmark.get('environment'))
        if cell[1] not in peers.LIBRARIES or cell in checked:
            continue
        checked.add(cell)
        suite = load_suite(os.path.join(REPO_ROOT, 'examples', 'benchmarks',
                                        f'{cell[0]}.yaml'))
        run = plan_one(suite, '/nonexistent', cell[2], cell[3],
                       committed['run_params']['seed'], cell[1],
                       committed['algorithm_params']['config'].get(
                           'peer_defaults', False))
        written = peers.trial_params(suite, benchmark['versions'], run)
        assert json.loads(json.dumps(written)) == committed, path
    assert len(checked) >= 4


def test_tqc_and_droq_as_sbx_runs_them(suite, tmp_path):
    """SBX's TQC with its two critics and the preset's quantiles and
    per-domain drop, and DroQ as SBX runs it: its SAC with dropout +
    LayerNorm critics, 20 updates per step and the policy every 20."""
    tqc = plan_one(suite, tmp_path, 'TQC', 'gym/Hopper/v5')['constructor']
    assert tqc['class'] == 'TQC'
    assert tqc['kwargs']['policy_kwargs']['n_critics'] == 2
    assert tqc['kwargs']['policy_kwargs']['n_quantiles'] == 25
    assert tqc['kwargs']['top_quantiles_to_drop_per_net'] == 5  # Hopper
    droq = plan_one(suite, tmp_path, 'DroQ', 'gym/Hopper/v5')['constructor']
    assert droq['class'] == 'SAC'
    kwargs = droq['kwargs']
    assert kwargs['gradient_steps'] == kwargs['policy_delay'] == 20
    assert kwargs['policy_kwargs']['dropout_rate'] == 0.01
    assert kwargs['policy_kwargs']['layer_norm'] is True
    # SB3's is sb3-contrib's, which builds the preset's five critics.
    sb3 = plan_one(suite, tmp_path, 'TQC', 'gym/Hopper/v5',
                   library='sb3')['constructor']
    assert (sb3['module'], sb3['class']) == ('sb3_contrib', 'TQC')
    assert sb3['kwargs']['policy_kwargs']['n_critics'] == 5
    assert sb3['kwargs']['top_quantiles_to_drop_per_net'] == 5


def test_crossq_at_softlearnings_preset(suite, tmp_path):
    """SBX's CrossQ at the preset's learning rates, policy delay and critic
    width (its batch renormalization and Adam beta1 0.5 are its defaults),
    without the tau it has no use for."""
    config = crossq_preset.VARIANT['algorithm_params']['config']
    constructor = plan_one(suite, tmp_path, 'CrossQ',
                           'gym/Hopper/v5')['constructor']
    arguments = constructor['kwargs']
    assert constructor['class'] == 'CrossQ'
    assert arguments['learning_rate'] == config['policy_lr']
    assert arguments['qf_learning_rate'] == config['Q_lr']
    assert arguments['policy_delay'] == config['policy_delay'] == 3
    assert arguments['policy_kwargs']['net_arch'] == {
        'pi': [256, 256], 'qf': [crossq_preset.CRITIC_WIDTH] * 2}
    assert 'tau' not in arguments


@pytest.mark.parametrize('library', ['sbx', 'sb3'])
def test_peer_defaults_impose_the_protocol_alone(suite, tmp_path, library):
    """--peer-defaults (per-hour suites): the peer's constructor gets the
    warm-up and nothing of softlearning's presets; params.json says so."""
    run = plan_one(suite, tmp_path, 'SAC', 'gym/Hopper/v5', library=library,
                   peer_defaults=True)
    expected = {'learning_starts': suite.warmup_steps, 'verbose': 0}
    if library == 'sb3':
        expected['device'] = 'cpu'
    assert run['constructor']['kwargs'] == expected
    assert run['config']['peer_defaults'] is True
    assert 'hidden_layer_sizes' not in run['config']
    assert run['config']['n_epochs'] == (suite.steps
                                         // suite.evaluation['interval'])


def test_sbx_tqc_runs_only_against_a_two_critic_suite(tmp_path):
    """SBX's TQC builds two critics whatever n_critics says: a suite whose
    softlearning TQC has the preset's five is refused for it (one line,
    before any run), a suite that sets two is accepted, and leaving TQC out
    of the selection runs the rest."""
    def suite_with(config):
        return write_suite(tmp_path, SUITE.replace(
            '[SAC, TD3]', '[SAC, TQC]').replace(
            "algorithm_params.config.tau: 0.01", config), 'tqc.yaml')

    five = suite_with('algorithm_params.config.tau: 0.01')
    with pytest.raises(SuiteError, match=r"has 2 critics; this "
                       r"suite's softlearning TQC has 5"):
        peer_settings.check_tqc_critics(five, ['SAC', 'TQC'], 'sbx')
    peer_settings.check_tqc_critics(five, ['SAC'], 'sbx')
    two = suite_with('Q_params.config.n_Q_functions: 2')
    peer_settings.check_tqc_critics(two, ['SAC', 'TQC'], 'sbx')
    config = {**peer_settings.settings('TQC', 'gym/Hopper/v5', two),
              'n_Q_functions': 5}
    with pytest.raises(SuiteError, match='2 critics, not 5'):
        peer_settings.constructor_arguments('sbx', 'TQC', config)

    suite_with('algorithm_params.config.tau: 0.01')  # five critics again
    result = subprocess.run(
        [sys.executable, PEERS_SCRIPT, str(tmp_path / 'tqc.yaml'),
         '--peer-python', '/nonexistent/python',
         '--output', str(tmp_path / 'out')], capture_output=True, text=True)
    assert result.returncode == 2, result.stdout
    assert 'n_Q_functions: 2' in result.stderr


def test_the_tqc_suite_compares_two_critics():
    """examples/benchmarks/tqc_50k.yaml passes the check; sac_family_50k's
    TQC (the preset's five critics) does not."""
    suites = os.path.join(REPO_ROOT, 'examples', 'benchmarks')
    family = load_suite(os.path.join(suites, 'sac_family_50k.yaml'))
    with pytest.raises(SuiteError):
        peer_settings.check_tqc_critics(family, family.algorithms, 'sbx')
    tqc = load_suite(os.path.join(suites, 'tqc_50k.yaml'))
    peer_settings.check_tqc_critics(tqc, tqc.algorithms, 'sbx')


def _one_error_line(stderr):
    errors = [line for line in stderr.splitlines()
              if line and not line.startswith(('usage:', ' '))]
    assert len(errors) == 1, stderr
    return errors[0]


def test_command_line_notices_and_errors(tmp_path):
    """Everything finished: the config notice, the skips, no peer needed;
    a selection outside the suite or a bad suite file (softlearning's
    loader's message): one line, exit code 2."""
    suite_file = tmp_path / 'suite.yaml'
    suite = write_suite(tmp_path)
    output = tmp_path / 'out'
    for seed in (0, 1):
        write_run(output / f'sbx-SAC-Pendulum-v1-seed{seed}', suite,
                  [-1.0, -2.0, -3.0], seed=seed).close()
    command = [sys.executable, PEERS_SCRIPT,
               str(suite_file), '--peer-python', '/nonexistent/python',
               '--output', str(output), '--algorithms', 'SAC',
               '--environments', 'gym/Pendulum/v1']
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert sum('reach the peers' in line for line in lines) == 1
    assert sum('skipped' in line for line in lines) == 2
    assert 'Nothing to run' in lines[-1]

    result = subprocess.run(command[:-1] + ['gym/Ant/v5'],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert 'gym/Ant/v5 not in the suite' in _one_error_line(result.stderr)

    result = subprocess.run(command[:5] + ['--seeds', '7'],
                            capture_output=True, text=True)
    assert result.returncode == 2 and 'Seed 7 not in the suite' in (
        result.stderr)

    suite_file.write_text(SUITE.replace('steps: 3000', 'steps: 2500'))
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 2
    assert 'must be a multiple of evaluation.interval' in _one_error_line(
        result.stderr)

    with open(output / 'sbx-SAC-Pendulum-v1-seed0' / 'progress.csv') as f:
        assert len(list(csv.DictReader(f))) == 3
