"""simulate_policy and export on a real checkpoint: an MP4 with the
expected frames, and a SavedModel that acts with plain TensorFlow."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from checkpoint_helpers import make_runner, tiny_variant
from conftest import REPO_ROOT, assert_one_line_error

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
                 '--video-path', video, timeout=300,
                 # As on a machine without a desktop session.
                 environ={key: value for key, value in os.environ.items()
                          if key != 'XDG_RUNTIME_DIR'})
    assert result.returncode == 0, result.stderr[-3000:]
    # Windowing libraries' complaint about it is not the user's concern.
    assert 'XDG_RUNTIME_DIR' not in result.stderr, result.stderr[-3000:]
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


# One environment of each suite that run_example_local accepts; classic
# control and Bullet render at their own size (frames are resized).
FILMABLE = [
    ('gym', 'Pendulum', 'v1'),
    ('dm_control', 'cartpole', 'swingup'),
    ('pybullet', 'HalfCheetahBulletEnv', 'v0'),
]


@pytest.mark.parametrize('universe, domain, task', FILMABLE)
def test_simulate_films_every_suite(cli, tmp_path, universe, domain, task):
    runner = make_runner(tiny_variant(universe=universe, domain=domain,
                                      task=task, epochs=1, max_path_length=50))
    runner.train()
    path = str(tmp_path / 'checkpoint_000001')
    runner.save_checkpoint(path)
    runner.stop()
    _, frames = film(cli, path, str(tmp_path / f'{domain}.mp4'), 10,
                     width=32, height=24)
    assert frames.shape == (2 * 11, 24, 32, 3)


ACTS_WITHOUT_TENSORFLOW = """
import sys
from softlearning.cli import simulate
code = simulate.main(sys.argv[1:])
print('tensorflow imported:', 'tensorflow' in sys.modules)
sys.exit(code)
"""


def test_simulate_runs_without_tensorflow(checkpoint, tmp_path):
    """Acting and rendering in one process is safe because simulate acts
    with the numpy policy and never loads TensorFlow."""
    path, _ = checkpoint
    result = subprocess.run(
        [sys.executable, '-c', ACTS_WITHOUT_TENSORFLOW, path,
         '--max-path-length', '5', '--video-path', str(tmp_path / 'a.mp4')],
        cwd=REPO_ROOT, env={**os.environ, 'PYTHONPATH': REPO_ROOT},
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'tensorflow imported: False' in result.stdout


def test_policy_weights_match_tensorflow_policy(checkpoint):
    """The numpy policy simulate acts with is the trained policy."""
    path, runner = checkpoint
    from softlearning.experiments.trial.policy_loading import (
        build_environment, load_numpy_policy)
    from softlearning.utils import checkpoints
    variant = checkpoints.read_variant(path)
    policy = load_numpy_policy(path, variant, build_environment(variant))
    observations = {'observations': np.random.default_rng(1).normal(
        size=(4, 17)).astype(np.float32)}
    with policy.set_deterministic(True), \
            runner.policy.set_deterministic(True):
        np.testing.assert_allclose(policy.actions_np(observations),
                                   runner.policy.actions_np(observations),
                                   atol=1e-6)


def test_checkpoint_without_numpy_weights_still_films(cli, checkpoint,
                                                     tmp_path):
    """Checkpoints from before policy_weights.pkl: the weights are read with
    TensorFlow in a child process."""
    import shutil
    from softlearning.utils import checkpoints
    path, _ = checkpoint
    old = str(tmp_path / 'checkpoint_000001')
    shutil.copytree(path, old)
    os.remove(os.path.join(old, checkpoints.POLICY_WEIGHTS_FILE))
    checkpoints.write_manifest(old, [], {})
    film(cli, old, str(tmp_path / 'old.mp4'), 5, width=32, height=32)


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
    assert_one_line_error(result, 'does not exist')
    assert missing in result.stderr


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
