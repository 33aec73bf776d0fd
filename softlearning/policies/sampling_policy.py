"""Soft Q-Learning's sampling network (Haarnoja et al. 2017, section 3.2).

    a = tanh(f(s, xi)),   xi ~ N(0, I_|A|)

The noise xi is an input of the network, next to the observation, so the
network can shape any distribution of actions, multimodal ones included.
It has no tractable log-probability: Soft Q-Learning trains it with amortized
Stein variational gradient descent (softlearning/algorithms/sql.py), which
only needs samples and their gradients with respect to the weights.

Deterministic actions (evaluation, ``simulate``, export) use xi = 0, the
image of the noise distribution's mode. It needs nothing but the network, so
the numpy copy that acts in sampler actors and the exported SavedModel give
exactly the same deterministic actions; with a multimodal policy, though, xi
= 0 picks one mode (or a point between two), not the best action.
"""

import numpy as np
import tensorflow as tf

from .feedforward_policy import FeedforwardPolicy
# Acting in numpy is shared with the TensorFlow-free actors' policy.
from .numpy_policies import (NumpySamplingPolicy,
                             sampling_network_actions)

# Particles per state for ``get_diagnostics``, from a fixed seed (the
# policy's own random state is left alone).
DIAGNOSTIC_PARTICLES = 16


class FeedforwardSamplingPolicy(FeedforwardPolicy):

    numpy_class = NumpySamplingPolicy
    default_name = 'feedforward_sampling_policy'

    # TensorFlow path (inside compiled updates) ---------------------------

    def _noise(self, shape, seed):
        if self._deterministic:
            return tf.zeros(shape)
        if seed is None:
            return tf.random.normal(shape)
        return tf.random.stateless_normal(shape, seed)

    def actions(self, observations, seed=None):
        """Actions (B, |A|) in (-1, 1); xi = 0 when deterministic."""
        inputs = self._network_inputs(observations)
        noise = self._noise(
            tf.stack([tf.shape(inputs)[0], self._action_size]), seed)
        return self._model(tf.concat([inputs, noise], axis=-1))

    def particles(self, observations, n_particles, seed=None):
        """``n_particles`` actions per state, (B, n_particles, |A|), each
        from its own noise; differentiable with respect to the weights."""
        inputs = self._network_inputs(observations)
        batch_size, input_size = tf.shape(inputs)[0], tf.shape(inputs)[1]
        tiled = tf.reshape(
            tf.tile(inputs[:, None, :], [1, n_particles, 1]),
            [batch_size * n_particles, input_size])
        noise = self._noise(
            tf.stack([batch_size * n_particles, self._action_size]), seed)
        actions = self._model(tf.concat([tiled, noise], axis=-1))
        return tf.reshape(actions,
                          [batch_size, n_particles, self._action_size])

    def actions_and_log_probs(self, observations, seed=None):
        raise NotImplementedError(
            "FeedforwardSamplingPolicy has no log-probabilities: it is "
            "trained by Soft Q-Learning (--algorithm SQL), not SAC.")

    log_probs = actions_and_log_probs

    # numpy path (acting in samplers) -------------------------------------

    def actions_np(self, observations):
        inputs = self._numpy_inputs(observations)
        return sampling_network_actions(self._acting_network, inputs,
                                        self._action_size, self._np_random,
                                        self._deterministic)

    def get_diagnostics(self, observations):
        """Spread of the sampled actions per state (numpy, fixed seed)."""
        inputs = self._numpy_inputs(observations)
        repeated = np.repeat(inputs, DIAGNOSTIC_PARTICLES, axis=0)
        actions = sampling_network_actions(
            self._acting_network, repeated, self._action_size,
            np.random.default_rng(0)).reshape(
                len(inputs), DIAGNOSTIC_PARTICLES, self._action_size)
        return {
            'actions-mean': float(np.mean(actions)),
            'actions-std': float(np.mean(np.std(actions, axis=1))),
            'actions-saturated': float(np.mean(np.abs(actions) > 0.99)),
        }
