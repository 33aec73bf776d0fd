"""SAC from pixels: the encoder (Keras and numpy), random-shift
augmentation, the frame pool, and end to end through the command line and
an exact resume (rendering happens in sampler actors and CLI subprocesses:
OSMesa must not share a process with TensorFlow)."""

import glob
import json
import os

import numpy as np
import pytest
import tensorflow as tf

from conftest import read_progress, run_cli, trial_dirs
from pixel_helpers import CountingEnvironment
from softlearning.environments.pixels import Pixels
from softlearning.models.conv_encoder import ConvEncoder
from softlearning.models.numpy_conv import NumpyConvEncoder
from softlearning.replay_pools import FrameReplayPool
from softlearning.samplers.episode_stepper import (EpisodeStepper,
                                                   stack_transitions)
# One Ray session for this module's in-process trial (its sampler actors).
from test_remote_sampler import ACTOR_OPTIONS, ray_cluster  # noqa: F401


# The encoder -----------------------------------------------------------------------

ENCODER = {'filters': (8, 8), 'strides': (2, 1), 'feature_size': 10}


@pytest.mark.parametrize('size, extra', [(32, {}), (84, {'state': (5,)})])
def test_encoder_output_shapes(size, extra):
    shapes = {'pixels': (size, size, 9), **extra}
    encoder = ConvEncoder(shapes, **ENCODER)
    observations = {'pixels': np.zeros((4, size, size, 9), np.uint8),
                    **{k: np.ones((4, *s), np.float32)
                       for k, s in extra.items()}}
    features = encoder(observations)
    expected = 10 + sum(s[0] for s in extra.values())
    assert features.shape == (4, expected) == (4, encoder.output_size)
    assert NumpyConvEncoder(shapes, shapes, **ENCODER)(
        observations).shape == (4, expected)


def test_numpy_encoder_equals_the_keras_one_on_the_same_weights():
    shapes = {'pixels': (40, 40, 9), 'state': (3,)}
    encoder = ConvEncoder(shapes, filters=(16, 16, 16), strides=(2, 2, 1),
                          feature_size=20)
    rng = np.random.default_rng(0)
    observations = {'pixels': rng.integers(0, 256, (6, 40, 40, 9), np.uint8),
                    'state': rng.normal(size=(6, 3)).astype(np.float32)}
    np.testing.assert_allclose(encoder.numpy_copy()(observations),
                               encoder(observations).numpy(), atol=1e-5)


def test_numpy_conv_policy_acts_like_the_tensorflow_policy():
    from softlearning import policies
    from softlearning.policies.numpy_policies import get_numpy_policy
    environment = Pixels(CountingEnvironment(), image_size=32)
    encoder = ConvEncoder(environment.observation_shapes, **ENCODER)
    params = {'class_name': 'FeedforwardGaussianPolicy',
              'config': {'hidden_layer_sizes': (16, 16)}}
    policy = policies.get(params, environment, seed=0, encoder=encoder)
    # The policy trains its network only: the encoder is the critic's.
    encoder_variables = {v.ref() for v in encoder.trainable_variables}
    assert not encoder_variables & {
        v.ref() for v in policy.trainable_variables}
    numpy_policy = get_numpy_policy(params, environment, seed=1,
                                    encoder_params={'config': ENCODER})
    numpy_policy.set_weights(policy.get_weights())
    rng = np.random.default_rng(0)
    observations = {'pixels': rng.integers(0, 256, (5, 32, 32, 9), np.uint8)}
    with policy.set_deterministic(), numpy_policy.set_deterministic():
        expected = policy.actions(observations).numpy()
        np.testing.assert_allclose(numpy_policy.actions_np(observations),
                                   expected, atol=1e-5)
        np.testing.assert_allclose(policy.actions_np(observations), expected,
                                   atol=1e-5)


def test_the_critic_loss_trains_the_encoder_and_the_policy_loss_does_not():
    from softlearning import policies, value_functions
    environment = Pixels(CountingEnvironment(), image_size=32)
    encoder = ConvEncoder(environment.observation_shapes, **ENCODER)
    policy = policies.get({'class_name': 'FeedforwardGaussianPolicy',
                           'config': {'hidden_layer_sizes': (16,)}},
                          environment, encoder=encoder)
    Qs = value_functions.get({'class_name': 'double_feedforward_Q_function',
                              'config': {'hidden_layer_sizes': (16,)}},
                             environment, encoder=encoder)
    assert Qs[0].encoder is Qs[1].encoder is encoder
    observations = {'pixels': np.random.default_rng(0).integers(
        0, 256, (4, 32, 32, 9), np.uint8)}
    with tf.GradientTape(persistent=True) as tape:
        actions, log_pis = policy.actions_and_log_probs(observations,
                                                        seed=[1, 2])
        Q_loss = tf.reduce_mean(Qs[0](observations, actions) ** 2)
    # The policy reads the features through a stop-gradient...
    assert all(gradient is None for gradient in tape.gradient(
        [actions, log_pis], encoder.trainable_variables))
    # ... while the critic's loss reaches every encoder weight.
    assert all(gradient is not None for gradient in tape.gradient(
        Q_loss, encoder.trainable_variables))


# Augmentation -----------------------------------------------------------------------

def test_random_shift_moves_each_image_within_the_pad_and_keeps_dtype():
    from softlearning.algorithms.augmentation import random_shift
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (16, 12, 12, 3), np.uint8)
    shifted = random_shift(tf.constant(images), 4, tf.constant([3, 4])).numpy()
    assert shifted.dtype == np.uint8 and shifted.shape == images.shape
    index = np.arange(12)
    moved = 0
    for image, result in zip(images, shifted):
        # Border pixels repeat: row i of the result is row i + dy of the
        # image, clipped to the image.
        matches = [(dy, dx) for dy in range(-4, 5) for dx in range(-4, 5)
                   if np.array_equal(result, image[np.clip(index + dy, 0, 11)][
                       :, np.clip(index + dx, 0, 11)])]
        assert matches, 'not a shift by at most 4 pixels'
        moved += matches[0] != (0, 0)
    assert moved >= 12  # 1/81 chance each of not moving


# The frame pool -----------------------------------------------------------------------

def _collect(stepper, policy, n_steps):
    return [stepper.step(policy)[0] for _ in range(n_steps)]


class ZeroPolicy:
    def step(self, observation, state):
        return np.zeros(1, np.float32), None


def test_pool_rebuilds_the_stacks_of_interleaved_actors():
    """Two 'actors' (episode steppers with their own environments) add
    batches in turns, as sampler actors do; each minibatch stack equals the
    observation the environment gave, though each transition stores one
    frame of its observation and one of the next."""
    steppers = [EpisodeStepper(
        Pixels(CountingEnvironment(terminate_at=terminate_at, size=8),
               image_size=8, frame_stack=3, action_repeat=1),
        max_path_length=100, seed=seed)
        for seed, terminate_at in ((1, 5), (2, 7))]
    pool = FrameReplayPool({'pixels': (8, 8, 9)}, (1,), max_size=1000,
                           frame_stack=3)
    transitions = []
    for _ in range(4):
        for stepper in steppers:
            batch = _collect(stepper, ZeroPolicy(), 3)
            transitions += batch
            pool.add_samples(stack_transitions(batch))
    batch = pool.batch_by_indices(np.arange(len(transitions)))
    assert batch['observations']['pixels'].shape == (24, 8, 8, 9)
    for i, transition in enumerate(transitions):
        np.testing.assert_array_equal(batch['observations']['pixels'][i],
                                      transition.observation['pixels'])
        np.testing.assert_array_equal(
            batch['next_observations']['pixels'][i],
            transition.next_observation['pixels'])


def test_pool_memory_per_transition():
    # Two 84x84 RGB frames and a few numbers; the stacks as given (uint8)
    # would take 6 frames.
    pool = FrameReplayPool({'pixels': (84, 84, 9)}, (6,), max_size=10,
                           frame_stack=3)
    assert 2 * 84 * 84 * 3 < pool.bytes_per_transition < 2 * 84 * 84 * 3 + 64
    assert pool.bytes_per_transition * 100000 < 4.3e9


def test_pool_checkpoint_pieces_restore_the_same_minibatches():
    stepper = EpisodeStepper(Pixels(CountingEnvironment(terminate_at=6),
                                    image_size=8), max_path_length=100, seed=3)
    pool = FrameReplayPool({'pixels': (8, 8, 9)}, (1,), max_size=16, seed=0)
    restored = FrameReplayPool({'pixels': (8, 8, 9)}, (1,), max_size=16,
                               seed=0)
    pool.add_samples(stack_transitions(_collect(stepper, ZeroPolicy(), 10)))
    restored.add_experience(pool.experience_since(0))
    # Continuing after the restore: the episode that was running goes on.
    more = stack_transitions(_collect(stepper, ZeroPolicy(), 9))
    pool.add_samples(more)
    restored.add_samples(more)
    restored.set_state(pool.get_state())
    for a, b in zip(pool.random_batches(2, 8)['observations']['pixels'],
                    restored.random_batches(2, 8)['observations']['pixels']):
        np.testing.assert_array_equal(a, b)


# End to end -----------------------------------------------------------------------------

TINY_PIXEL_CONFIG = {
    'environment_params.training.pixels.image_size': 32,
    'encoder_params.config.filters': [8, 8],
    'encoder_params.config.strides': [2, 2],
    'encoder_params.config.feature_size': 16}
TINY_PIXELS = [
    '--universe', 'dm_control', '--domain', 'cartpole', '--task', 'swingup',
    '--observation', 'pixels',
    *(f'--config={key}={value}'.replace(' ', '')
      for key, value in TINY_PIXEL_CONFIG.items())]


@pytest.mark.slow
def test_a_pixel_epoch_through_the_command_line_then_simulate(tmp_path):
    """SAC from 32x32 frames of cartpole, collected and evaluated by the
    one rendering actor pixels get by default; the checkpoint's policy then
    replays in `simulate` (which renders, so it acts with the numpy conv
    policy)."""
    result = run_cli(
        'run_example_local', 'examples.development', *TINY_PIXELS,
        '--cpus', '2', '--n-epochs', '1',
        '--epoch-length', '60', '--max-path-length', '20', '--seed', '3',
        '--local-dir', tmp_path, '--checkpoint-frequency', '1',
        '--config', 'algorithm_params.config.n_initial_exploration_steps=30',
        '--config', 'algorithm_params.config.batch_size=16',
        '--config', 'algorithm_params.config.eval_n_episodes=2',
        '--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
        '--config', 'Q_params.config.hidden_layer_sizes=[16,16]')
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert 'using --num-samplers 1' in result.stderr
    (trial,) = trial_dirs(tmp_path)
    progress = read_progress(trial)
    assert progress['num_train_steps'].iloc[-1] == 30
    assert progress['evaluation/episodes'].iloc[-1] == 2
    assert progress['evaluation/episode-length-mean'].iloc[-1] == 20
    assert np.isfinite(progress['evaluation/return-mean'].iloc[-1])
    with open(os.path.join(trial, 'params.json')) as f:
        params = json.load(f)
    pixels = params['environment_params']['training']['pixels']
    assert pixels == {'image_size': 32, 'frame_stack': 3, 'action_repeat': 8,
                      'pixels_only': True, 'camera_id': 0}
    assert params['environment_params']['evaluation']['pixels'] == pixels
    assert params['replay_pool_params']['class_name'] == 'FrameReplayPool'
    assert params['algorithm_params']['config']['augmentation_pad'] == 4
    assert params['sampler_params']['config']['num_samplers'] == 1

    (checkpoint,) = glob.glob(os.path.join(trial, 'checkpoint_*'))
    result = run_cli('simulate', checkpoint, '--max-path-length', '10',
                     '--num-rollouts', '1')
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert 'length 10' in result.stdout, result.stdout


@pytest.mark.slow
def test_a_pixel_trial_resumes_exactly(ray_cluster, tmp_path):  # noqa: F811
    """Checkpoints hold the frame pool, the actors' running episodes (their
    frame stacks and simulator state) and the augmentation's random state:
    epoch 3 after a restore equals epoch 3 of the run that never stopped,
    evaluation (on the actors) included."""
    from checkpoint_helpers import assert_resume_is_exact, tiny_variant
    variant = tiny_variant(
        universe='dm_control', domain='cartpole', task='swingup', epochs=3,
        epoch_length=50, max_path_length=40, exploration=30,
        observation='pixels', num_samplers=2, sampler_cpus=0.5,
        config={**TINY_PIXEL_CONFIG,
                'algorithm_params.config.batch_size': 8})
    variant['sampler_params']['config']['actor_options'] = ACTOR_OPTIONS

    def mid_episode(runner):
        states = runner.sampler.get_state()['actors']
        assert all(state['vector']['steppers'][0]['observation'] is not None
                   for state in states)

    assert_resume_is_exact(variant, tmp_path / 'checkpoint_000002',
                           ('Q_loss', 'policy_loss', 'Q_value-mean'),
                           before_save=mid_episode)
