"""Tanh-squashed Gaussian policy: a = tanh(u), u ~ N(mu(s), sigma(s)).

log pi(a|s) = log N(u; mu, sigma) - sum_i log(1 - tanh(u_i)^2), with the
Jacobian term from TFP's Tanh bijector (computed stably from u, never atanh(a)).

For an action it samples, u = mu + sigma * eps, the policy takes
log N(u; mu, sigma) = sum_i (-eps_i^2 / 2 - log sigma_i) - |A| log(2 pi) / 2
from the draw eps itself. TFP's log_prob(u) forms u / sigma - mu / sigma
instead, which multiplies u's rounding error by 1 / sigma: with sigma at its
floor (e^-20), |mu| in the hundreds and u one fused multiply-add (under XLA),
that is off by millions, and so are the critics' targets that carry it
(docs/benchmarks/frontier-hard.md). The draw is the stateless normal TFP
draws for the same seed, so sampling is TFP's.
"""

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

from .feedforward_policy import FeedforwardPolicy
# Acting in numpy is shared with the TensorFlow-free actors' policy.
from .numpy_policies import (LOG_SCALE_MAX, LOG_SCALE_MIN,
                             NumpyGaussianPolicy,
                             squashed_gaussian_actions)

tfd = tfp.distributions
tfb = tfp.bijectors
# Actions handed to log_probs are clipped this far inside (-1, 1) so atanh
# stays finite.
ATANH_EPSILON = 1e-6


class FeedforwardGaussianPolicy(FeedforwardPolicy):

    numpy_class = NumpyGaussianPolicy
    default_name = 'feedforward_gaussian_policy'

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.shift_and_log_scale_model = self._model
        self._squash = tfb.Tanh()

    # TensorFlow path (inside compiled updates) ---------------------------

    def _base_distribution(self, observations, training=False):
        inputs = self._network_inputs(observations)
        shift, log_scale = tf.split(
            self.shift_and_log_scale_model(inputs, training=training), 2,
            axis=-1)
        log_scale = tf.clip_by_value(log_scale, LOG_SCALE_MIN, LOG_SCALE_MAX)
        return tfd.Independent(
            tfd.Normal(loc=shift, scale=tf.exp(log_scale)),
            reinterpreted_batch_ndims=1)

    def _squashed_log_probs(self, distribution, raw_actions):
        return (distribution.log_prob(raw_actions)
                - self._squash.forward_log_det_jacobian(
                    raw_actions, event_ndims=1))[..., None]

    def actions_and_log_probs(self, observations, seed=None, training=False):
        """Sampled actions (B, |A|) and their log-probabilities (B, 1);
        ``training``: the network's training mode (the policy's update; it
        matters to batch renormalization only). The Gaussian part of the
        log-probability comes from the draw (module docstring)."""
        normal = self._base_distribution(observations, training).distribution
        loc, scale = normal.loc, normal.scale
        noise = (tf.random.normal(tf.shape(loc), dtype=loc.dtype)
                 if seed is None else
                 tf.random.stateless_normal(tf.shape(loc), seed=seed,
                                            dtype=loc.dtype))
        raw_actions = noise * scale + loc
        gaussian_log_probs = tf.reduce_sum(
            -0.5 * tf.square(noise) - tf.math.log(scale), axis=-1) - (
                0.5 * np.log(2.0 * np.pi) * tf.cast(tf.shape(loc)[-1],
                                                    loc.dtype))
        log_probs = gaussian_log_probs - self._squash.forward_log_det_jacobian(
            raw_actions, event_ndims=1)
        return self._squash.forward(raw_actions), log_probs[..., None]

    def actions(self, observations, seed=None):
        if self._deterministic:
            return self._squash.forward(
                self._base_distribution(observations).mode())
        return self.actions_and_log_probs(observations, seed=seed)[0]

    def deterministic_actions_from_outputs(self, outputs):
        """tanh(shift) from the network's outputs (TensorFlow)."""
        return tf.tanh(tf.split(outputs, 2, axis=-1)[0])

    def log_probs(self, observations, actions):
        raw_actions = tf.atanh(tf.clip_by_value(
            actions, -1.0 + ATANH_EPSILON, 1.0 - ATANH_EPSILON))
        return self._squashed_log_probs(
            self._base_distribution(observations), raw_actions)

    # numpy path (acting in samplers) -------------------------------------

    def _actions_from_outputs(self, outputs):
        return squashed_gaussian_actions(outputs, self._np_random,
                                         self._deterministic)

    def get_diagnostics(self, observations):
        """Statistics of the policy on a batch (numpy in, floats out)."""
        inputs = self._numpy_inputs(observations)
        shift, log_scale = np.split(self._acting_network(inputs), 2, axis=-1)
        log_scale = np.clip(log_scale, LOG_SCALE_MIN, LOG_SCALE_MAX)
        return {
            'shifts-mean': float(np.mean(shift)),
            'scales-mean': float(np.mean(np.exp(log_scale))),
        }
