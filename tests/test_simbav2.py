"""SimbaV2 networks (models/simbav2.py, numpy_simbav2.py): the numpy mirror
against Keras on the same weights, every kernel back on the unit sphere
after an update of each network, the TensorFlow-free policy acting as the
TensorFlow one, and bad settings as one clear error. (Fused == single
updates and exact resume: test_registry_conformance.py, with the SimbaV2
preset.)"""

import numpy as np
import pytest

from algorithm_helpers import (
    as_tensors, assert_numpy_mirror_matches,
    assert_numpy_policy_acts_as_tensorflow)
from softlearning.models.numpy_simbav2 import NumpySimbaV2
from softlearning.models.simbav2 import UnitColumns, simbav2_model

SIMBAV2 = {'network': 'simbav2', 'hidden_layer_sizes': (16, 16)}


def unit_kernels(model):
    """The kernels a UnitColumns constraint keeps on the sphere."""
    return [v for v in model.trainable_variables
            if isinstance(v.constraint, UnitColumns)]


def test_numpy_mirror_equals_the_keras_model():
    model = simbav2_model(6, (8, 8), 3, ('observations',), normalized_size=4)
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds == ['RunningNormalization', 'HypersphericalEmbedding',
                     'LerpBlock', 'LerpBlock', 'HypersphericalOutput']
    assert_numpy_mirror_matches(model, NumpySimbaV2, atol=1e-5)


def test_kernels_start_on_the_unit_sphere():
    model = simbav2_model(5, (8,), 2, ('observations',))
    # embedding, block's two, output's two
    kernels = unit_kernels(model)
    assert len(kernels) == 5
    for kernel in kernels:
        np.testing.assert_allclose(np.linalg.norm(kernel.numpy(), axis=0),
                                   1.0, rtol=1e-5)


@pytest.mark.parametrize('class_name', ['SAC', 'TD3'])
def test_updates_keep_every_kernel_on_the_sphere_and_numpy_acts_alike(
        class_name):
    """Updates move the kernels off their start, and each optimizer step
    ends with every column of every trained kernel at norm one; then the
    numpy policies act as the TensorFlow one (SAC's Gaussian policy, linear
    output, a head each for its mean and log-std; TD3's deterministic one,
    tanh output). One algorithm for both checks: building it is most of
    the cost."""
    algorithm = assert_numpy_policy_acts_as_tensorflow(
        class_name, SIMBAV2, n_updates=3, Q_config=SIMBAV2)
    models = [algorithm._policy.model] + [Q.model for Q in algorithm.Qs]
    before = [[k.numpy() for k in unit_kernels(m)] for m in models]
    algorithm._fused_updates(as_tensors(algorithm._pool.random_batches(3, 32)))
    # embedding, 2 blocks x 2, output's 2 (SAC's Gaussian actor: 2 per head)
    n_kernels = [9 if class_name == 'SAC' else 7] + [7] * len(algorithm.Qs)
    for model, start, n in zip(models, before, n_kernels):
        kernels = unit_kernels(model)
        assert len(kernels) == n
        assert any(not np.allclose(k.numpy(), s)
                   for k, s in zip(kernels, start))
        for kernel in kernels:
            np.testing.assert_allclose(
                np.linalg.norm(kernel.numpy(), axis=0), 1.0, rtol=1e-5)


def test_a_simbav2_network_has_relu_blocks_only():
    with pytest.raises(ValueError, match="blocks are ReLU's; got "
                                         "activation 'tanh'"):
        simbav2_model(5, (8,), 2, ('observations',), activation='tanh')


def test_simbav2_refuses_an_mlp_only_option():
    from softlearning import environments, policies
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    with pytest.raises(ValueError, match="A SimbaV2 network has no batch "
                                         "renormalization"):
        policies.get({'class_name': 'FeedforwardGaussianPolicy',
                      'config': {'network': 'simbav2',
                                 'batch_renorm': True}}, env)


def test_network_option_sets_simbav2_sizes():
    from checkpoint_helpers import variant_for
    from softlearning.experiments.config.variants import SIMBAV2_SIZES
    variant = variant_for('--universe', 'gym', '--domain', 'Pendulum',
                          '--task', 'v1', '--network', 'simbav2')
    for name, sizes in SIMBAV2_SIZES.items():
        assert variant[name]['config']['network'] == 'simbav2'
        assert tuple(variant[name]['config']['hidden_layer_sizes']) == sizes
