"""benchmarks/peers.py on goal-conditioned tasks: a preset's hindsight
replay pool as the peer's HerReplayBuffer (and MultiInputPolicy), SB3's
TQC through sb3-contrib, the evaluations' success rate in progress.csv,
softlearning's robotics module loaded by path in the peer's process, and
(with a peer library installed) a short SB3 SAC + HER run on FetchReach
that resumes from its checkpoint."""

import csv
import os
import subprocess
import sys

import pytest

from peer_helpers import (BENCHMARKS, SUITE, VERSIONS, needs_peer_python,
                          plan_one, run_worker, skip_without, write_suite)
import peer_processes
import peer_settings
import peer_trial_folder as folders
import peer_worker
import peers
from softlearning import experiments
from softlearning.analysis import load_trials
from softlearning.experiments import ExperimentError
from softlearning.experiments.benchmark.suites import SuiteError

FETCH_SUITE = """\
name: fetch_quick
algorithms: [SAC, TQC]
environments: [gym/FetchReach/v4]
seeds: [0]
steps: 1200
warmup_steps: 1000
evaluation: {episodes: 2, first_seed: 1000, interval: 600}
"""


def hindsight_variant(algorithm, strategy='final', relabeled_goals=6):
    """softlearning's variant of ``algorithm`` on Pendulum with a hindsight
    pool and Fetch-like settings: what the mapping reads, whatever the
    Fetch presets hold."""
    variant = experiments.variant_spec(algorithm=algorithm, universe='gym',
                                       domain='Pendulum', task='v1')
    variant['replay_pool_params'] = {
        'class_name': 'HindsightReplayPool',
        'config': {'max_size': 50000, 'strategy': strategy,
                   'relabeled_goals': relabeled_goals}}
    variant['algorithm_params']['config'].update(
        discount=0.95, tau=0.05, policy_lr=1e-3, Q_lr=1e-3, alpha_lr=1e-3,
        batch_size=512)
    return variant


def constructor_of(tmp_path, algorithm, variant, library='sb3'):
    """(settings, constructor) of a FetchReach run with ``variant``."""
    suite = write_suite(tmp_path, FETCH_SUITE, 'fetch.yaml')
    preset = peer_settings.variant_settings(
        algorithm, 'gym/FetchReach/v4', variant, library)
    config = peer_settings.settings(algorithm, 'gym/FetchReach/v4', suite,
                                    preset)
    return config, peer_settings.constructor(library, algorithm, config)


def test_a_hindsight_pool_is_the_peers_her_replay_buffer(tmp_path):
    config, constructor = constructor_of(tmp_path, 'SAC',
                                         hindsight_variant('SAC'))
    assert {key: config[key] for key in (
        'replay_pool', 'replay_pool_strategy',
        'replay_pool_relabeled_goals', 'replay_pool_max_size')} == {
        'replay_pool': 'HindsightReplayPool', 'replay_pool_strategy': 'final',
        'replay_pool_relabeled_goals': 6, 'replay_pool_max_size': 50000}
    assert (constructor['module'], constructor['class'],
            constructor['policy']) == (
        'stable_baselines3', 'SAC', 'MultiInputPolicy')
    kwargs = constructor['kwargs']
    assert kwargs['replay_buffer_class'] == 'HerReplayBuffer'
    assert kwargs['replay_buffer_kwargs'] == {
        'n_sampled_goal': 6, 'goal_selection_strategy': 'final'}
    assert {key: kwargs[key] for key in (
        'buffer_size', 'gamma', 'tau', 'learning_rate', 'batch_size',
        'learning_starts')} == {
        'buffer_size': 50000, 'gamma': 0.95, 'tau': 0.05,
        'learning_rate': 1e-3, 'batch_size': 512, 'learning_starts': 1000}


def test_sb3_tqc_is_sb3_contribs_with_the_presets_critics(tmp_path):
    variant = hindsight_variant('TQC', strategy='future', relabeled_goals=4)
    variant['Q_params']['config']['n_Q_functions'] = 3
    variant['algorithm_params']['config'][
        'top_quantiles_to_drop_per_net'] = 1
    config, constructor = constructor_of(tmp_path, 'TQC', variant)
    assert (constructor['module'], constructor['class'],
            constructor['policy']) == ('sb3_contrib', 'TQC',
                                       'MultiInputPolicy')
    kwargs = constructor['kwargs']
    assert kwargs['policy_kwargs']['n_critics'] == config[
        'n_Q_functions'] == 3
    assert kwargs['policy_kwargs']['n_quantiles'] == 25
    assert kwargs['top_quantiles_to_drop_per_net'] == 1
    assert kwargs['replay_buffer_kwargs'] == {
        'n_sampled_goal': 4, 'goal_selection_strategy': 'future'}
    assert kwargs['target_update_interval'] == 1
    assert 'qf_learning_rate' not in kwargs  # SB3: one learning rate
    # SBX's TQC has two critics whatever the preset says.
    _, sbx = constructor_of(tmp_path, 'TQC', variant, library='sbx')
    assert (sbx['module'], sbx['kwargs']['policy_kwargs']['n_critics']) == (
        'sbx', 2)


def test_sb3_tqc_refuses_a_suite_that_changes_the_critic_count(tmp_path):
    tqc = SUITE.replace('[SAC, TD3]', '[SAC, TQC]')
    preset = write_suite(tmp_path, tqc, 'preset.yaml')
    peer_settings.check_tqc_critics(preset, ['SAC', 'TQC'], 'sb3')
    two = write_suite(tmp_path, tqc.replace(
        'algorithm_params.config.tau: 0.01',
        'Q_params.config.n_Q_functions: 2'), 'two.yaml')
    with pytest.raises(SuiteError, match="SB3's TQC .* takes the preset's 5"):
        peer_settings.check_tqc_critics(two, ['SAC', 'TQC'], 'sb3')
    peer_settings.check_tqc_critics(two, ['SAC', 'TQC'], 'sbx')


def test_other_pools_leave_the_settings_as_they_were(tmp_path):
    """Without a hindsight pool: no replay entries of its own, MlpPolicy
    (the params.json of runs made before stay what the host writes)."""
    run = plan_one(write_suite(tmp_path), tmp_path / 'out', 'SAC',
                   'gym/Pendulum/v1', library='sb3')
    assert not any(key.startswith('replay_pool_') and key != (
        'replay_pool_max_size') for key in run['config'])
    assert 'replay_pool' not in run['config']
    assert run['constructor']['policy'] == 'MlpPolicy'
    assert 'replay_buffer_class' not in run['constructor']['kwargs']
    assert peers.extra_modules(run) == []


def fetch_run(tmp_path, algorithm='SAC', library='sb3', suite_text=None):
    suite = write_suite(tmp_path, suite_text or FETCH_SUITE, 'fetch.yaml')
    try:
        return suite, plan_one(suite, tmp_path / 'out', algorithm,
                               'gym/FetchReach/v4', library=library)
    except ExperimentError as error:  # without softlearning[robotics]
        pytest.skip(str(error))


@pytest.mark.parametrize('algorithm', ['SAC', 'TQC'])
def test_the_fetch_presets_reach_the_peer(tmp_path, algorithm):
    """A Fetch cell's constructor says what softlearning's preset says."""
    suite, run = fetch_run(tmp_path, algorithm)
    variant = experiments.variant_spec(algorithm=algorithm, universe='gym',
                                       domain='FetchReach', task='v4')
    pool = variant['replay_pool_params']
    algorithm_config = variant['algorithm_params']['config']
    assert pool['class_name'] == 'HindsightReplayPool'
    kwargs = run['constructor']['kwargs']
    assert run['constructor']['policy'] == 'MultiInputPolicy'
    assert kwargs['replay_buffer_kwargs'] == {
        'n_sampled_goal': pool['config']['relabeled_goals'],
        'goal_selection_strategy': pool['config']['strategy']}
    assert (kwargs['gamma'], kwargs['tau'], kwargs['batch_size'],
            kwargs['buffer_size'], kwargs['learning_rate']) == (
        algorithm_config['discount'], algorithm_config['tau'],
        algorithm_config['batch_size'], pool['config']['max_size'],
        algorithm_config['policy_lr'])
    assert kwargs['policy_kwargs']['net_arch'] == list(
        variant['policy_params']['config']['hidden_layer_sizes'])
    if algorithm == 'TQC':
        assert kwargs['policy_kwargs']['n_critics'] == (
            variant['Q_params']['config']['n_Q_functions'])
    # Its params.json records gymnasium-robotics' version (and
    # sb3-contrib's for TQC), not the modules only other runs need.
    expected = ['gymnasium_robotics'] + (
        ['sb3_contrib'] if algorithm == 'TQC' else [])
    assert sorted(peers.extra_modules(run)) == expected
    versions = {'stable_baselines3': '2.9', 'torch': '2.1',
                'gymnasium_robotics': '1.4', 'sb3_contrib': '2.9'}
    recorded = peers.trial_params(suite, versions, run)
    assert sorted(recorded['benchmark']['versions']) == sorted(
        ['stable_baselines3', 'torch'] + expected)


def test_progress_rows_have_the_success_rate_where_reported(tmp_path):
    row = folders.evaluation_row(1, 600, [-50.0, -10.0, -30.0], [50] * 3,
                                 1.0, 1.0, 0.1, 600,
                                 successes=[0.0, 1.0, None])
    assert row[folders.SUCCESS_COLUMN] == 0.5  # of the reported ones
    plain = folders.evaluation_row(1, 600, [-1.0], [50], 1.0, 1.0, 0.1, 600,
                                   successes=[None])
    assert folders.SUCCESS_COLUMN not in plain

    columns = folders.PROGRESS_COLUMNS + (folders.SUCCESS_COLUMN,)
    writer = folders.ProgressWriter(str(tmp_path), columns=columns)
    for epoch, successes in enumerate(([0.0, 0.0], [1.0, 0.0],
                                       [1.0, 1.0]), 1):
        writer.write(folders.evaluation_row(
            epoch, 600 * epoch, [-40.0, -20.0], [50, 50], 10.0 * epoch,
            10.0, 0.5, 600, successes=successes))
    writer.close()
    # Rewound to a checkpoint and continued: the column stays.
    folders.rewind_progress(str(tmp_path), 1200)
    writer = folders.ProgressWriter(str(tmp_path), append=True)
    writer.write(folders.evaluation_row(3, 1800, [-5.0, -5.0], [50, 50],
                                        30.0, 10.0, 0.5, 600,
                                        successes=[1.0, 1.0]))
    writer.close()
    with open(tmp_path / folders.PROGRESS_FILE, newline='') as f:
        rows = list(csv.DictReader(f))
    assert [float(row[folders.SUCCESS_COLUMN]) for row in rows] == [
        0.0, 0.5, 1.0]
    assert [row['total_timestep'] for row in rows] == ['600', '1200', '1800']


class FakeGoalEnvironment:
    """Episodes of 3 steps; an odd reset seed's episode ends in a success
    (``info['is_success']`` at its last step)."""

    action_space = None

    def reset(self, seed=None):
        self.seed, self.t = seed, 0
        return [0.0], {}

    def step(self, action):
        self.t += 1
        done = self.t == 3
        success = float(done and self.seed % 2 == 1)
        return [0.0], success - 1.0, False, done, {'is_success': success}


class ZeroActionModel:
    def predict(self, observation, deterministic):
        return [0.0], None


def test_the_worker_records_each_episodes_success():
    returns, lengths, successes = peer_worker.evaluate(
        ZeroActionModel(), FakeGoalEnvironment(), episodes=3,
        first_seed=1000)
    assert (returns, lengths, successes) == (
        [-3.0, -2.0, -3.0], [3, 3, 3], [0.0, 1.0, 0.0])


def test_the_worker_loads_softlearnings_robotics_module_by_path():
    """The Fetch task is made once the module (by its path) has registered
    it, and reports successes; neither softlearning nor TensorFlow is
    imported (the peer's interpreter has neither)."""
    spec = peer_processes.worker_spec(
        {key: None for key in peer_processes.WORKER_KEYS}, {
            'benchmark': {'constructor': {}}}, resume=None)
    path = spec['robotics_module']
    assert os.path.isfile(path) and path.endswith(os.path.join(
        'softlearning', 'environments', 'adapters', 'robotics.py'))
    if subprocess.run([sys.executable, '-c', 'import gymnasium_robotics'],
                      capture_output=True).returncode:
        pytest.skip('gymnasium-robotics is not installed')
    result = subprocess.run([sys.executable, '-I', '-c', f"""
import sys
sys.path.insert(0, {BENCHMARKS!r})
import gymnasium
assert 'FetchReach-v4' not in gymnasium.registry
import peer_worker
environment = peer_worker.make_environment('FetchReach-v4',
                                           {{'robotics_module': {path!r}}})
print(peer_worker.reports_success(environment, 1000),
      sorted(environment.observation_space.spaces),
      [name for name in ('softlearning', 'tensorflow')
       if name in sys.modules])
"""], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split('\n')[-2] == (
        "True ['achieved_goal', 'desired_goal', 'observation'] []")


@pytest.mark.slow
@needs_peer_python
def test_sb3_sac_with_her_on_fetch_reach_resumes(tmp_path):
    """SB3's SAC + HerReplayBuffer on FetchReach-v4: 1,000 warm-up steps,
    1,200 in all, 2 episodes every 600; then again from the checkpoint at
    600 (the buffer loaded with its environment), as the host resumes an
    unfinished run."""
    skip_without('stable_baselines3', 'gymnasium_robotics')
    suite, run = fetch_run(tmp_path)
    params = peers.trial_params(suite, VERSIONS, run)
    folder = run['folder']
    folders.write_params(folder, params)
    result = run_worker(peer_processes.worker_spec(run, params, None))
    assert result.returncode == 0, result.stderr
    assert 'success ' in result.stdout
    # The worker leaves the checkpoint of every evaluation but the last
    # (the host removes it when the run finishes).
    record = folders.resumable(folder, params)
    assert record['total_timestep'] == 600

    folders.rewind_progress(folder, 600)
    result = run_worker(peer_processes.worker_spec(run, params, record))
    assert result.returncode == 0, result.stderr
    (trial,) = load_trials([folder])
    progress = trial.progress
    assert list(progress['total_timestep']) == [600, 1200]
    rates = progress[folders.SUCCESS_COLUMN]
    assert ((rates >= 0) & (rates <= 1)).all(), rates
