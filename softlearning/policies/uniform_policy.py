"""Uniform random actions in [-1, 1]^|A|, for warm-up exploration.

The numpy half (acting) is ``NumpyUniformPolicy``, which TensorFlow-free
sampler actors use; this class adds the TensorFlow methods for updates.
"""

import numpy as np
import tensorflow as tf

from .numpy_policies import NumpyUniformPolicy


class UniformPolicy(NumpyUniformPolicy):

    def __init__(self, observation_shapes, action_shape, observation_keys=None,
                 seed=None, **unused_kwargs):
        super().__init__(observation_shapes, action_shape,
                         observation_keys=observation_keys, seed=seed)
        self._log_prob = -float(np.prod(action_shape)) * np.log(2.0)

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
