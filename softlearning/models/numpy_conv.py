"""The convolutional observation encoder in numpy, for acting without
TensorFlow (sampler actors render pixels with OSMesa, which cannot share a
process with TensorFlow: see softlearning/environments/rendering.py).

The encoder (DrQ's, Kostrikov et al. 2020): frames in [0, 255] scaled to
[0, 1], ``len(filters)`` 3x3 'valid' convolutions with ReLU (strides
``strides``), flattened, a Dense projection to ``feature_size``, LayerNorm
and tanh. Observation keys other than the pixel key are concatenated after
the features. ``conv_encoder.py`` is the Keras version; both take the same
config and the same weight list (Keras' order), so either loads the other's
``get_weights()``. This module must not import TensorFlow.
"""

import numpy as np

from softlearning.utils.registry import with_defaults

from .numpy_mlp import flat_size

PIXEL_KEY = 'pixels'
ENCODER_DEFAULTS = {'filters': (32, 32, 32, 32), 'strides': (2, 1, 1, 1),
                    'kernel_size': 3, 'feature_size': 50,
                    'pixel_key': PIXEL_KEY}
LAYER_NORM_EPSILON = 1e-3  # Keras' default


def encoder_config(config=None):
    """The defaults, then ``config``; unknown keys or mismatched lengths are
    a ValueError naming the valid ones."""
    config = with_defaults(ENCODER_DEFAULTS, config, 'encoder')
    config['filters'] = tuple(int(f) for f in config['filters'])
    config['strides'] = tuple(int(s) for s in config['strides'])
    if len(config['filters']) != len(config['strides']) or not config[
            'filters']:
        raise ValueError(
            f"encoder filters {config['filters']} and strides "
            f"{config['strides']} must be non-empty and of the same length")
    return config


def conv_output_shape(image_shape, filters, strides, kernel_size):
    """(height, width, channels) after the convolutions ('valid')."""
    height, width, channels = image_shape
    for n_filters, stride in zip(filters, strides):
        height = (height - kernel_size) // stride + 1
        width = (width - kernel_size) // stride + 1
        channels = n_filters
        if height < 1 or width < 1:
            raise ValueError(
                f"Images of {image_shape[:2]} are too small for the "
                f"encoder's {len(filters)} convolutions (strides {strides})")
    return height, width, channels


def encoder_weight_shapes(image_shape, filters, strides, kernel_size,
                          feature_size):
    """Shapes of the encoder's weights in Keras' ``get_weights()`` order."""
    shapes, channels = [], image_shape[-1]
    for n_filters in filters:
        shapes += [(kernel_size, kernel_size, channels, n_filters),
                   (n_filters,)]
        channels = n_filters
    flat = int(np.prod(conv_output_shape(image_shape, filters, strides,
                                         kernel_size)))
    return shapes + [(flat, feature_size), (feature_size,),
                     (feature_size,), (feature_size,)]  # LayerNorm: gamma, beta


def encoded_size(observation_shapes, observation_keys, config):
    """The size of the encoder's output: features, then the other keys."""
    others = [key for key in observation_keys if key != config['pixel_key']]
    return config['feature_size'] + flat_size(observation_shapes, others)


def check_pixel_key(observation_shapes, config):
    key = config['pixel_key']
    if key not in observation_shapes or len(observation_shapes[key]) != 3:
        raise ValueError(
            f"The convolutional encoder needs an image observation "
            f"'{key}' (height, width, channels); observations: "
            f"{dict(observation_shapes)}")


def conv2d(x, kernel, bias, stride):
    """'valid' 2-D convolution of (B, H, W, C) with a (k, k, C, F) kernel,
    as one matmul over the image's patches."""
    k = kernel.shape[0]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(1, 2))
    windows = windows[:, ::stride, ::stride]  # (B, H', W', C, k, k)
    batch, height, width = windows.shape[:3]
    patches = windows.transpose(0, 1, 2, 4, 5, 3).reshape(
        batch * height * width, -1)
    out = patches @ kernel.reshape(-1, kernel.shape[-1]) + bias
    return out.reshape(batch, height, width, -1)


class NumpyConvEncoder:
    """Observation dict -> (B, feature_size + other keys), in numpy."""

    def __init__(self, observation_shapes, observation_keys, weights=None,
                 np_random=None, **config):
        self.config = encoder_config(config)
        check_pixel_key(observation_shapes, self.config)
        self.observation_keys = tuple(observation_keys)
        self.other_keys = tuple(key for key in self.observation_keys
                                if key != self.config['pixel_key'])
        self.output_size = encoded_size(observation_shapes,
                                        self.observation_keys, self.config)
        self.weight_shapes = encoder_weight_shapes(
            observation_shapes[self.config['pixel_key']],
            self.config['filters'], self.config['strides'],
            self.config['kernel_size'], self.config['feature_size'])
        if weights is None:
            weights = self._initial_weights(
                np_random or np.random.default_rng())
        self.set_weights(weights)

    def _initial_weights(self, np_random):
        """Glorot-uniform kernels, zero biases, LayerNorm's ones and zeros
        (Keras' defaults), so the policy can act before weights arrive."""
        weights = []
        for i, shape in enumerate(self.weight_shapes):
            if len(shape) > 1:
                receptive = int(np.prod(shape[:-2]))
                fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
                limit = np.sqrt(6.0 / (fan_in + fan_out))
                weights.append(np_random.uniform(-limit, limit, shape).astype(
                    np.float32))
            elif i == len(self.weight_shapes) - 2:  # LayerNorm's gamma
                weights.append(np.ones(shape, np.float32))
            else:
                weights.append(np.zeros(shape, np.float32))
        return weights

    @property
    def n_weights(self):
        return len(self.weight_shapes)

    def get_weights(self):
        return [w.copy() for w in self._weights]

    def set_weights(self, weights):
        shapes = [tuple(np.shape(w)) for w in weights]
        if shapes != [tuple(s) for s in self.weight_shapes]:
            raise ValueError(f"Weights of shapes {shapes} do not fit the "
                             f"encoder's {self.weight_shapes}")
        self._weights = [np.asarray(w, np.float32) for w in weights]

    def features(self, images):
        x = np.asarray(images, np.float32) / 255.0
        n_conv = len(self.config['filters'])
        for i, stride in enumerate(self.config['strides']):
            kernel, bias = self._weights[2 * i], self._weights[2 * i + 1]
            x = np.maximum(conv2d(x, kernel, bias, stride), 0.0)
        kernel, bias, gamma, beta = self._weights[2 * n_conv:]
        x = x.reshape(x.shape[0], -1) @ kernel + bias
        mean = x.mean(axis=-1, keepdims=True)
        variance = x.var(axis=-1, keepdims=True)
        x = (x - mean) / np.sqrt(variance + LAYER_NORM_EPSILON)
        return np.tanh(x * gamma + beta)

    def __call__(self, observations):
        parts = [self.features(observations[self.config['pixel_key']])]
        parts += [np.asarray(observations[key], np.float32)
                  for key in self.other_keys]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, -1)
