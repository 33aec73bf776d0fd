"""``kernel_initializer`` of an actor's and a critic's Dense layers: Keras's
Glorot-uniform by default, or LeCun-normal (Flax's default, so SBX's), in
the TensorFlow networks, their copies and the TensorFlow-free policies;
refused, in one clear error, where a network keeps its own."""

import numpy as np
import pytest

OBSERVATIONS = {'observations': (17,)}
ACTIONS = (6,)
LECUN = {'kernel_initializer': 'lecun_normal'}


def _kernels(weights):
    return [w for w in weights if w.ndim == 2]


def _assert_lecun_normal(kernels):
    """Variance 1 / fan_in, truncated at two standard deviations of the
    widened normal Keras draws from (0.8796: a truncated normal's std)."""
    for kernel in kernels:
        fan_in = kernel.shape[0]
        std = np.sqrt(1.0 / fan_in)
        # (An output layer has few weights: a looser bound on their std.)
        assert kernel.std() == pytest.approx(
            std, rel=0.1 if kernel.size > 1000 else 0.3), kernel.shape
        assert np.abs(kernel).max() <= 2 * std / 0.87962566103423978 + 1e-6


def _assert_glorot_uniform(kernels):
    for kernel in kernels:
        limit = np.sqrt(6.0 / sum(kernel.shape))
        # Keras draws in float32: a weight at the limit rounds to the
        # float32 nearest it, which may lie just above the float64 value.
        assert np.abs(kernel).max() <= np.float32(limit), kernel.shape
        assert kernel.std() == pytest.approx(limit / np.sqrt(3), rel=0.15)


def test_policies_and_critics_start_from_the_chosen_initializer():
    from softlearning.policies.gaussian_policy import (
        FeedforwardGaussianPolicy)
    from softlearning.policies.numpy_policies import NumpyGaussianPolicy
    from softlearning.value_functions.feedforward_q_function import (
        FeedforwardQFunction)
    policy = FeedforwardGaussianPolicy(OBSERVATIONS, ACTIONS, seed=0, **LECUN)
    # The first layer is where the two differ most: std 1/sqrt(17) = 0.24
    # against Glorot's sqrt(2 / (17 + 256)) = 0.09.
    _assert_lecun_normal(_kernels(policy.get_weights()))
    _assert_lecun_normal(_kernels(policy.clone().get_weights()))
    assert policy.clone()._config['kernel_initializer'] == 'lecun_normal'
    critic = FeedforwardQFunction(OBSERVATIONS, ACTIONS, **LECUN)
    _assert_lecun_normal(_kernels(critic.model.get_weights()))
    _assert_lecun_normal(_kernels(NumpyGaussianPolicy(
        OBSERVATIONS, ACTIONS, seed=0, **LECUN).get_weights()))
    # The default is Keras's, everywhere.
    _assert_glorot_uniform(_kernels(FeedforwardGaussianPolicy(
        OBSERVATIONS, ACTIONS, seed=0).get_weights()))
    _assert_glorot_uniform(_kernels(FeedforwardQFunction(
        OBSERVATIONS, ACTIONS).model.get_weights()))
    _assert_glorot_uniform(_kernels(NumpyGaussianPolicy(
        OBSERVATIONS, ACTIONS, seed=0).get_weights()))


def test_the_choice_reaches_the_networks_through_the_variant():
    from checkpoint_helpers import make_runner, tiny_variant
    variant = tiny_variant(domain='Pendulum', task='v1', config={
        'policy_params.config.kernel_initializer': 'lecun_normal',
        'Q_params.config.kernel_initializer': 'lecun_normal',
        'policy_params.config.hidden_layer_sizes': [64],
        'Q_params.config.hidden_layer_sizes': [64]})
    runner = make_runner(variant)
    try:
        _assert_lecun_normal(_kernels(runner.policy.get_weights()))
        for critic in runner.Qs:
            _assert_lecun_normal(_kernels(critic.model.get_weights()))
    finally:
        runner.cleanup()


@pytest.mark.parametrize('module, name, options, message', [
    ('softlearning.policies.gaussian_policy', 'FeedforwardGaussianPolicy',
     {'kernel_initializer': 'zeros'},
     "Unknown kernel_initializer 'zeros'; valid: glorot_uniform, "
     "lecun_normal"),
    ('softlearning.value_functions.feedforward_q_function',
     'FeedforwardQFunction', {'network': 'simba', **LECUN},
     'A SimBa network sets its own initializers'),
    ('softlearning.policies.recurrent_policy', 'RecurrentGaussianPolicy',
     LECUN, "A recurrent policy keeps Keras's initializers"),
    ('softlearning.value_functions.recurrent_q_function',
     'RecurrentQFunction', LECUN, 'A recurrent Q-function keeps'),
], ids=['unknown', 'simba', 'recurrent policy', 'recurrent critic'])
def test_refused_choices_are_one_clear_error(module, name, options, message):
    import importlib
    network_class = getattr(importlib.import_module(module), name)
    with pytest.raises(ValueError, match=message):
        network_class(OBSERVATIONS, ACTIONS, **options)
