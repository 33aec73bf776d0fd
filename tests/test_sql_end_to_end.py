"""Soft Q-Learning end to end: exact resume from a checkpoint, sampler
actors, the curriculum, simulate (MP4) and export (SavedModel), through the
same code paths (and for the CLI, the same commands) as SAC."""

import json

import numpy as np
import pytest

from checkpoint_helpers import make_runner, tiny_args, tiny_variant
from conftest import read_progress, run_cli, trial_dirs
from test_simulate_policy import act_with_saved_model, film

pytestmark = pytest.mark.slow

# The diagnostics an SQL update returns (progress.csv columns).
DIAGNOSTIC_KEYS = ('Q_loss', 'Q_value-mean', 'soft_value-mean',
                   'policy_loss', 'svgd_direction-norm', 'kernel_bandwidth')


@pytest.fixture(scope='module')
def sql_checkpoint(tmp_path_factory):
    """An SQL variant, its checkpoint after two epochs, the third epoch's
    diagnostics, and the policy weights saved in the checkpoint."""
    trial_dir = tmp_path_factory.mktemp('sql_trial')
    variant = tiny_variant(algorithm='SQL', epochs=3)
    runner = make_runner(variant)
    runner.train()
    runner.train()
    path = str(trial_dir / 'checkpoint_000002')
    runner.save_checkpoint(path)
    weights = runner.policy.get_weights()
    epoch3 = runner.train()
    return variant, path, epoch3, weights


def test_sql_resumed_run_matches_uninterrupted_run(sql_checkpoint):
    """Epoch 3 after a restore == epoch 3 of the run that never stopped:
    same weights, optimizer slots, update noise (random generator), pool,
    sampler and policy random state. Compared exactly."""
    variant, path, expected, _ = sql_checkpoint
    assert variant['algorithm_params']['class_name'] == 'SQL'
    restored = make_runner(variant)
    restored.load_checkpoint(path)
    result = restored.train()
    assert result['epoch'] == 3 and result['num_train_steps'] > 0
    for key in DIAGNOSTIC_KEYS:
        assert np.isfinite(expected[key]), key
        assert result[key] == expected[key], key
    assert result['training'] == expected['training']
    assert result['evaluation'] == expected['evaluation']
    assert result['policy'] == expected['policy']


def test_sql_simulate_writes_mp4(cli, sql_checkpoint, tmp_path):
    _, path, _, _ = sql_checkpoint
    result, frames = film(cli, path, str(tmp_path / 'sql.mp4'), 10,
                          width=32, height=32)
    assert len([line for line in result.stdout.splitlines()
                if line.startswith('rollout ')]) == 2
    assert frames.shape == (2 * 11, 32, 32, 3)


def test_sql_export_acts_like_the_policy_without_softlearning(
        cli, sql_checkpoint, tmp_path):
    variant, path, _, weights = sql_checkpoint
    observations = np.random.default_rng(0).normal(
        size=(5, 17)).astype(np.float32)
    loaded = act_with_saved_model(cli, path, tmp_path, observations)
    # The deterministic action (xi = 0) of the TensorFlow-free policy
    # loading the checkpoint's weights (as sampler actors do).
    from softlearning.environments import get_environment_from_params
    from softlearning.policies import get_numpy_policy
    policy = get_numpy_policy(variant['policy_params'],
                              get_environment_from_params(
                                  variant['environment_params']['training']))
    policy.set_weights(weights)
    with policy.set_deterministic(True):
        expected = policy.actions_np({'observations': observations})
    assert np.std(expected) > 1e-3
    np.testing.assert_allclose(loaded['actions'], expected, atol=1e-5)
    np.testing.assert_allclose(loaded['flat'], expected, atol=1e-5)


@pytest.fixture(scope='module')
def actors_and_curriculum_run(tmp_path_factory):
    """SQL with two sampler actors and a mass curriculum, through the CLI."""
    local_dir = tmp_path_factory.mktemp('sql_cli')
    curriculum = local_dir / 'mass.json'
    curriculum.write_text(json.dumps(
        {'mass': {'iters': [0, 1], 'range': [1.0, 1.5]}}))
    result = run_cli(
        'run_example_local', 'examples.development',
        *map(str, tiny_args(algorithm='SQL', epochs=2, exploration=50)),
        '--local-dir', local_dir, '--cpus', '2', '--trial-cpus', '1',
        '--num-samplers', '2', '--sampler-cpus', '0.5',
        '--curriculum', curriculum, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (trial_dir,) = trial_dirs(local_dir)
    return read_progress(trial_dir)


def test_sql_collects_with_two_sampler_actors(actors_and_curriculum_run):
    progress = actors_and_curriculum_run
    assert list(progress['training/num-samplers']) == [2, 2]
    assert progress['total_timestep'].iloc[-1] == 200
    assert progress['num_train_steps'].iloc[-1] == 150
    for key in DIAGNOSTIC_KEYS:
        assert np.isfinite(progress[key].iloc[-1]), key


def test_sql_follows_the_curriculum(actors_and_curriculum_run):
    progress = actors_and_curriculum_run
    assert list(progress['curriculum/mass']) == [1.0, 1.5]
    assert np.isfinite(progress['evaluation/return-mean']).all()
