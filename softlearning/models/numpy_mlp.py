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


def numpy_activation(name):
    if name not in NUMPY_ACTIVATIONS:
        raise ValueError(
            f"No numpy version of activation '{name}'; supported: "
            f"{[a for a in NUMPY_ACTIVATIONS if a]}")
    return NUMPY_ACTIVATIONS[name]


def flat_size(shapes, keys):
    """Size of the selected observation fields concatenated."""
    return int(sum(np.prod(shapes[key]) for key in keys))


def dense_stack_shapes(input_size, hidden_layer_sizes, output_size):
    """Shapes of the kernel/bias list of a Dense stack, in the order Keras'
    ``model.get_weights()`` returns them."""
    sizes = [int(input_size), *map(int, hidden_layer_sizes), int(output_size)]
    shapes = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        shapes += [(fan_in, fan_out), (fan_out,)]
    return shapes


class NumpyMLP:
    """A Dense stack from a flat [kernel, bias, kernel, bias, ...] list.

    Hidden layers use ``activation``, the last one ``output_activation``.
    """

    def __init__(self, weights, activation='relu', output_activation='linear'):
        self._activation = numpy_activation(activation)
        self._output_activation = numpy_activation(output_activation)
        self.set_weights(weights)

    def set_weights(self, weights):
        weights = [np.asarray(w) for w in weights]
        if len(weights) % 2 or not weights:
            raise ValueError(
                f"Expected [kernel, bias, ...] pairs, got {len(weights)} "
                f"arrays")
        self._layers = list(zip(weights[0::2], weights[1::2]))

    def get_weights(self):
        return [w for layer in self._layers for w in layer]

    def __call__(self, inputs):
        x = inputs
        for kernel, bias in self._layers[:-1]:
            x = self._activation(x @ kernel + bias)
        kernel, bias = self._layers[-1]
        return self._output_activation(x @ kernel + bias)


class NumpyMirror(NumpyMLP):
    """A numpy copy of a Keras Dense stack, refreshed from the model.

    Calling a Keras model (even a compiled one) costs ~100 us of dispatch per
    call; three small matmuls in numpy cost a few microseconds. The mirror is
    refreshed from the TensorFlow weights after each training call.
    """

    def __init__(self, model, activation, output_activation='linear'):
        self._model = model
        super().__init__(model.get_weights(), activation, output_activation)

    def refresh(self):
        self.set_weights(self._model.get_weights())
