"""The contract between the update skeleton (fused_updates.py) and an
algorithm (sac.py, sql.py, td3.py): one update returns a dict of scalar
diagnostics, whose names are the progress.csv columns; a pixel agent's policy
step receives the critic's features as an argument. And the numbers on fixed
seeds, recorded before that contract replaced tuples of diagnostics and the
in-place rewrite of the minibatch's observations, so any change to the math
shows here."""

import numpy as np
import pytest
import tensorflow as tf
from gymnasium import spaces

from algorithm_helpers import as_tensors, fill_pool, make_algorithm
from softlearning import algorithms, policies, value_functions
from softlearning.environments.adapters.softlearning_env import (
    SoftlearningEnv)
from softlearning.environments.pixels import Pixels
from softlearning.models.conv_encoder import ConvEncoder
from softlearning.replay_pools import FrameReplayPool
from softlearning.samplers import SimpleSampler
from softlearning.utils.random import set_seed

EXPECTED_KEYS = {
    'SAC': ('Q_loss', 'Q_value-mean', 'policy_loss', 'alpha_loss', 'alpha',
            'entropy'),
    'SQL': ('Q_loss', 'Q_value-mean', 'soft_value-mean', 'policy_loss',
            'svgd_direction-norm', 'kernel_bandwidth'),
    'TD3': ('Q_loss', 'Q_value-mean', 'policy_loss'),
    'DDPG': ('Q_loss', 'Q_value-mean', 'policy_loss'),
}
Q_CLASSES = {'DDPG': 'feedforward_Q_function'}


def state_algorithm(class_name, seed=3):
    """An algorithm on Pendulum-v1 and its pool, holding 300 uniform
    transitions."""
    algorithm, _, _, pool, sampler, uniform = make_algorithm(
        class_name, seed=seed,
        Q_class=Q_CLASSES.get(class_name, 'double_feedforward_Q_function'))
    fill_pool(pool, sampler, uniform)
    return algorithm, pool


class NoiseFrames(SoftlearningEnv):
    """Random 3-channel frames (seeded by ``reset``), one action, reward
    -|action|, terminating after 7 simulator steps: a pixel environment that
    renders without OSMesa."""

    def __init__(self):
        super().__init__('test', 'noise', 'v0')
        self._observation_space = spaces.Dict(
            {'state': spaces.Box(-np.inf, np.inf, (1,), np.float32)})
        self._set_action_bounds(-np.ones(1), np.ones(1))
        self._rng = np.random.default_rng(0)
        self._count = 0

    def reset(self, seed=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._count = 0
        return {'state': np.zeros(1, np.float32)}

    def step(self, action):
        self._count += 1
        return ({'state': np.full(1, self._count, np.float32)},
                -float(np.abs(action).sum()), self._count == 7, False, {})

    def render(self, width=None, height=None, camera_id=None):
        return self._rng.integers(0, 256, (height, width, 3), np.uint8)


def pixel_sac(seed=3, augmentation_pad=2):
    """SAC from 16x16x9 frames, the encoder shared as in a pixel run, and
    its frame pool holding 120 uniform transitions."""
    set_seed(seed)
    env = Pixels(NoiseFrames(), image_size=16, frame_stack=3,
                 action_repeat=2)
    encoder = ConvEncoder(env.observation_shapes, filters=(8, 8),
                          strides=(2, 1), feature_size=10)
    policy = policies.get({'class_name': 'FeedforwardGaussianPolicy',
                           'config': {'hidden_layer_sizes': (16, 16)}},
                          env, seed=seed, encoder=encoder)
    Qs = value_functions.get({'class_name': 'double_feedforward_Q_function',
                              'config': {'hidden_layer_sizes': (16, 16)}},
                             env, encoder=encoder)
    pool = FrameReplayPool(env.observation_shapes, env.action_shape,
                           max_size=500, frame_stack=3, seed=seed)
    sampler = SimpleSampler(max_path_length=20, seed=seed)
    sampler.initialize(env, policy, pool)
    sampler.sample(120, policies.get({'class_name': 'UniformPolicy'}, env,
                                     seed=seed + 1))
    sac = algorithms.get(
        {'class_name': 'SAC',
         'config': {'batch_size': 16, 'augmentation_pad': augmentation_pad,
                    'initial_alpha': 0.1, 'tau': 0.01}},
        training_environment=env, policy=policy, Qs=Qs, pool=pool,
        sampler=sampler, seed=seed)
    return sac, pool


def two_fused_calls(algorithm, pool, batch_size=32):
    """Diagnostics of two compiled calls, of 6 and then 4 updates, on the
    pool's seeded minibatches (the second call's numbers depend on every
    weight and optimizer slot the first one left)."""
    return [algorithm._do_training(pool.random_batches(n, batch_size))
            for n in (6, 4)]


def pixel_fused_calls(algorithm, pool):
    return two_fused_calls(algorithm, pool, batch_size=16)


# Recorded with the code before the dict contract (commit 06c1329: tuples of
# diagnostics, pixel features written into the minibatch), by
# ``two_fused_calls`` on these builders; the new code reproduced every one
# bit for bit on the machine that recorded them. The tolerance leaves room
# only for another CPU's float rounding.
RECORDED = {
    'SAC': [
        {'Q_loss': 57.19905090332031,
         'Q_value-mean': 0.13189615309238434,
         'policy_loss': -0.4794224798679352,
         'alpha_loss': 1.5050686597824097,
         'alpha': 0.9992520213127136,
         'entropy': 0.5061825513839722},
        {'Q_loss': 58.843692779541016,
         'Q_value-mean': 0.09003357589244843,
         'policy_loss': -0.4482593238353729,
         'alpha_loss': 1.5182178020477295,
         'alpha': 0.9977613091468811,
         'entropy': 0.5216080546379089},
    ],
    'SQL': [
        {'Q_loss': 51.729339599609375,
         'Q_value-mean': 0.13188162446022034,
         'soft_value-mean': 0.7416191101074219,
         'policy_loss': -0.08610541373491287,
         'svgd_direction-norm': 3.0520131587982178,
         'kernel_bandwidth': 0.0047386265359818935},
        {'Q_loss': 51.56130599975586,
         'Q_value-mean': 0.08998460322618484,
         'soft_value-mean': 0.7264388799667358,
         'policy_loss': -0.06556291878223419,
         'svgd_direction-norm': 2.6473660469055176,
         'kernel_bandwidth': 0.006134571973234415},
    ],
    'TD3': [
        {'Q_loss': 62.98692321777344,
         'Q_value-mean': 0.1318824738264084,
         'policy_loss': -0.08628486841917038},
        {'Q_loss': 62.55377960205078,
         'Q_value-mean': 0.08995907008647919,
         'policy_loss': -0.07345185428857803},
    ],
    'DDPG': [
        {'Q_loss': 30.864479064941406,
         'Q_value-mean': 0.19213616847991943,
         'policy_loss': -0.10567726939916611},
        {'Q_loss': 30.73527717590332,
         'Q_value-mean': 0.16055035591125488,
         'policy_loss': -0.08553443104028702},
    ],
    'pixel SAC': [
        {'Q_loss': 1.2291563749313354,
         'Q_value-mean': 0.09661363810300827,
         'policy_loss': 0.017763538286089897,
         'alpha_loss': 0.16026565432548523,
         'alpha': 0.09992516785860062,
         'entropy': 0.6038269400596619},
        {'Q_loss': 1.072356104850769,
         'Q_value-mean': -0.004637059289962053,
         'policy_loss': 0.046838197857141495,
         'alpha_loss': 0.17151612043380737,
         'alpha': 0.09977589547634125,
         'entropy': 0.7190120220184326},
    ],
}


def assert_recorded(name, calls):
    assert len(calls) == len(RECORDED[name])
    for diagnostics, expected in zip(calls, RECORDED[name]):
        # Same names, in the same order (progress.csv's columns), then the
        # critics' loss of the call's worst update.
        assert list(diagnostics) == [*expected, 'Q_loss-max']
        assert diagnostics['Q_loss-max'] > diagnostics['Q_loss']
        for key, value in expected.items():
            np.testing.assert_allclose(diagnostics[key], value, rtol=1e-5,
                                       atol=1e-8, err_msg=f'{name} {key}')


# The contract --------------------------------------------------------------

@pytest.mark.parametrize('class_name', sorted(EXPECTED_KEYS))
def test_one_update_returns_a_dict_of_named_scalars(class_name):
    algorithm, pool = state_algorithm(class_name)
    diagnostics = algorithm._update(as_tensors(pool.random_batch(32)))
    assert tuple(diagnostics) == EXPECTED_KEYS[class_name]
    for key, value in diagnostics.items():
        assert value.shape == () and np.isfinite(float(value)), key
    # The epoch loop's columns are the update's names.
    assert algorithm.training_diagnostic_keys == EXPECTED_KEYS[class_name]


def test_a_pixel_update_passes_features_on_without_rewriting_the_batch():
    sac, pool = pixel_sac()
    batch = as_tensors(pool.random_batch(16))
    observations = batch['observations']
    diagnostics = sac._update(batch)
    assert tuple(diagnostics) == EXPECTED_KEYS['SAC']
    assert batch['observations'] is observations
    assert set(observations) == {'pixels'}
    # The observations the critic's step passes on are its features.
    encoder = sac.Qs[0].encoder
    *_, policy_observations = sac._update_Qs_towards(batch,
                                                     tf.zeros((16, 1)))
    assert set(policy_observations) == {'encoded'}
    assert policy_observations['encoded'].shape == (16, encoder.output_size)
    assert batch['observations'] is observations


@pytest.mark.parametrize('class_name', sorted(EXPECTED_KEYS))
def test_diagnostics_on_fixed_seeds_are_the_recorded_ones(class_name):
    assert_recorded(class_name, two_fused_calls(*state_algorithm(class_name)))


def test_pixel_sac_diagnostics_on_a_fixed_seed_are_the_recorded_ones():
    """With random-shift augmentation, and the policy's step reading the
    features of the critic's step."""
    assert_recorded('pixel SAC', pixel_fused_calls(*pixel_sac()))


def test_pixel_sac_fused_updates_equal_single_updates():
    """K pixel updates in one compiled call == K calls of one update each,
    on the same minibatches: weights (the shared encoder's and its target
    copy's too), the mean diagnostics and the worst update's loss."""
    fused, pool = pixel_sac()
    single = pixel_sac()[0]
    batches = pool.random_batches(4, 16)
    means = fused._do_training(batches)
    singles = [single._do_training(tf.nest.map_structure(
        lambda x: x[i:i + 1], batches)) for i in range(4)]
    for key in fused.training_diagnostic_keys:
        np.testing.assert_allclose(
            means[key], np.mean([s[key] for s in singles]), rtol=1e-5,
            atol=1e-6, err_msg=key)
    np.testing.assert_allclose(means['Q_loss-max'],
                               max(s['Q_loss'] for s in singles), rtol=1e-5)
    networks = [(fused._policy, single._policy),
                (fused.Qs[0].encoder, single.Qs[0].encoder),
                (fused.Q_targets[0].encoder, single.Q_targets[0].encoder),
                *zip(fused.Qs + fused.Q_targets,
                     single.Qs + single.Q_targets)]
    for a, b in networks:
        for weights_a, weights_b in zip(a.get_weights(), b.get_weights()):
            np.testing.assert_allclose(weights_a, weights_b, rtol=1e-5,
                                       atol=1e-6)
    assert int(fused._train_step_counter) == 4
