"""SimBa networks (Lee et al. 2024, "SimBa: Simplicity Bias for Scaling Up
Parameters in Deep Reinforcement Learning"), for any agent's actor and
critics (``network='simba'`` in their config, or ``--network simba``):

    observations -> running normalization (mean and variance of every
        observation the updates have trained on) -> Dense(h)
      -> one residual block per entry of hidden_layer_sizes (all h):
             x + Dense_h(relu(Dense_4h(LayerNorm(x))))
      -> LayerNorm -> Dense(output)

The normalization's statistics are weights of the model (so checkpoints,
target copies and the numpy mirror, models/numpy_simba.py, hold them);
the update skeleton moves them towards each minibatch's observations before
the update (algorithms/observation_statistics.py), every
network's alike. A critic normalizes the observations, not the actions it
reads after them. Under ``precision='bfloat16'`` (models/precision.py) the
blocks compute in bfloat16, and the normalization, the final LayerNorm and
the output layer in float32.
"""

import tensorflow as tf
import tf_keras as keras

from .numpy_simba import (EXPANSION, LAYER_NORM_EPSILON,
                          NORMALIZATION_EPSILON, block_width)
from .precision import DEFAULT_PRECISION, compute_dtype, output_dtype


class RunningNormalization(keras.layers.Layer):
    """Normalizes the first ``size`` features by their running mean and
    variance (``update``); passes the rest through."""

    def __init__(self, size, observation_keys, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)
        # Which observation fields, concatenated, the statistics are of.
        self.observation_keys = tuple(observation_keys)

    def build(self, input_shape):
        shape = (self.size,)
        self.mean = self.add_weight('mean', shape, initializer='zeros',
                                    trainable=False)
        self.variance = self.add_weight('variance', shape, initializer='ones',
                                        trainable=False)
        self.count = self.add_weight('count', (), initializer='zeros',
                                     trainable=False)
        super().build(input_shape)

    def call(self, inputs):
        normalized = ((inputs[..., :self.size] - self.mean)
                      * tf.math.rsqrt(self.variance + NORMALIZATION_EPSILON))
        return tf.concat([normalized, inputs[..., self.size:]], axis=-1)

    def update(self, observations):
        """Merges the statistics of ``observations`` (..., size) into the
        running ones (Chan et al.'s parallel algorithm: the result is the
        mean and variance of everything seen)."""
        observations = tf.reshape(observations, (-1, self.size))
        batch_mean, batch_variance = tf.nn.moments(observations, axes=[0])
        batch_count = tf.cast(tf.shape(observations)[0], tf.float32)
        total = self.count + batch_count
        delta = batch_mean - self.mean
        self.mean.assign_add(delta * batch_count / total)
        self.variance.assign(
            (self.variance * self.count + batch_variance * batch_count
             + delta ** 2 * self.count * batch_count / total) / total)
        self.count.assign(total)

    def get_config(self):
        return {**super().get_config(), 'size': self.size,
                'observation_keys': self.observation_keys}


class ResidualBlock(keras.layers.Layer):
    """x + Dense_h(activation(Dense_4h(LayerNorm(x))))."""

    def __init__(self, units, activation='relu', **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activation
        # (Built in this order: the numpy mirror reads their weights so.)
        # They compute in the block's dtype (its residual sum does too).
        dtype = self.dtype_policy
        self.norm = keras.layers.LayerNormalization(epsilon=LAYER_NORM_EPSILON,
                                                    dtype=dtype)
        self.expand = keras.layers.Dense(EXPANSION * self.units,
                                         activation=activation,
                                         kernel_initializer='he_normal',
                                         dtype=dtype)
        self.project = keras.layers.Dense(self.units,
                                          kernel_initializer='he_normal',
                                          dtype=dtype)

    def call(self, inputs):
        return inputs + self.project(self.expand(self.norm(inputs)))

    def get_config(self):
        return {**super().get_config(), 'units': self.units,
                'activation': self.activation}


def simba_model(input_size, hidden_layer_sizes, output_size,
                observation_keys, normalized_size=None, activation='relu',
                output_activation='linear', name='simba_model',
                precision=DEFAULT_PRECISION):
    """A SimBa network over inputs of ``input_size`` whose first
    ``normalized_size`` (all by default) are the concatenated
    ``observation_keys`` fields; ``precision``: what its blocks compute in
    (models/precision.py)."""
    width = block_width(hidden_layer_sizes)
    dtype, float32 = compute_dtype(precision), output_dtype(precision)
    model = keras.Sequential(
        [RunningNormalization(normalized_size or input_size,
                              observation_keys, dtype=float32),
         keras.layers.Dense(width, kernel_initializer='orthogonal',
                            dtype=dtype)]
        + [ResidualBlock(width, activation, dtype=dtype)
           for _ in hidden_layer_sizes]
        + [keras.layers.LayerNormalization(epsilon=LAYER_NORM_EPSILON,
                                           dtype=float32),
           keras.layers.Dense(output_size, activation=output_activation,
                              dtype=float32)],
        name=name)
    model.build((None, input_size))
    return model


def running_normalizations(model):
    """The RunningNormalization layers of a Keras model."""
    return [layer for layer in getattr(model, 'layers', ())
            if isinstance(layer, RunningNormalization)]
