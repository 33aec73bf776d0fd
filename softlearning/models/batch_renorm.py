"""Batch renormalization (Ioffe 2017), as CrossQ's networks use it.

In training mode the layer normalizes with the minibatch's statistics and
moves its running statistics towards them (momentum 0.99); after
``warmup_steps`` training calls it renormalizes instead: the minibatch's
normalization corrected by r = clip(sigma_B / sigma, 1/r_max, r_max) and
d = clip((mu_B - mu) / sigma, -d_max, d_max) (no gradient through r, d),
i.e. what the running statistics would give, within bounds
(``warmup_steps`` None: never, batch normalization throughout). In inference
mode (the default, as in acting) it uses the running statistics:

    y = gamma * (x - mu) / sqrt(var + epsilon) + beta

which is all the numpy mirror (models/numpy_mlp.py) computes. Settings as
CrossQ's authors and SBX use them.
"""

import tensorflow as tf
import tf_keras as keras

from .numpy_mlp import BATCH_RENORM_EPSILON


class BatchRenormalization(keras.layers.Layer):

    def __init__(self, momentum=0.99, warmup_steps=100_000, r_max=3.0,
                 d_max=5.0, epsilon=BATCH_RENORM_EPSILON, **kwargs):
        super().__init__(**kwargs)
        self.momentum = float(momentum)
        self.warmup_steps = (None if warmup_steps is None
                             else int(warmup_steps))
        self.r_max = float(r_max)
        self.d_max = float(d_max)
        self.epsilon = float(epsilon)

    def build(self, input_shape):
        size = int(input_shape[-1])
        # Weights in the order the numpy mirror reads ``get_weights()``:
        # trainable gamma, beta, then the running mean, variance, and the
        # count of training calls (for the warm-up).
        self.gamma = self.add_weight('gamma', (size,), initializer='ones')
        self.beta = self.add_weight('beta', (size,), initializer='zeros')
        self.moving_mean = self.add_weight(
            'moving_mean', (size,), initializer='zeros', trainable=False)
        self.moving_variance = self.add_weight(
            'moving_variance', (size,), initializer='ones', trainable=False)
        self.steps = self.add_weight('steps', (), initializer='zeros',
                                     trainable=False)
        super().build(input_shape)

    def _normalize(self, x, mean, variance):
        return (self.gamma * (x - mean) * tf.math.rsqrt(variance + self.epsilon)
                + self.beta)

    def call(self, inputs, training=None):
        if not training:
            return self._normalize(inputs, self.moving_mean,
                                   self.moving_variance)
        mean, variance = tf.nn.moments(inputs, axes=[0])
        if self.warmup_steps is None:
            outputs = self._normalize(inputs, mean, variance)
            self._move_statistics(mean, variance)
            return outputs
        std = tf.sqrt(variance + self.epsilon)
        moving_std = tf.sqrt(self.moving_variance + self.epsilon)
        r = tf.stop_gradient(tf.clip_by_value(std / moving_std,
                                              1.0 / self.r_max, self.r_max))
        d = tf.stop_gradient(tf.clip_by_value(
            (mean - self.moving_mean) / moving_std, -self.d_max, self.d_max))
        warmed_up = tf.cast(self.steps >= self.warmup_steps, inputs.dtype)
        # Renormalized: (x - mu_B) / sigma_B * r + d, written as a
        # normalization with a shifted mean and a scaled variance.
        renorm_mean = mean - d * tf.sqrt(variance) / r
        renorm_variance = variance / r ** 2
        outputs = self._normalize(
            inputs,
            warmed_up * renorm_mean + (1.0 - warmed_up) * mean,
            warmed_up * renorm_variance + (1.0 - warmed_up) * variance)
        self._move_statistics(mean, variance)
        return outputs

    def _move_statistics(self, mean, variance):
        self.moving_mean.assign(self.momentum * self.moving_mean
                                + (1.0 - self.momentum) * mean)
        self.moving_variance.assign(self.momentum * self.moving_variance
                                    + (1.0 - self.momentum) * variance)
        self.steps.assign_add(1.0)

    def get_config(self):
        return {**super().get_config(), 'momentum': self.momentum,
                'warmup_steps': self.warmup_steps, 'r_max': self.r_max,
                'd_max': self.d_max, 'epsilon': self.epsilon}
