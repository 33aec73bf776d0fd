"""simulate_policy and export on a real checkpoint: an MP4 with the
expected frames, and a SavedModel that acts with plain TensorFlow."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from checkpoint_helpers import make_runner, tiny_variant
from conftest import REPO_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def checkpoint(tmp_path_factory):
    trial_dir = tmp_path_factory.mktemp('trial')
    runner = make_runner(tiny_variant(epochs=1))
    runner.train()
    path = str(trial_dir / 'checkpoint_000001')
    runner.save_checkpoint(path)
    return path, runner


def film(cli, checkpoint_path, video, steps, width, height):
    """``softlearning simulate`` two rollouts into ``video``; returns the
    command's result and the frames read back from the MP4."""
    result = cli('simulate', checkpoint_path, '--max-path-length', steps,
                 '--num-rollouts', 2, '--render-kwargs',
                 json.dumps({'mode': 'rgb_array', 'width': width,
                             'height': height}),
                 '--video-path', video, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    import imageio.v3 as iio
    frames = iio.imread(video)
    assert frames.std() > 1.0  # a rendered scene, not a blank image
    return result, frames


def test_simulate_writes_playable_mp4(cli, checkpoint, tmp_path):
    path, _ = checkpoint
    result, frames = film(cli, path, str(tmp_path / 'cheetah.mp4'), 20,
                          width=64, height=48)
    returns = [line for line in result.stdout.splitlines()
               if line.startswith('rollout ')]
    assert len(returns) == 2 and all('length 20' in r for r in returns)
    # One frame after each reset plus one per step, for each rollout.
    assert frames.shape == (2 * 21, 48, 64, 3)


def test_simulate_films_dm_control(cli, tmp_path):
    runner = make_runner(tiny_variant(universe='dm_control', domain='cartpole',
                                      task='swingup', epochs=1,
                                      max_path_length=50))
    runner.train()
    path = str(tmp_path / 'checkpoint_000001')
    runner.save_checkpoint(path)
    _, frames = film(cli, path, str(tmp_path / 'cartpole.mp4'), 10,
                     width=32, height=32)
    assert frames.shape == (2 * 11, 32, 32, 3)


def test_python_module_entry_point_and_original_syntax(checkpoint):
    """The original's `python -m examples.development.simulate_policy` with
    a stochastic policy, no rendering."""
    path, _ = checkpoint
    result = subprocess.run(
        [sys.executable, '-m', 'examples.development.simulate_policy', path,
         '--max-path-length', '10', '--num-rollouts', '1',
         '--deterministic', 'False'],
        cwd=REPO_ROOT, env={**os.environ, 'PYTHONPATH': REPO_ROOT},
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'rollout 0: return' in result.stdout


def test_simulate_missing_checkpoint(cli, tmp_path):
    missing = str(tmp_path / 'nope')
    result = cli('simulate', missing, timeout=120)
    assert result.returncode == 2 and 'Traceback' not in result.stderr
    assert missing in result.stderr and 'does not exist' in result.stderr


PLAIN_TF = """
import json, sys
import numpy as np
import tensorflow as tf
model = tf.saved_model.load(sys.argv[1])
observations = np.load(sys.argv[2])
per_key = model.actions({'observations': tf.constant(observations)})
flat = model.signatures['actions_flat'](observations=tf.constant(observations))
print(json.dumps({
    'softlearning_imported': any(m.startswith('softlearning') for m in sys.modules),
    'actions': per_key.numpy().tolist(),
    'flat': list(flat.values())[0].numpy().tolist(),
    'keys': [k.decode() for k in model.observation_keys.numpy()],
    'low': model.action_low.numpy().tolist(),
    'high': model.action_high.numpy().tolist()}))
"""


def act_with_saved_model(cli, checkpoint_path, tmp_path, observations):
    """``softlearning export`` the checkpoint, then act on ``observations``
    with plain TensorFlow in a clean process; returns PLAIN_TF's output."""
    out = str(tmp_path / 'policy')
    result = cli('export', checkpoint_path, out, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    np.save(tmp_path / 'obs.npy', observations)
    script = tmp_path / 'act.py'
    script.write_text(PLAIN_TF)
    # A clean environment: no PYTHONPATH, run outside the repository.
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    done = subprocess.run([sys.executable, str(script), out,
                           str(tmp_path / 'obs.npy')], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert not loaded['softlearning_imported']
    return loaded


def test_saved_model_acts_without_softlearning(cli, checkpoint, tmp_path):
    path, runner = checkpoint
    observations = np.random.default_rng(0).normal(
        size=(5, 17)).astype(np.float32)
    loaded = act_with_saved_model(cli, path, tmp_path, observations)
    assert loaded['keys'] == ['observations']
    low, high = runner.training_environment.action_bounds
    np.testing.assert_allclose(loaded['low'], low)
    np.testing.assert_allclose(loaded['high'], high)
    with runner.policy.set_deterministic(True):
        expected = runner.policy.actions_np({'observations': observations})
    np.testing.assert_allclose(loaded['actions'], expected, atol=1e-5)
    np.testing.assert_allclose(loaded['flat'], expected, atol=1e-5)
    assert np.all(np.abs(expected) <= 1.0)
