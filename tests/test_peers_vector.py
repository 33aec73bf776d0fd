"""benchmarks/peers.py where softlearning's preset steps several
environments per sampler and normalizes its inputs (the Fetch manipulation
preset): the peer's vector of environments, its update schedule counted in
steps of that vector, VecNormalize in place of the normalized_mlp, the
refusals of what the peers cannot match, and (with a peer library
installed) a short SB3 run on FetchPush that resumes with its
normalization's statistics."""


import pytest

from peer_helpers import (VERSIONS, needs_peer_python, plan_one, run_worker,
                          skip_without, write_suite)
import peer_processes
import peer_settings
import peer_trial_folder as folders
import peers
from softlearning import experiments
from softlearning.analysis import load_trials
from softlearning.experiments import ExperimentError
from softlearning.experiments.benchmark.suites import SuiteError

PUSH_SUITE = """\
name: push_quick
algorithms: [SAC]
environments: [gym/FetchPush/v4]
seeds: [0]
steps: 1600
warmup_steps: 1200
evaluation: {episodes: 2, first_seed: 1000, interval: 800}
"""


def push_run(tmp_path, suite_text=PUSH_SUITE):
    suite = write_suite(tmp_path, suite_text, 'push.yaml')
    try:
        return suite, plan_one(suite, tmp_path / 'out', 'SAC',
                               'gym/FetchPush/v4', library='sb3')
    except SuiteError:
        raise
    except ExperimentError as error:  # without softlearning[robotics]
        pytest.skip(str(error))


@pytest.mark.parametrize('envs, every, repeat, expected', [
    (1, 1, 1, {'train_freq': 1, 'gradient_steps': 1}),
    (1, 2, 2, {'train_freq': 2, 'gradient_steps': 2}),
    (8, 4, 1, {'train_freq': 1, 'gradient_steps': 2}),
    (8, 1, 2, {'train_freq': 1, 'gradient_steps': 16}),
    (2, 8, 3, {'train_freq': 4, 'gradient_steps': 3}),
])
def test_updates_per_step_are_counted_in_steps_of_the_vector(
        envs, every, repeat, expected):
    config = {'envs_per_sampler': envs, 'train_every_n_steps': every,
              'n_train_repeat': repeat}
    assert peer_settings.update_schedule(config) == expected


def test_an_update_schedule_the_vector_cannot_keep_is_refused():
    with pytest.raises(SuiteError, match='multiple or a divisor'):
        peer_settings.update_schedule({'envs_per_sampler': 8,
                                       'train_every_n_steps': 3,
                                       'n_train_repeat': 1})


def test_the_push_preset_reaches_the_peer_as_a_normalized_vector(tmp_path):
    _, run = push_run(tmp_path)
    variant = experiments.variant_spec(algorithm='SAC', universe='gym',
                                       domain='FetchPush', task='v4')
    envs = variant['sampler_params']['config']['envs_per_sampler']
    algorithm_config = variant['algorithm_params']['config']
    assert envs > 1
    assert variant['policy_params']['config']['network'] == 'normalized_mlp'
    constructor = run['constructor']
    assert constructor['environments'] == {'count': envs,
                                           'normalize_observations': True}
    kwargs = constructor['kwargs']
    assert kwargs['batch_size'] == algorithm_config['batch_size']
    # One update per train_every_n_steps transitions, as softlearning's.
    assert kwargs['train_freq'] == 1
    assert kwargs['gradient_steps'] * algorithm_config[
        'train_every_n_steps'] == envs


def test_one_plain_environment_leaves_the_settings_as_they_were(tmp_path):
    """FetchReach (one environment, plain MLPs): neither the settings nor
    the constructor say anything of vectors or normalization, as before
    the entries existed (committed runs keep resuming)."""
    suite = write_suite(tmp_path, PUSH_SUITE.replace('FetchPush',
                                                     'FetchReach'))
    try:
        run = plan_one(suite, tmp_path / 'out', 'SAC', 'gym/FetchReach/v4',
                       library='sb3')
    except ExperimentError as error:
        pytest.skip(str(error))
    assert not set(peer_settings.VECTOR_ENTRIES) & set(run['config'])
    assert 'environments' not in run['constructor']


def test_the_suites_config_reaches_the_peer(tmp_path):
    """A suite that pins one environment and batches of 256 (as
    fetch_her_300k pins the earlier preset) gets them on both sides."""
    _, run = push_run(tmp_path, PUSH_SUITE + (
        "config:\n"
        "  sampler_params.config.envs_per_sampler: 1\n"
        "  algorithm_params.config.batch_size: 256\n"
        "  policy_params.config.network: mlp\n"
        "  Q_params.config.network: mlp\n"))
    assert 'environments' not in run['constructor']
    assert run['constructor']['kwargs']['batch_size'] == 256


def test_an_interval_the_vector_does_not_divide_is_refused(tmp_path):
    with pytest.raises(SuiteError, match='interval .804. is not a multiple'):
        push_run(tmp_path, PUSH_SUITE.replace('steps: 1600', 'steps: 1608')
                 .replace('interval: 800', 'interval: 804'))


@pytest.mark.parametrize('config, match', [
    ("  policy_params.config.network: mlp\n", 'alike'),
    ("  policy_params.config.network: simba\n"
     "  Q_params.config.network: simba\n", 'not the preset'),
])
def test_networks_the_peers_cannot_build_are_refused(tmp_path, config,
                                                     match):
    with pytest.raises(SuiteError, match=match):
        push_run(tmp_path, PUSH_SUITE + "config:\n" + config)


@pytest.mark.slow
@needs_peer_python
def test_sb3_on_fetch_push_resumes_with_its_normalization(tmp_path):
    """SB3's SAC + HER on FetchPush-v4 with the preset's 8 environments and
    VecNormalize: 1,200 warm-up steps, 1,600 in all, evaluated every 800;
    the checkpoint at 800 holds the normalization's statistics, and the
    run goes on from it with the same statistics."""
    skip_without('stable_baselines3', 'gymnasium_robotics')
    suite, run = push_run(tmp_path)
    params = peers.trial_params(suite, VERSIONS, run)
    folder = run['folder']
    folders.write_params(folder, params)

    result = run_worker(peer_processes.worker_spec(run, params, None), 600)
    assert result.returncode == 0, result.stderr
    record = folders.resumable(folder, params)
    assert record['total_timestep'] == 800
    saved = record['normalization_summary']
    # 8 environments, 100 steps each (and their first resets).
    assert 800 <= saved['count'] <= 808 + 1
    folders.rewind_progress(folder, 800)
    result = run_worker(peer_processes.worker_spec(run, params, record),
                        600)
    assert result.returncode == 0, result.stderr
    # The worker compares what it restored with the record's summary and
    # refuses a mismatch; its own stdout (not Ray's) says what it restored.
    assert (f"resumed the observation normalization "
            f"({saved['count']:.0f} observations") in result.stdout
    (trial,) = load_trials([folder])
    assert list(trial.progress['total_timestep']) == [800, 1600]
