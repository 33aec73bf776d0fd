"""SimbaV2 networks (Lee et al. 2025, "Hyperspherical Normalization for
Scalable Deep Reinforcement Learning") in numpy, for acting without
TensorFlow: the mirror of models/simbav2.py. This module must not import
TensorFlow.

    x -> running observation normalization
      -> embedding: l2norm([x, C_SHIFT]) -> W_e -> scaler -> l2norm
      -> L LERP blocks: m = l2norm(W_2(relu(scaler(W_1 x)) + eps))
                        x <- l2norm(x + alpha * (m - x))
      -> output: activation(W_o2(scaler(W_o1 x)) + bias)  (linear, or a
         deterministic policy's tanh); a Gaussian policy has two such
         heads, its mean's and its log-std's, concatenated

Every W is bias-free and its columns (one per output unit) lie on the unit
sphere: the Keras layers project them back after each optimizer step.
A scaler's weight starts at ``scale`` and acts as ``weight * init /
scale`` (the authors' parametrization: a learning rate tuned for unit
weights moves it at the right speed).

Weights, layer by layer (``layer_weights``): the normalization's mean,
variance and count; the embedding's kernel and scaler; per block its two
kernels, their scaler (between them) and alpha; per output head its bias,
its two kernels and their scaler.
"""

import math

import numpy as np

from .numpy_mlp import (KerasMirror, StartsAtOne, float64_copies,
                        numpy_activation)
from .numpy_simba import (EXPANSION, N_NORMALIZATION_WEIGHTS, block_width,
                          normalize_observations)

# The constant feature appended to the input before its projection onto
# the sphere (the authors' c_shift): it keeps the input's norm, which the
# l2-normalization would otherwise discard.
C_SHIFT = 3.0
# l2norm divides by max(|x|, L2_EPSILON); relu(.) + RELU_EPSILON keeps a
# block's hidden vector off zero (both as the authors').
L2_EPSILON = 1e-8
RELU_EPSILON = 1e-8
N_EMBEDDING_WEIGHTS = 2
N_BLOCK_WEIGHTS = 4
N_OUTPUT_WEIGHTS = 4


def l2_normalize(x, axis=-1):
    norm = np.linalg.norm(x, axis=axis, keepdims=True)
    return x / np.maximum(norm, L2_EPSILON)


def scaler_settings(width, n_blocks):
    """{'embedding' | 'block' | 'alpha' | 'output': (init, scale)}: the
    authors' scalers for blocks of ``width`` (sqrt(2 / width) for the
    embedding's, halved inside a block's 4x-wide hidden layer; alpha
    1 / (L + 1) at scale 1 / sqrt(width); 1 at scale 1 at the output)."""
    base = math.sqrt(2.0 / width)
    block = base / math.sqrt(EXPANSION)
    return {'embedding': (base, base), 'block': (block, block),
            'alpha': (1.0 / (n_blocks + 1), 1.0 / math.sqrt(width)),
            'output': (1.0, 1.0)}


def simbav2_shapes(input_size, hidden_layer_sizes, output_size,
                   normalized_size, output_heads=1):
    """Shapes of a SimbaV2 network's weights in ``layer_weights`` order;
    ``output_heads`` heads of ``output_size / output_heads`` each."""
    width = block_width(hidden_layer_sizes)
    hidden = EXPANSION * width
    shapes = [(normalized_size,), StartsAtOne((normalized_size,)), ()]
    shapes += [(input_size + 1, width), StartsAtOne((width,))]
    for _ in hidden_layer_sizes:
        shapes += [(width, hidden), StartsAtOne((hidden,)), (hidden, width),
                   StartsAtOne((width,))]
    head_size = output_size // output_heads
    return shapes + output_heads * [(head_size,), (width, width),
                                    StartsAtOne((width,)),
                                    (width, head_size)]


def scaled(x, weight, init_and_scale):
    init, scale = init_and_scale
    return x * weight * (init / scale)


class NumpySimbaV2:
    """A SimbaV2 network from its ``layer_weights`` list."""

    def __init__(self, weights, activation='relu', output_activation='linear'):
        if activation != 'relu':
            raise ValueError(f"A SimbaV2 network's blocks are ReLU's; got "
                             f"activation '{activation}'")
        self._output_activation = numpy_activation(output_activation)
        self.set_weights(weights)

    def set_weights(self, weights):
        weights = [np.asarray(w) for w in weights]
        start = N_NORMALIZATION_WEIGHTS + N_EMBEDDING_WEIGHTS
        if len(weights) <= start:
            raise ValueError(f"{len(weights)} arrays are not a SimbaV2 "
                             f"network's weights")
        width = weights[N_NORMALIZATION_WEIGHTS].shape[-1]
        # Blocks start with a 2-D kernel, output heads with their 1-D bias.
        n_blocks = 0
        while (start + N_BLOCK_WEIGHTS * n_blocks < len(weights)
               and weights[start + N_BLOCK_WEIGHTS * n_blocks].ndim == 2):
            n_blocks += 1
        n_heads, remainder = divmod(
            len(weights) - start - N_BLOCK_WEIGHTS * n_blocks,
            N_OUTPUT_WEIGHTS)
        if remainder or n_blocks < 1 or n_heads < 1:
            raise ValueError(f"{len(weights)} arrays are not a SimbaV2 "
                             f"network's weights")
        self._weights = weights
        self._float64 = float64_copies(weights)
        self._n_blocks, self._n_heads = n_blocks, n_heads
        self._scalers = scaler_settings(width, n_blocks)

    def get_weights(self):
        return list(self._weights)

    def __call__(self, inputs):
        w, scalers = self._float64, self._scalers
        x = normalize_observations(np.asarray(inputs, np.float64), w[0],
                                   w[1])
        shift = np.full(x.shape[:-1] + (1,), C_SHIFT, x.dtype)
        x = l2_normalize(np.concatenate([x, shift], axis=-1))
        x = l2_normalize(scaled(x @ w[3], w[4], scalers['embedding']))
        start = N_NORMALIZATION_WEIGHTS + N_EMBEDDING_WEIGHTS
        for i in range(self._n_blocks):
            kernel_1, scaler, kernel_2, alpha = w[
                start + N_BLOCK_WEIGHTS * i:start + N_BLOCK_WEIGHTS * (i + 1)]
            hidden = np.maximum(scaled(x @ kernel_1, scaler,
                                       scalers['block']), 0.0) + RELU_EPSILON
            update = l2_normalize(hidden @ kernel_2)
            x = l2_normalize(x + scaled(update - x, alpha, scalers['alpha']))
        heads = start + N_BLOCK_WEIGHTS * self._n_blocks
        outputs = []
        for i in range(self._n_heads):
            bias, kernel_1, scaler, kernel_2 = w[
                heads + N_OUTPUT_WEIGHTS * i:
                heads + N_OUTPUT_WEIGHTS * (i + 1)]
            outputs.append(self._output_activation(
                scaled(x @ kernel_1, scaler, scalers['output']) @ kernel_2
                + bias))
        return np.concatenate(outputs, axis=-1).astype(np.float32)


class NumpySimbaV2Mirror(KerasMirror, NumpySimbaV2):
    """A numpy copy of a Keras SimbaV2 model."""
