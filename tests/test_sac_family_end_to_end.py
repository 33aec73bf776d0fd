"""CrossQ and SAC with SimBa networks through the command line as a user
runs them: sampler actors (TensorFlow-free, acting with the numpy mirrors
of batch renormalization and running normalization), a curriculum (its
values reach the actors' physics on schedule), checkpoints, then
``softlearning export``: the SavedModel, in a clean process, acts as the
checkpoint's numpy policy."""

import json
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import read_progress, run_clis_at_once, trial_dirs
from test_simulate_policy import act_with_saved_model

pytestmark = pytest.mark.slow

TINY = ['--n-epochs', '2', '--epoch-length', '200', '--max-path-length', '100',
        '--seed', '3', '--num-samplers', '2', '--sampler-cpus', '0.25',
        '--cpus', '2', '--trial-cpus', '0.5', '--checkpoint-frequency', '1',
        '--verbose', '0',
        '--config', 'algorithm_params.config.n_initial_exploration_steps=100',
        '--config', 'algorithm_params.config.eval_n_episodes=1',
        '--config', 'algorithm_params.config.batch_size=32',
        '--config', 'algorithm_params.config.fused_steps=20']


def runs(curriculum):
    """Each run's options: CrossQ's with the curriculum file."""
    return {
        'CrossQ': ['--algorithm', 'CrossQ', '--domain', 'HalfCheetah',
                   '--task', 'v5', '--curriculum', curriculum,
                   '--config', 'Q_params.config.hidden_layer_sizes=[32,32]',
                   '--config',
                   'policy_params.config.hidden_layer_sizes=[32,32]'],
        'SimBa': ['--algorithm', 'SAC', '--network', 'simba', '--domain',
                  'Pendulum', '--task', 'v1',
                  '--config', 'Q_params.config.hidden_layer_sizes=[32]',
                  '--config', 'policy_params.config.hidden_layer_sizes=[32]'],
    }


# From epoch 1 (iteration 0) the mass scale rises by 0.1 an epoch; from
# epoch 2 the friction scale falls from 1.0.
CURRICULUM = {
    'mass': {'iters': [0, 1, 2], 'range': [0.0, 0.2], 'randomize': True},
    'friction': {'iters': [1, 2], 'range': [1.0, 0.8]}}


def test_on_sampler_actors_with_checkpoints_then_export(cli, tmp_path):
    from softlearning.experiments import load_trained_policy
    curriculum = tmp_path / 'curriculum.json'
    curriculum.write_text(json.dumps(CURRICULUM))
    options = runs(curriculum)
    results = run_clis_at_once({
        name: ['run_example_local', 'examples.development', '--universe',
               'gym', *run_options, *TINY, '--local-dir', tmp_path / name]
        for name, run_options in options.items()})
    expected, exports = {}, {}
    # The exports (each two processes) run side by side, one per CPU.
    with ThreadPoolExecutor(len(options)) as pool:
        for name, result in results.items():
            assert result.returncode == 0, (name, result.stdout[-3000:],
                                            result.stderr[-3000:])
            (trial_dir,) = trial_dirs(tmp_path / name)
            progress = read_progress(trial_dir)
            assert list(progress['training/num-samplers']) == [2, 2], name
            assert np.isfinite(progress['Q_loss'].iloc[-1]), name
            assert list(progress['total_timestep']) == [200, 400], name
            assert list(progress['training/episodes']) == [2, 2], name
            if name == 'CrossQ':
                assert list(progress['curriculum/mass']) == pytest.approx(
                    [0.0, 0.1])
                friction = list(progress['curriculum/friction'])
                assert math.isnan(friction[0]) and friction[1] == 1.0

            policy = load_trained_policy(trial_dir)
            size = int(np.prod(policy.environment.observation_shapes[
                'observations']))
            observations = np.random.default_rng(0).normal(
                size=(6, size)).astype(np.float32)
            with policy.set_deterministic(True):
                expected[name] = policy.actions_np(
                    {'observations': observations})
            exports[name] = pool.submit(act_with_saved_model, cli, trial_dir,
                                        tmp_path / name, observations)
        for name, export in exports.items():
            np.testing.assert_allclose(export.result()['actions'],
                                       expected[name], atol=1e-5,
                                       err_msg=name)
