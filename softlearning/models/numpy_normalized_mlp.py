"""A Dense stack behind a running observation normalization ('normalized_mlp'
in an actor's or critic's config), in numpy, for acting without TensorFlow.
FastTD3 and FastSAC (Seo et al. 2025) normalize their plain MLPs' inputs so;
the Keras network is models/feedforward.py's ``feedforward_model`` with
models/simba.py's ``RunningNormalization`` in front. This module must not
import TensorFlow.

    x -> running observation normalization (mean and variance of every
         observation the updates have trained on; a critic's actions pass
         as they are) -> the Dense stack of models/numpy_mlp.py

Weights, layer by layer (``layer_weights``): the normalization's mean,
variance and count, then the Dense stack's kernels and biases.
"""

import numpy as np

from .numpy_mlp import KerasMirror, NumpyMLP, StartsAtOne, dense_stack_shapes
from .numpy_simba import N_NORMALIZATION_WEIGHTS, normalize_observations


def normalized_mlp_shapes(input_size, hidden_layer_sizes, output_size,
                          normalized_size):
    """Shapes of the network's weights in ``layer_weights`` order; the
    first ``normalized_size`` inputs are normalized."""
    return ([(normalized_size,), StartsAtOne((normalized_size,)), ()]
            + dense_stack_shapes(input_size, hidden_layer_sizes, output_size))


class NumpyNormalizedMLP(NumpyMLP):
    """The network from its ``layer_weights`` list."""

    def set_weights(self, weights):
        self._statistics = [np.asarray(w)
                            for w in weights[:N_NORMALIZATION_WEIGHTS]]
        super().set_weights(weights[N_NORMALIZATION_WEIGHTS:])

    def get_weights(self):
        return [*self._statistics, *super().get_weights()]

    def __call__(self, inputs):
        mean, variance, _ = self._statistics
        return super().__call__(normalize_observations(inputs, mean,
                                                       variance))


class NumpyNormalizedMLPMirror(KerasMirror, NumpyNormalizedMLP):
    """A numpy copy of the Keras network."""
