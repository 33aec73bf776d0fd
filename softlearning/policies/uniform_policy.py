"""Uniform random actions in [-1, 1]^|A|, for warm-up exploration."""

import numpy as np
import tensorflow as tf

from .base_policy import BasePolicy


class UniformPolicy(BasePolicy):

    def __init__(self, observation_shapes, action_shape, observation_keys=None,
                 seed=None, **unused_kwargs):
        super().__init__(observation_keys or tuple(observation_shapes),
                         action_shape, seed=seed)
        self._log_prob = -float(np.prod(action_shape)) * np.log(2.0)

    def _batch_size(self, observations):
        return observations[self.observation_keys[0]].shape[0]

    def actions_np(self, observations):
        if self._deterministic:
            return np.zeros((self._batch_size(observations),
                             *self.action_shape), dtype=np.float32)
        return self._np_random.uniform(
            -1.0, 1.0, (self._batch_size(observations), *self.action_shape)
        ).astype(np.float32)

    def actions(self, observations, seed=None):
        shape = tf.concat([tf.shape(observations[self.observation_keys[0]])[:1],
                           self.action_shape], axis=0)
        if seed is None:
            return tf.random.uniform(shape, -1.0, 1.0)
        return tf.random.stateless_uniform(shape, seed, -1.0, 1.0)

    def log_probs(self, observations, actions):
        return tf.fill(tf.concat([tf.shape(actions)[:1], [1]], axis=0),
                       self._log_prob)

    def actions_and_log_probs(self, observations, seed=None):
        actions = self.actions(observations, seed=seed)
        return actions, self.log_probs(observations, actions)
