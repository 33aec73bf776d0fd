"""SimBa networks (Lee et al. 2024) in numpy, for acting without
TensorFlow: the mirror of models/simba.py. This module must not import
TensorFlow.

    x -> running observation normalization -> Dense(h)
      -> L residual blocks  x + Dense_h(act(Dense_4h(LayerNorm(x))))
      -> LayerNorm -> Dense(output)

Weights, layer by layer (``layer_weights``): the normalization's mean,
variance (one per normalized feature) and count; the embedding's kernel and
bias; per block the LayerNorm's gamma and beta and the two Dense layers'
kernels and biases; the final LayerNorm's gamma and beta; the head's
kernel and bias.
"""

import numpy as np

from .numpy_mlp import (KerasMirror, StartsAtOne, float64_copies,
                        numpy_activation)

# The normalization's epsilon (as gymnasium's and SB3's running statistics)
# and the LayerNorms' (as flax's, which SimBa's authors use).
NORMALIZATION_EPSILON = 1e-8
LAYER_NORM_EPSILON = 1e-6
# The residual blocks' inverted bottleneck: 4 x the width inside.
EXPANSION = 4
N_NORMALIZATION_WEIGHTS = 3
N_BLOCK_WEIGHTS = 6


def block_width(hidden_layer_sizes):
    """The one width of a SimBa network's blocks (``hidden_layer_sizes``
    lists one entry per block; a residual sum needs them equal)."""
    widths = set(map(int, hidden_layer_sizes))
    if len(widths) != 1:
        raise ValueError(
            f"A SimBa network's hidden_layer_sizes give one residual block "
            f"each, all of one width; got {list(hidden_layer_sizes)}")
    return widths.pop()


def simba_shapes(input_size, hidden_layer_sizes, output_size,
                 normalized_size):
    """Shapes of a SimBa network's weights in ``layer_weights`` order."""
    width = block_width(hidden_layer_sizes)
    shapes = [(normalized_size,), StartsAtOne((normalized_size,)), ()]
    shapes += [(input_size, width), (width,)]
    for _ in hidden_layer_sizes:
        shapes += [StartsAtOne((width,)), (width,),
                   (width, EXPANSION * width), (EXPANSION * width,),
                   (EXPANSION * width, width), (width,)]
    return shapes + [StartsAtOne((width,)), (width,), (width, output_size),
                     (output_size,)]


def layer_norm(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    variance = x.var(-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(variance + LAYER_NORM_EPSILON) + beta


def normalize_observations(x, mean, variance):
    """The first len(mean) features normalized, the rest (a critic's
    actions) as they are."""
    size = len(mean)
    normalized = (x[..., :size] - mean) / np.sqrt(
        variance + NORMALIZATION_EPSILON)
    return np.concatenate([normalized, x[..., size:]], axis=-1)


class NumpySimba:
    """A SimBa network from its ``layer_weights`` list."""

    def __init__(self, weights, activation='relu', output_activation='linear'):
        self._activation = numpy_activation(activation)
        self._output_activation = numpy_activation(output_activation)
        self.set_weights(weights)

    def set_weights(self, weights):
        weights = [np.asarray(w) for w in weights]
        n_blocks, remainder = divmod(
            len(weights) - N_NORMALIZATION_WEIGHTS - 6, N_BLOCK_WEIGHTS)
        if remainder or n_blocks < 1:
            raise ValueError(f"{len(weights)} arrays are not a SimBa "
                             f"network's weights")
        self._weights = weights
        self._float64 = float64_copies(weights)
        self._n_blocks = n_blocks

    def get_weights(self):
        return list(self._weights)

    def __call__(self, inputs):
        w = self._float64
        x = normalize_observations(np.asarray(inputs, np.float64), w[0],
                                   w[1])
        x = x @ w[3] + w[4]
        for i in range(self._n_blocks):
            gamma, beta, k1, b1, k2, b2 = w[5 + N_BLOCK_WEIGHTS * i:
                                            5 + N_BLOCK_WEIGHTS * (i + 1)]
            hidden = self._activation(layer_norm(x, gamma, beta) @ k1 + b1)
            x = x + hidden @ k2 + b2
        gamma, beta, kernel, bias = w[-4:]
        return self._output_activation(layer_norm(x, gamma, beta) @ kernel
                                       + bias).astype(np.float32)


class NumpySimbaMirror(KerasMirror, NumpySimba):
    """A numpy copy of a Keras SimBa model."""
