"""Multilayer perceptrons in numpy, for acting without TensorFlow.

Sampler actors act one observation at a time and never train, so they run
the policy's Dense stack in numpy: no TensorFlow dispatch per step, and no
TensorFlow in the process at all (which lets actors render with OSMesa, see
softlearning/environments/rendering.py). This module must not import
TensorFlow.
"""

import numpy as np

NUMPY_ACTIVATIONS = {
    'relu': lambda x: np.maximum(x, 0.0),
    'tanh': np.tanh,
    'linear': lambda x: x,
    None: lambda x: x,
}

# Batch renormalization's (models/batch_renorm.py), shared with the mirror.
BATCH_RENORM_EPSILON = 1e-3
# A batch renormalization layer's weights: gamma, beta, running mean,
# running variance (each one per feature), and its count of training calls.
N_BATCH_RENORM_WEIGHTS = 5


def numpy_activation(name):
    if name not in NUMPY_ACTIVATIONS:
        raise ValueError(
            f"No numpy version of activation '{name}'; supported: "
            f"{[a for a in NUMPY_ACTIVATIONS if a]}")
    return NUMPY_ACTIVATIONS[name]


def flat_size(shapes, keys):
    """Size of the selected observation fields concatenated."""
    return int(sum(np.prod(shapes[key]) for key in keys))


class StartsAtOne(tuple):
    """The shape of a weight that starts at one, not zero (a
    normalization's scale or variance); equal to the plain shape tuple."""


def _batch_renorm_shapes(size):
    """gamma, beta, running mean, running variance, steps."""
    return [StartsAtOne((size,)), (size,), (size,), StartsAtOne((size,)), ()]


# The Dense kernels' initializers a network can start from (``kernel_
# initializer`` in an actor's or critic's config): Keras's default, and
# Flax's (SBX's networks), which draws the first layer's weights far wider.
KERNEL_INITIALIZERS = ('glorot_uniform', 'lecun_normal')
DEFAULT_KERNEL_INITIALIZER = 'glorot_uniform'
# Keras truncates lecun_normal at two standard deviations and widens the
# normal it draws from by this factor, so that the result has variance
# 1 / fan_in (the std of a standard normal truncated at +-2).
TRUNCATED_NORMAL_STD = 0.87962566103423978


def _kernel(shape, np_random, kernel_initializer):
    fan_in, fan_out = shape
    if kernel_initializer == 'glorot_uniform':
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return np_random.uniform(-limit, limit, shape)
    std = np.sqrt(1.0 / fan_in) / TRUNCATED_NORMAL_STD
    draws = np_random.normal(size=shape)
    outside = np.abs(draws) > 2
    while outside.any():  # redrawn, as a truncated normal is
        draws[outside] = np_random.normal(size=int(outside.sum()))
        outside = np.abs(draws) > 2
    return std * draws


def initial_weights(shapes, np_random,
                    kernel_initializer=DEFAULT_KERNEL_INITIALIZER):
    """Keras' initialization for weights of ``shapes``: kernels from
    ``kernel_initializer`` (one of KERNEL_INITIALIZERS), ones where the
    shape says so, zeros elsewhere."""
    weights = []
    for shape in shapes:
        if isinstance(shape, StartsAtOne):
            weights.append(np.ones(shape, np.float32))
        elif len(shape) == 2:
            weights.append(_kernel(shape, np_random,
                                   kernel_initializer).astype(np.float32))
        else:
            weights.append(np.zeros(shape, np.float32))
    return weights


def dense_stack_shapes(input_size, hidden_layer_sizes, output_size,
                       batch_renorm=False):
    """Shapes of the weights of a Dense stack, layer by layer, in the order
    ``layer_weights(model)`` (models/feedforward.py) lists them. With
    ``batch_renorm`` (CrossQ's) a batch renormalization layer comes before
    the first Dense layer and after each hidden one."""
    sizes = [int(input_size), *map(int, hidden_layer_sizes), int(output_size)]
    shapes = _batch_renorm_shapes(sizes[0]) if batch_renorm else []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        shapes += [(fan_in, fan_out), (fan_out,)]
        if batch_renorm and i < len(sizes) - 2:
            shapes += _batch_renorm_shapes(fan_out)
    return shapes


def _layers_of(weights):
    """[('dense', kernel, bias) | ('norm', gamma, beta, mean, variance)]
    from a layer-by-layer weight list: a 2-D array starts a Dense layer,
    a 1-D one a batch renormalization layer."""
    layers, i = [], 0
    while i < len(weights):
        if weights[i].ndim == 2 and i + 1 < len(weights):
            layers.append(('dense', *weights[i:i + 2]))
            i += 2
        elif weights[i].ndim == 1 and i + N_BATCH_RENORM_WEIGHTS <= len(
                weights):
            layers.append(('norm', *weights[i:i + N_BATCH_RENORM_WEIGHTS]))
            i += N_BATCH_RENORM_WEIGHTS
        else:
            raise ValueError(
                f"Expected [kernel, bias] and batch renormalization weights, "
                f"got arrays of shapes {[w.shape for w in weights]}")
    if not layers or layers[-1][0] != 'dense':
        raise ValueError(f"A Dense stack ends with a Dense layer; got "
                         f"arrays of shapes {[w.shape for w in weights]}")
    return layers


def float64_copies(weights):
    """The weights numpy networks compute with. Acting runs in float64 and
    rounds the outputs to float32: BLAS's float32 kernels round differently
    for a batch of observations than for one alone, and float64's
    differences vanish in that rounding, so a row of a batch gets exactly
    the actions it gets alone (evaluation episodes stepped as one vector
    return what they return one by one). It costs nothing one notices at
    acting's sizes."""
    return [np.asarray(w, np.float64) for w in weights]


class NumpyMLP:
    """A Dense stack from a flat [kernel, bias, kernel, bias, ...] list,
    with batch renormalization layers (in inference mode: running
    statistics) where the list has them.

    Hidden layers use ``activation``, the last one ``output_activation``.
    """

    def __init__(self, weights, activation='relu', output_activation='linear'):
        self._activation = numpy_activation(activation)
        self._output_activation = numpy_activation(output_activation)
        self.set_weights(weights)

    def set_weights(self, weights):
        self._weights = [np.asarray(w) for w in weights]
        self._layers = _layers_of(float64_copies(self._weights))

    def get_weights(self):
        return list(self._weights)

    def __call__(self, inputs):
        x = np.asarray(inputs, np.float64)
        for i, (kind, *weights) in enumerate(self._layers):
            if kind == 'norm':
                gamma, beta, mean, variance, _ = weights
                x = (gamma * (x - mean)
                     / np.sqrt(variance + BATCH_RENORM_EPSILON) + beta)
                continue
            kernel, bias = weights
            x = x @ kernel + bias
            x = (self._output_activation(x) if i == len(self._layers) - 1
                 else self._activation(x))
        return x.astype(np.float32)


class KerasMirror:
    """Mixed into a numpy network: its weights are a Keras model's,
    refreshed from it.

    Calling a Keras model (even a compiled one) costs ~100 us of dispatch per
    call; three small matmuls in numpy cost a few microseconds. The policy
    refreshes the mirror after each training call: it reads
    ``source_variables()`` and passes their values to ``set_weights``.
    """

    def __init__(self, model, activation, output_activation='linear'):
        self._model = model
        super().__init__(layer_weights(model), activation, output_activation)

    def source_variables(self):
        """The model's variables in the order ``set_weights`` reads them."""
        return layer_variables(self._model)


class NumpyMirror(KerasMirror, NumpyMLP):
    """A numpy copy of a Keras Dense stack."""


def layer_variables(model):
    """A Keras model's variables layer by layer (``model.weights`` puts
    every trainable weight before every other; a batch renormalization
    layer's running statistics would come last)."""
    return [w for layer in model.layers for w in layer.weights]


def layer_weights(model):
    """The values of ``layer_variables(model)``."""
    return [w for layer in model.layers for w in layer.get_weights()]


def set_layer_weights(model, weights):
    """Loads a ``layer_weights`` list into ``model``."""
    weights = list(weights)
    for layer in model.layers:
        n = len(layer.weights)
        layer.set_weights(weights[:n])
        weights = weights[n:]
    if weights:
        raise ValueError(f"{len(weights)} weights left over for {model.name}")
