"""Plain multilayer perceptrons (tf-keras, i.e. Keras 2: lower call overhead
than Keras 3 for these small models under tf.function)."""

import numpy as np
import tensorflow as tf
import tf_keras as keras


def feedforward_model(input_size, hidden_layer_sizes, output_size,
                      activation='relu', output_activation='linear',
                      name='feedforward_model'):
    model = keras.Sequential(
        [keras.layers.Dense(units, activation=activation)
         for units in hidden_layer_sizes]
        + [keras.layers.Dense(output_size, activation=output_activation)],
        name=name)
    model.build((None, input_size))
    return model


def flat_size(shapes, keys):
    return int(sum(np.prod(shapes[key]) for key in keys))


def concat_observations(observations, keys):
    """Concatenates the selected observation fields along the last axis."""
    if len(keys) == 1:
        return observations[keys[0]]
    return tf.concat([observations[key] for key in keys], axis=-1)


NUMPY_ACTIVATIONS = {
    'relu': lambda x: np.maximum(x, 0.0),
    'tanh': np.tanh,
    'linear': lambda x: x,
    None: lambda x: x,
}


class NumpyMirror:
    """A numpy copy of a Dense stack, for acting one observation at a time.

    Calling a Keras model (even a compiled one) costs ~100 us of dispatch per
    call; three small matmuls in numpy cost a few microseconds. The mirror is
    refreshed from the TensorFlow weights after each training call.
    """

    def __init__(self, model, activation, output_activation='linear'):
        if activation not in NUMPY_ACTIVATIONS:
            raise ValueError(
                f"No numpy mirror for activation '{activation}'; supported: "
                f"{[a for a in NUMPY_ACTIVATIONS if a]}")
        self._model = model
        self._activation = NUMPY_ACTIVATIONS[activation]
        self._output_activation = NUMPY_ACTIVATIONS[output_activation]
        self.refresh()

    def refresh(self):
        weights = self._model.get_weights()
        self._layers = list(zip(weights[0::2], weights[1::2]))

    def __call__(self, inputs):
        x = inputs
        for kernel, bias in self._layers[:-1]:
            x = self._activation(x @ kernel + bias)
        kernel, bias = self._layers[-1]
        return self._output_activation(x @ kernel + bias)
