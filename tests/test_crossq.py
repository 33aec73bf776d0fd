"""CrossQ (algorithms/crossq.py) and batch renormalization
(models/batch_renorm.py): the layer in training and inference mode against
numpy, the numpy mirror against TensorFlow on the same weights, the joint
critic pass against a direct computation, no target networks, Adam's beta1,
fused == single updates, and an exact resume."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, filled_algorithm, make_algorithm
from softlearning.models.batch_renorm import BatchRenormalization
from softlearning.models.feedforward import (feedforward_model,
                                             layer_weights)
from softlearning.models.numpy_mlp import BATCH_RENORM_EPSILON, NumpyMLP

CROSSQ_SETTINGS = {'Q_config': {'batch_renorm': True},
                   'policy_config': {'batch_renorm': True},
                   'policy_delay': 3, 'adam_beta1': 0.5}


def crossq(**settings):
    return filled_algorithm('CrossQ', **{**CROSSQ_SETTINGS, **settings})


def _normalized(x, mean, variance, gamma, beta):
    return gamma * (x - mean) / np.sqrt(variance + BATCH_RENORM_EPSILON) + beta


# The layer -----------------------------------------------------------------

def _layer(x, **options):
    layer = BatchRenormalization(**options)
    layer.build(x.shape)
    rng = np.random.default_rng(0)
    layer.gamma.assign(rng.uniform(0.5, 2.0, x.shape[-1]))
    layer.beta.assign(rng.normal(size=x.shape[-1]))
    layer.moving_mean.assign(rng.normal(size=x.shape[-1]))
    layer.moving_variance.assign(rng.uniform(0.5, 2.0, x.shape[-1]))
    return layer


def _assert_batch_normalizes(layer, x):
    """A training call on ``x``: the minibatch's normalization (biased
    variance), and the running statistics moved by momentum 0.9."""
    gamma, beta = layer.gamma.numpy(), layer.beta.numpy()
    mean0, variance0 = (layer.moving_mean.numpy(),
                        layer.moving_variance.numpy())
    np.testing.assert_allclose(
        layer(x, training=True),
        _normalized(x, x.mean(0), x.var(0), gamma, beta), rtol=1e-4,
        atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean, 0.9 * mean0 + 0.1 * x.mean(0),
                               rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance,
                               0.9 * variance0 + 0.1 * x.var(0), rtol=1e-5)


def test_batch_renorm_normalizes_with_the_batch_and_moves_its_statistics():
    x = np.random.default_rng(1).normal(2.0, 3.0, (64, 5)).astype(np.float32)
    layer = _layer(x, momentum=0.9, warmup_steps=10)
    gamma, beta, mean0, variance0 = (layer.gamma.numpy(), layer.beta.numpy(),
                                     layer.moving_mean.numpy(),
                                     layer.moving_variance.numpy())
    # Inference (the default): the running statistics, nothing moves.
    np.testing.assert_allclose(
        layer(x), _normalized(x, mean0, variance0, gamma, beta), rtol=1e-5)
    assert float(layer.steps) == 0
    # Training, in the warm-up: plain batch normalization (biased variance).
    _assert_batch_normalizes(layer, x)
    assert float(layer.steps) == 1


def test_batch_renorm_without_a_warm_up_end_stays_batch_normalization():
    """warmup_steps None: the minibatch's statistics at every training
    call, also past any count (the layer's count says 10^6 here)."""
    x = np.random.default_rng(3).normal(2.0, 3.0, (64, 5)).astype(np.float32)
    layer = _layer(x, momentum=0.9, warmup_steps=None)
    layer.steps.assign(1e6)
    _assert_batch_normalizes(layer, x)
    assert layer.get_config()['warmup_steps'] is None
    # The same layer with a warm-up that ended renormalizes: not the same.
    ended = _layer(x, momentum=0.9, warmup_steps=0)
    assert not np.allclose(ended(x, training=True), layer(x, training=True),
                           rtol=1e-3)


def test_batch_renorm_after_its_warm_up_corrects_towards_running_statistics():
    x = np.random.default_rng(2).normal(2.0, 3.0, (64, 5)).astype(np.float32)
    layer = _layer(x, warmup_steps=0, r_max=1.5, d_max=0.5)
    gamma, beta = layer.gamma.numpy(), layer.beta.numpy()
    mean, variance = layer.moving_mean.numpy(), layer.moving_variance.numpy()
    std = np.sqrt(x.var(0) + BATCH_RENORM_EPSILON)
    moving_std = np.sqrt(variance + BATCH_RENORM_EPSILON)
    r = np.clip(std / moving_std, 1 / 1.5, 1.5)
    d = np.clip((x.mean(0) - mean) / moving_std, -0.5, 0.5)
    assert np.any(r == 1.5) and np.any(np.abs(d) == 0.5)  # clipped
    # ((x - mu_B) * r + d * sigma_B) / sqrt(sigma_B^2 + epsilon * r^2), i.e.
    # (x - mu_B) / sigma_B * r + d up to epsilon (SBX's and the paper's).
    sigma = np.sqrt(x.var(0))
    expected = gamma * ((x - x.mean(0)) * r + d * sigma) / np.sqrt(
        x.var(0) + BATCH_RENORM_EPSILON * r ** 2) + beta
    np.testing.assert_allclose(layer(x, training=True), expected, rtol=1e-4,
                               atol=1e-4)


def test_numpy_mirror_equals_the_keras_model_in_inference_mode():
    model = feedforward_model(4, (8, 8), 3, batch_renorm=True)
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds == ['BatchRenormalization', 'Dense', 'BatchRenormalization',
                     'Dense', 'BatchRenormalization', 'Dense']
    x = np.random.default_rng(3).normal(1.0, 2.0, (32, 4)).astype(np.float32)
    for _ in range(3):  # running statistics away from their start
        model(x, training=True)
    mirror = NumpyMLP(layer_weights(model))
    np.testing.assert_allclose(mirror(x), model(x).numpy(), rtol=1e-4,
                               atol=1e-5)
    assert not np.allclose(model(x).numpy(), model(x, training=True).numpy())


# The algorithm ---------------------------------------------------------------

def test_joint_critic_pass_matches_a_direct_computation():
    """L_Q of one critic step against numpy: the critics run in training
    mode on [s; s'] and [a; a'] (the normalization statistics those of the
    joint batch of 2B), the target from their own next-state half."""
    algorithm, policy, pool = crossq()
    batch = as_tensors(pool.random_batch(16))
    alpha, seed = 0.3, tf.constant([4, 5], tf.int32)
    next_actions, next_log_pis = policy.actions_and_log_probs(
        batch['next_observations'], seed=seed)
    inputs = np.concatenate([
        np.concatenate([batch['observations']['observations'],
                        batch['actions']], -1),
        np.concatenate([batch['next_observations']['observations'],
                        next_actions], -1)])

    def forward(weights, x, joint=True):
        """The critic in training mode (before renormalization's warm-up
        ends: batch statistics), over x at once or over its halves."""
        if not joint:
            half = len(x) // 2
            return np.concatenate([forward(weights, x[:half]),
                                   forward(weights, x[half:])])
        layers = NumpyMLP(weights)._layers
        for i, (kind, *w) in enumerate(layers):
            if kind == 'norm':
                x = _normalized(x, x.mean(0), x.var(0), w[0], w[1])
            else:
                x = x @ w[0] + w[1]
                x = x if i == len(layers) - 1 else np.maximum(x, 0)
        return x

    def loss(joint):
        values = [forward(layer_weights(Q.model), inputs, joint)
                  for Q in algorithm.Qs]
        next_Q = np.min([value[16:] for value in values], axis=0)
        y = (batch['rewards'].numpy() + 0.99 * (1 - batch['terminals'].numpy())
             * (next_Q - alpha * next_log_pis.numpy()))
        return sum(0.5 * np.mean((value[:16] - y) ** 2) for value in values)

    expected, separate = loss(joint=True), loss(joint=False)
    first_moving_mean = algorithm.Qs[0].model.layers[0].moving_mean.numpy()
    Q_loss, _, _ = algorithm._update_critics(batch, alpha, seed)
    np.testing.assert_allclose(float(Q_loss), expected, rtol=1e-4)
    assert abs(separate - expected) > 1e-3 * abs(expected)
    # The input normalization's running mean moved towards the joint batch's.
    np.testing.assert_allclose(
        algorithm.Qs[0].model.layers[0].moving_mean.numpy(),
        0.99 * first_moving_mean + 0.01 * inputs.mean(0), rtol=1e-4,
        atol=1e-6)


def test_no_target_networks_and_adams_beta1():
    algorithm, _, _ = crossq()
    assert algorithm.Q_targets == ()
    assert not any(key.endswith('_target') for key in algorithm.tf_saveables())
    optimizers = algorithm._optimizers
    assert float(optimizers['Q_optimizer'].beta_1) == 0.5
    assert float(optimizers['policy_optimizer'].beta_1) == 0.5
    assert float(optimizers['alpha_optimizer'].beta_1) == 0.9
    assert {float(optimizer.epsilon) for optimizer in optimizers.values()} \
        == {1e-7}  # Keras's, unless set (below)


def test_adam_epsilon_reaches_every_optimizer():
    """SBX's (optax's) 1e-8 in the critics', the policy's and the
    temperature's optimizers, and in the step a parameter takes."""
    algorithm, _, _ = crossq(adam_epsilon=1e-8)
    optimizers = algorithm._optimizers
    assert set(optimizers) == {'Q_optimizer', 'policy_optimizer',
                               'alpha_optimizer'}
    assert all(np.isclose(float(optimizer.epsilon), 1e-8)
               for optimizer in optimizers.values())
    # Keras's first step from zero moments: lr * c g / (c |g| + epsilon),
    # c = sqrt(1 - beta_2). With c g = 1e-8 that is half the learning rate,
    # where Keras's own epsilon would give a eleventh of it.
    variable = tf.Variable([0.0])
    optimizer = algorithm._make_optimizer('probe', 1.0, [variable])
    gradient = tf.constant([1e-8 / np.sqrt(1e-3)], tf.float32)
    optimizer.apply_gradients([(gradient, variable)])
    np.testing.assert_allclose(variable.numpy(), [-0.5], rtol=1e-3)


def test_batch_renorm_critics_with_target_networks_are_an_error():
    with pytest.raises(ValueError, match='need an algorithm without target '
                                         r'networks \(CrossQ\), not SAC'):
        make_algorithm('SAC', Q_config={'batch_renorm': True})


def test_the_preset_has_batch_renorm_critics_and_adams_beta1():
    """The preset's own settings (test_registry_conformance.py resumes
    CrossQ exactly: its running statistics and their counts are in the
    checkpoint)."""
    from checkpoint_helpers import tiny_variant
    variant = tiny_variant(algorithm='CrossQ', domain='Pendulum', task='v1')
    assert variant['Q_params']['config']['batch_renorm'] is True
    assert variant['policy_params']['config']['batch_renorm'] is True
    assert variant['algorithm_params']['config']['adam_beta1'] == 0.5


def test_batch_renorm_takes_its_options_from_the_command_line():
    """--config ...batch_renorm=true|false|{options}: e.g. a warm-up that
    never ends (the Humanoid ablation); anything else is one clear error."""
    from softlearning.experiments import variant_spec
    spec = variant_spec(algorithm='CrossQ', config={
        'Q_params.config.batch_renorm': {'warmup_steps': 1000}})
    assert spec['Q_params']['config']['batch_renorm'] == {
        'warmup_steps': 1000}
    model = feedforward_model(4, (8,), 1, batch_renorm={'warmup_steps': 1000})
    assert {layer.warmup_steps for layer in model.layers
            if isinstance(layer, BatchRenormalization)} == {1000}
    # Humanoid's preset: batch normalization throughout in the critics.
    from checkpoint_helpers import variant_for
    humanoid = variant_for('--algorithm', 'CrossQ', '--domain', 'Humanoid',
                           '--task', 'v5')
    assert humanoid['Q_params']['config']['batch_renorm'] == {
        'warmup_steps': None}
    assert humanoid['policy_params']['config']['batch_renorm'] is True
    never = variant_for('--algorithm', 'CrossQ', '--domain', 'Hopper',
                        '--task', 'v5', '--config',
                        'Q_params.config.batch_renorm={"warmup_steps": null}')
    assert never['Q_params']['config']['batch_renorm'] == {
        'warmup_steps': None}
    model = feedforward_model(4, (8,), 1, batch_renorm={'warmup_steps': None})
    assert {layer.warmup_steps for layer in model.layers
            if isinstance(layer, BatchRenormalization)} == {None}
    with pytest.raises(Exception, match='takes true, false or an object'):
        variant_spec(algorithm='CrossQ', config={
            'Q_params.config.batch_renorm': 'yes'})


def test_dog_preset_symlog_observations_and_log_alpha_temperature_loss():
    """dm_control dog: symlog observations in training and evaluation (its
    touch sensors' outliers) and the temperature's loss on log(alpha);
    'none' for training turns off both transforms; other domains keep the
    task's observations and the loss on alpha."""
    from checkpoint_helpers import variant_for
    dog = variant_for('--algorithm', 'CrossQ', '--universe', 'dm_control',
                      '--domain', 'dog', '--task', 'run')
    plain = variant_for('--algorithm', 'CrossQ', '--universe', 'dm_control',
                        '--domain', 'dog', '--task', 'run', '--config',
                        'environment_params.training.kwargs.'
                        'observation_transform=none')
    for which in ('training', 'evaluation'):
        assert dog['environment_params'][which]['kwargs'][
            'observation_transform'] == 'symlog'
        assert plain['environment_params'][which]['kwargs'][
            'observation_transform'] == 'none'
    assert dog['algorithm_params']['config']['temperature_loss'] == (
        'log_alpha')
    humanoid = variant_for('--algorithm', 'CrossQ', '--universe',
                           'dm_control', '--domain', 'humanoid', '--task',
                           'run')
    assert 'observation_transform' not in humanoid['environment_params'][
        'training'].get('kwargs', {})
    assert humanoid['algorithm_params']['config'].get(
        'temperature_loss', 'alpha') == 'alpha'
