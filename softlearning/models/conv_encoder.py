"""The convolutional observation encoder (Keras), shared by the policy and
the Q-functions of pixel-based agents.

The network and its settings are described in numpy_conv.py, whose
``NumpyConvEncoder`` is the TensorFlow-free copy that sampler actors act
with; both take the same config and weight list.

Sharing (as in DrQ and SAC-AE): one encoder per agent, owned by the
Q-functions. The critic's loss trains it; the policy reads its features
through ``tf.stop_gradient``, so the policy's loss never updates it, and the
policy's optimizer does not hold it. The target Q-functions have their own
copy (``clone``), Polyak-averaged with the rest of the target networks.
Under ``precision='bfloat16'`` (models/precision.py) the convolutions and
the Dense layer compute in bfloat16, the final LayerNorm in float32: the
features the critics and the policy read are float32.
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras

from .numpy_conv import (NumpyConvEncoder, check_pixel_key, encoded_size,
                         encoder_config)
from .precision import (DEFAULT_PRECISION, check_precision, compute_dtype,
                        output_dtype)


# The key of observations that hold an encoder's features (``encoded``).
ENCODED = 'encoded'


def conv_image_model(image_shape, filters, strides, kernel_size,
                     feature_size, name='conv_encoder',
                     precision=DEFAULT_PRECISION):
    dtype = compute_dtype(precision)
    images = keras.Input(image_shape, dtype=tf.uint8, name='images')
    x = tf.cast(images, tf.float32) / 255.0
    for n_filters, stride in zip(filters, strides):
        x = keras.layers.Conv2D(n_filters, kernel_size, strides=stride,
                                activation='relu', dtype=dtype)(x)
    x = keras.layers.Flatten(dtype=dtype)(x)
    x = keras.layers.Dense(feature_size, dtype=dtype)(x)
    x = keras.layers.LayerNormalization(dtype=output_dtype(precision))(x)
    return keras.Model(images, tf.tanh(x), name=name)


class ConvEncoder:
    """Observation dict -> (B, feature_size + other keys) tensor."""

    def __init__(self, observation_shapes, observation_keys=None,
                 name='encoder', precision=DEFAULT_PRECISION, **config):
        """``precision``: what its layers compute in
        (models/precision.py)."""
        self.config = encoder_config(config)
        self.precision = check_precision(precision)
        check_pixel_key(observation_shapes, self.config)
        self.observation_shapes = dict(observation_shapes)
        self.observation_keys = tuple(observation_keys or observation_shapes)
        self.other_keys = tuple(key for key in self.observation_keys
                                if key != self.config['pixel_key'])
        self.output_size = encoded_size(observation_shapes,
                                        self.observation_keys, self.config)
        self.name = name
        self.model = conv_image_model(
            tuple(observation_shapes[self.config['pixel_key']]),
            self.config['filters'], self.config['strides'],
            self.config['kernel_size'], self.config['feature_size'],
            name=name, precision=self.precision)

    @staticmethod
    def encoded(features):
        """Observations already encoded (``features``, from this encoder):
        calling the encoder on them returns the features as they are."""
        return {ENCODED: features}

    def __call__(self, observations):
        if ENCODED in observations:
            return observations[ENCODED]
        parts = [self.model(observations[self.config['pixel_key']])]
        parts += [observations[key] for key in self.other_keys]
        return parts[0] if len(parts) == 1 else tf.concat(parts, axis=-1)

    def clone(self, name=None):
        copy = ConvEncoder(self.observation_shapes, self.observation_keys,
                           name=name or f'{self.name}_target',
                           precision=self.precision, **self.config)
        copy.set_weights(self.get_weights())
        return copy

    def numpy_copy(self):
        """A ``NumpyConvEncoder`` holding the current weights."""
        return NumpyConvEncoder(self.observation_shapes,
                                self.observation_keys,
                                weights=self.get_weights(), **self.config)

    @property
    def trainable_variables(self):
        return self.model.trainable_variables

    def get_weights(self):
        return self.model.get_weights()

    def set_weights(self, weights):
        self.model.set_weights([np.asarray(w) for w in weights])


def get_encoder(params, observation_shapes, observation_keys=None,
                precision=DEFAULT_PRECISION):
    """The encoder of a variant's ``encoder_params`` ({'class_name':
    'ConvEncoder', 'config': {...}}), or None without them; ``precision``:
    the update's (algorithm_params.config.precision)."""
    if not params:
        return None
    if params.get('class_name', 'ConvEncoder') != 'ConvEncoder':
        raise ValueError(f"Unknown encoder '{params['class_name']}'; valid: "
                         "ConvEncoder")
    return ConvEncoder(observation_shapes, observation_keys,
                       precision=precision, **params.get('config', {}))
