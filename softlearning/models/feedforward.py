"""Plain multilayer perceptrons (tf-keras, i.e. Keras 2: lower call overhead
than Keras 3 for these small models under tf.function)."""

import tensorflow as tf
import tf_keras as keras

from .batch_renorm import BatchRenormalization
# The numpy mirror lives in a TensorFlow-free module; re-exported here.
from .numpy_mlp import (DEFAULT_KERNEL_INITIALIZER,  # noqa: F401
                        NUMPY_ACTIVATIONS, NumpyMirror, flat_size,
                        layer_weights, set_layer_weights)
from .precision import DEFAULT_PRECISION, compute_dtype, output_dtype


def batch_renorm_options(batch_renorm):
    """``batch_renorm`` as BatchRenormalization's keyword arguments: True
    for its defaults, a dict of them, or falsy (None) for none."""
    if not batch_renorm:
        return None
    return {} if batch_renorm is True else dict(batch_renorm)


def _hidden_layers(units, activation, layer_norm, batch_renorm,
                   kernel_initializer, precision):
    """Dense -> activation, or with ``layer_norm`` Dense -> LayerNorm ->
    activation (DroQ's critics; dropout goes after the Dense, see
    ``apply_with_dropout``); with ``batch_renorm`` (CrossQ's) a batch
    renormalization layer after the activation (its running statistics in
    float32 under any ``precision``, models/precision.py)."""
    dtype = compute_dtype(precision)
    if not layer_norm:
        layers = [keras.layers.Dense(units, activation=activation,
                                     kernel_initializer=kernel_initializer,
                                     dtype=dtype)]
    else:
        layers = [keras.layers.Dense(units,
                                     kernel_initializer=kernel_initializer,
                                     dtype=dtype),
                  keras.layers.LayerNormalization(dtype=dtype),
                  keras.layers.Activation(activation, dtype=dtype)]
    if batch_renorm is not None:
        layers.append(BatchRenormalization(**batch_renorm,
                                           dtype=output_dtype(precision)))
    return layers


def feedforward_model(input_size, hidden_layer_sizes, output_size,
                      activation='relu', output_activation='linear',
                      name='feedforward_model', layer_norm=False,
                      batch_renorm=None,
                      kernel_initializer=DEFAULT_KERNEL_INITIALIZER,
                      precision=DEFAULT_PRECISION, input_layers=()):
    """A Dense stack. ``batch_renorm`` (True or BatchRenormalization's
    options): CrossQ's network, which also normalizes its input; call the
    model with ``training=True`` where the minibatch's statistics are to be
    used and the running ones updated (inference mode otherwise).
    ``kernel_initializer``: every Dense layer's (models/numpy_mlp.py's
    KERNEL_INITIALIZERS); biases start at zero. ``precision``: what the
    hidden layers compute in (models/precision.py); the outputs are
    float32. ``input_layers``: layers before the stack (a running
    observation normalization, float32 under any precision)."""
    batch_renorm = batch_renorm_options(batch_renorm)
    input_layers = list(input_layers) + (
        [] if batch_renorm is None
        else [BatchRenormalization(**batch_renorm,
                                   dtype=output_dtype(precision))])
    model = keras.Sequential(
        input_layers
        + [layer for units in hidden_layer_sizes
           for layer in _hidden_layers(units, activation, layer_norm,
                                       batch_renorm, kernel_initializer,
                                       precision)]
        + [keras.layers.Dense(output_size, activation=output_activation,
                              kernel_initializer=kernel_initializer,
                              dtype=output_dtype(precision))],
        name=name)
    model.build((None, input_size))
    return model


def build_network(input_size, hidden_layer_sizes, output_size,
                  network='mlp', observation_keys=(), normalized_size=None,
                  **options):
    """A Keras network of kind ``network`` (models/networks.py): a
    ``feedforward_model`` with ``options``, or a ``simba_model`` whose
    first ``normalized_size`` inputs are the ``observation_keys`` fields
    (or a ``simbav2_model``, likewise; or, 'normalized_mlp', the
    ``feedforward_model`` behind that normalization)."""
    if network == 'simba':
        from .simba import simba_model
        return simba_model(input_size, hidden_layer_sizes, output_size,
                           observation_keys, normalized_size, **options)
    if network == 'simbav2':
        from .simbav2 import simbav2_model
        return simbav2_model(input_size, hidden_layer_sizes, output_size,
                             observation_keys, normalized_size, **options)
    if network == 'normalized_mlp':
        from .simba import RunningNormalization
        options['input_layers'] = [RunningNormalization(
            normalized_size or input_size, observation_keys)]
    return feedforward_model(input_size, hidden_layer_sizes, output_size,
                             **options)


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
