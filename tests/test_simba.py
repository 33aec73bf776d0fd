"""SimBa networks (models/simba.py, numpy_simba.py): the running
normalization against numpy, the numpy mirror against Keras on the same
weights, every network's statistics moved alike by the update skeleton,
the TensorFlow-free policy acting as the TensorFlow one, and bad settings
as one clear error. (Fused == single updates and exact resume, the running
statistics in the checkpoint included: test_registry_conformance.py, with
the SimbaV2 preset, whose networks normalize with the same layer,
models/simba.py's RunningNormalization.)"""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_numpy_mirror_matches,
                               assert_numpy_policy_acts_as_tensorflow,
                               filled_algorithm)
from softlearning.models.numpy_simba import NumpySimba
from softlearning.models.simba import (RunningNormalization,
                                       simba_model)

SIMBA = {'network': 'simba'}
SIMBA_SETTINGS = {'Q_config': SIMBA, 'policy_config': SIMBA}


def test_running_normalization_holds_the_statistics_of_all_it_saw():
    rng = np.random.default_rng(0)
    layer = RunningNormalization(3, ('observations',))
    layer.build((None, 5))
    batches = [rng.normal(i, 1 + i, (n, 3)).astype(np.float32)
               for i, n in enumerate((7, 30, 2))]
    for batch in batches:
        layer.update(batch)
    seen = np.concatenate(batches)
    np.testing.assert_allclose(layer.mean, seen.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.variance, seen.var(0), rtol=1e-4)
    assert float(layer.count) == len(seen)
    # The first 3 features normalized, the rest (a critic's actions) not.
    x = rng.normal(size=(4, 5)).astype(np.float32)
    expected = np.concatenate([(x[:, :3] - seen.mean(0))
                               / np.sqrt(seen.var(0) + 1e-8), x[:, 3:]], -1)
    np.testing.assert_allclose(layer(x), expected, rtol=1e-4, atol=1e-5)


def test_numpy_mirror_equals_the_keras_model():
    model = simba_model(6, (8, 8), 2, ('observations',), normalized_size=4)
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds == ['RunningNormalization', 'Dense', 'ResidualBlock',
                     'ResidualBlock', 'LayerNormalization', 'Dense']
    assert_numpy_mirror_matches(model, NumpySimba, atol=1e-4)


def test_blocks_of_different_widths_are_an_error():
    with pytest.raises(ValueError, match=r'all of one width; got \[8, 16\]'):
        simba_model(6, (8, 16), 2, ('observations',))


def test_every_network_normalizes_with_the_same_statistics():
    """One update moves the policy's, the critics' and the target critics'
    statistics to the minibatch's observations (their first)."""
    algorithm, policy, pool = filled_algorithm('SAC', **SIMBA_SETTINGS)
    batch = pool.random_batch(32)
    algorithm._fused_updates(as_tensors(
        tf.nest.map_structure(lambda x: x[None], batch)))
    layers = algorithm.observation_statistics.layers
    assert len(layers) == 1 + 2 + 2  # policy, two critics, two targets
    observations = batch['observations']['observations']
    for layer in layers:
        np.testing.assert_allclose(layer.mean, observations.mean(0),
                                   rtol=1e-5, atol=1e-6)
        assert float(layer.count) == 32


def test_td3_target_policy_normalizes_alike():
    algorithm, _, pool = filled_algorithm('TD3', **SIMBA_SETTINGS)
    algorithm._fused_updates(as_tensors(pool.random_batches(2, 32)))
    counts = {float(layer.count) for layer in algorithm.observation_statistics.layers}
    assert len(algorithm.observation_statistics.layers) == 6 and counts == {64.0}


def test_numpy_policy_acts_as_the_tensorflow_policy():
    assert_numpy_policy_acts_as_tensorflow('SAC', SIMBA, Q_config=SIMBA)


def test_unknown_network_names_the_valid_ones():
    from softlearning import environments, policies
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    with pytest.raises(ValueError, match="Unknown network 'resnet'; valid "
                                         "networks: mlp, simba"):
        policies.get({'class_name': 'FeedforwardGaussianPolicy',
                      'config': {'network': 'resnet'}}, env)


@pytest.mark.parametrize('policy_config', [
    {'network': 'simba', 'hidden_layer_sizes': (16,)},
    {'batch_renorm': True, 'hidden_layer_sizes': (16, 16)}],
    ids=['simba', 'batch_renorm'])
def test_tensorflow_free_policy_starts_as_keras_initializes(policy_config):
    """Before the learner's weights arrive, a sampler actor's policy has
    Keras' initial values: ones for scales and variances, zeros for
    biases, means and counts, and kernels drawn within Glorot's bounds."""
    from softlearning import environments
    from softlearning.policies import get_numpy_policy
    from softlearning.policies import get as get_policy
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    spec = {'class_name': 'FeedforwardGaussianPolicy',
            'config': policy_config}
    keras_weights = get_policy(spec, env, seed=0).get_weights()
    numpy_weights = get_numpy_policy(spec, env, seed=0).get_weights()
    assert ([w.shape for w in numpy_weights]
            == [w.shape for w in keras_weights])
    for numpy_weight, keras_weight in zip(numpy_weights, keras_weights):
        if numpy_weight.ndim == 2:
            limit = np.sqrt(6.0 / sum(numpy_weight.shape))
            assert np.all(np.abs(numpy_weight) <= limit)
            # Spread as Glorot-uniform draws are (std limit / sqrt(3)), not
            # a constant such as all zeros.
            assert numpy_weight.std() > 0.5 * limit / np.sqrt(3)
        else:
            np.testing.assert_array_equal(numpy_weight, keras_weight)
    observations = np.random.default_rng(0).normal(size=(4, 3))
    assert np.all(np.isfinite(get_numpy_policy(spec, env).actions_np(
        {'observations': observations.astype(np.float32)})))


@pytest.mark.parametrize('algorithm, jit_compile', [
    ('SAC', 'auto'), ('TD3', 'auto'), ('TQC', True)])
def test_network_option_compiles_with_xla_where_faster_unless_the_preset_says(
        algorithm, jit_compile):
    """--network simba: XLA where it runs the update faster (compilation.py);
    TQC's preset compiles everywhere."""
    from checkpoint_helpers import variant_for
    variant = variant_for('--algorithm', algorithm, '--network', 'simba')
    assert variant['algorithm_params']['config']['jit_compile'] == jit_compile
    assert variant_for('--algorithm', algorithm)['algorithm_params'][
        'config'].get('jit_compile', False) == (jit_compile is True)


def test_jit_compile_takes_true_false_or_auto():
    from checkpoint_helpers import variant_for

    def jit_compile(*options):
        return variant_for(*options)['algorithm_params']['config'][
            'jit_compile']

    assert jit_compile('--config', 'algorithm_params.config.jit_compile=auto'
                       ) == 'auto'
    assert jit_compile('--network', 'simba', '--config',
                       'algorithm_params.config.jit_compile=false') is False
    with pytest.raises(ValueError, match="jit_compile=2: algorithm_params."
                                         "config.jit_compile takes true, "
                                         "false or 'auto'"):
        variant_for('--config', 'algorithm_params.config.jit_compile=2')
