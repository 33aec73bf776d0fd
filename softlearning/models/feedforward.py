"""Plain multilayer perceptrons (tf-keras, i.e. Keras 2: lower call overhead
than Keras 3 for these small models under tf.function)."""

import tensorflow as tf
import tf_keras as keras

# The numpy mirror lives in a TensorFlow-free module; re-exported here.
from .numpy_mlp import NUMPY_ACTIVATIONS, NumpyMirror, flat_size  # noqa: F401


def _hidden_layers(units, activation, layer_norm):
    """Dense -> activation, or with ``layer_norm`` Dense -> LayerNorm ->
    activation (DroQ's critics; dropout goes after the Dense, see
    ``apply_with_dropout``)."""
    if not layer_norm:
        return [keras.layers.Dense(units, activation=activation)]
    return [keras.layers.Dense(units), keras.layers.LayerNormalization(),
            keras.layers.Activation(activation)]


def feedforward_model(input_size, hidden_layer_sizes, output_size,
                      activation='relu', output_activation='linear',
                      name='feedforward_model', layer_norm=False):
    model = keras.Sequential(
        [layer for units in hidden_layer_sizes
         for layer in _hidden_layers(units, activation, layer_norm)]
        + [keras.layers.Dense(output_size, activation=output_activation)],
        name=name)
    model.build((None, input_size))
    return model


def apply_with_dropout(model, inputs, rate, seed):
    """``model(inputs)`` with dropout of ``rate`` on the output of each
    hidden Dense layer (before its LayerNorm and activation, as in DroQ),
    the masks drawn statelessly from ``seed`` (so K fused updates draw what
    K single ones do, and a resumed run what the uninterrupted one did)."""
    x = inputs
    *hidden, output = model.layers
    for i, layer in enumerate(hidden):
        x = layer(x)
        if isinstance(layer, keras.layers.Dense):
            x = tf.nn.experimental.stateless_dropout(
                x, rate, tf.random.experimental.stateless_fold_in(seed, i))
    return output(x)


def concat_observations(observations, keys):
    """Concatenates the selected observation fields along the last axis."""
    if len(keys) == 1:
        return observations[keys[0]]
    return tf.concat([observations[key] for key in keys], axis=-1)
