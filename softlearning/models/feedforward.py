"""Plain multilayer perceptrons (tf-keras, i.e. Keras 2: lower call overhead
than Keras 3 for these small models under tf.function)."""

import tensorflow as tf
import tf_keras as keras

# The numpy mirror lives in a TensorFlow-free module; re-exported here.
from .numpy_mlp import NUMPY_ACTIVATIONS, NumpyMirror, flat_size  # noqa: F401


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


def concat_observations(observations, keys):
    """Concatenates the selected observation fields along the last axis."""
    if len(keys) == 1:
        return observations[keys[0]]
    return tf.concat([observations[key] for key in keys], axis=-1)
