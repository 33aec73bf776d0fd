"""Soft Q-Learning (Haarnoja, Tang, Abbeel and Levine 2017, "Reinforcement
Learning with Deep Energy-Based Policies").

The policy is the energy-based pi(a|s) ~ exp(Q(s, a)) (temperature 1: the
inverse temperature is ``reward_scale``), represented by a sampling network
a = f(s, xi), xi ~ N(0, I) (softlearning/policies/sampling_policy.py).
One update on a minibatch (s, a, r, d, s'):

  Soft Q-function, with an importance-sampled soft value (eq. 10):
    a_j ~ U[-1, 1]^|A|, j = 1..N                  (N = value_n_particles)
    V(s') = log E_{a~U}[exp Q'(s', a) / U(a)]
          = logsumexp_j Q'(s', a_j) - log N + |A| log 2
    y   = reward_scale * r + discount * (1 - d) * V(s')
    L_Q = sum_i 0.5 * mean((Q_i(s, a) - y)^2)      (Q = min_i Q_i with twins)

  Policy, by amortized Stein variational gradient descent (eqs. 13-14):
    a_k = f(s, xi_k), k = 1..K                    (K = kernel_n_particles)
    split into fixed particles a_j (stop-gradient) and updated ones a_i
    (kernel_update_ratio of them)
    log p(a) = Q(s, a) + sum_d log(1 - a_d^2 + eps)   (tanh-squash correction)
    phi(a_i) = mean_j [k(a_j, a_i) grad_{a_j} log p(a_j) + grad_{a_j} k(a_j, a_i)]
    L_pi = -mean_{s, i} <stop_gradient(phi(a_i)), a_i>
  so the gradient step moves each a_i = f(s, xi_i) along phi(a_i), pushed
  back through the network into its weights; k is the adaptive isotropic
  Gaussian kernel (kernels.py).

  Every target_update_interval updates: Q'_i <- tau * Q_i + (1 - tau) * Q'_i
  (tau = 1: hard copies, as in the paper).

``d`` is 1 only for true terminations; time-limit truncations bootstrap.
The loop that runs K such updates in one compiled call, the target update
and the checkpointed state are shared with SAC (fused_updates.py).
"""

import numpy as np
import tensorflow as tf

from .fused_updates import FusedUpdateAlgorithm
from .kernels import adaptive_isotropic_gaussian_kernel

# Keeps log(1 - a^2) finite for actions at +-1.
SQUASH_EPSILON = 1e-6


def soft_value(Q_values, action_size):
    """V = logsumexp_j Q_j - log N + |A| log 2, over the last axis of
    ``Q_values`` (..., N): Q at N actions drawn uniformly from [-1, 1]^|A|.
    Returns (..., 1)."""
    n_particles = int(Q_values.shape[-1])
    return (tf.reduce_logsumexp(Q_values, axis=-1, keepdims=True)
            - np.log(n_particles) + action_size * np.log(2.0))


def svgd_direction(kernel_values, kernel_gradients, grad_log_p):
    """phi(a_i) = mean_j [k(a_j, a_i) grad log p(a_j) + grad_{a_j} k(a_j, a_i)].

    kernel_values (B, Kj, Ki), kernel_gradients (B, Kj, Ki, D) (with respect
    to a_j), grad_log_p (B, Kj, D) -> phi (B, Ki, D).
    """
    return tf.reduce_mean(
        kernel_values[..., None] * grad_log_p[..., :, None, :]
        + kernel_gradients, axis=-3)


def repeat_observations(observations, n):
    """Each state's fields repeated n times: (B, ...) -> (B * n, ...), rows
    b * n .. b * n + n - 1 holding state b."""
    return tf.nest.map_structure(lambda x: tf.repeat(x, n, axis=0),
                                 observations)


class SQL(FusedUpdateAlgorithm):

    def __init__(self,
                 policy,
                 value_n_particles=16,
                 kernel_n_particles=16,
                 kernel_update_ratio=0.5,
                 **kwargs):
        if not hasattr(policy, 'particles'):
            raise ValueError(
                f"SQL trains a sampling network (FeedforwardSamplingPolicy, "
                f"--policy sampling), not a {type(policy).__name__}.")
        n_updated = int(kernel_n_particles * kernel_update_ratio)
        n_fixed = int(kernel_n_particles) - n_updated
        if n_updated < 1 or n_fixed < 2:
            raise ValueError(
                f"kernel_n_particles ({kernel_n_particles}) x "
                f"kernel_update_ratio ({kernel_update_ratio}) leaves "
                f"{n_updated} updated and {n_fixed} fixed particles; SVGD "
                f"needs at least 1 and 2.")
        if int(value_n_particles) < 1:
            raise ValueError(
                f"value_n_particles must be positive, got {value_n_particles}")
        super().__init__(policy=policy, **kwargs)
        self._action_size = int(np.prod(
            self._training_environment.action_shape))
        self._value_n_particles = int(value_n_particles)
        self._kernel_n_particles = int(kernel_n_particles)
        self._n_fixed_particles = n_fixed

    # The update ------------------------------------------------------------

    def _uniform_actions(self, batch_size, n_particles, seed):
        return tf.random.stateless_uniform(
            [batch_size, n_particles, self._action_size], seed, -1.0, 1.0)

    def _Q_at_particles(self, Qs, observations, actions):
        """min_i Q_i(s_b, a_bk) for actions (B, K, |A|) -> (B, K)."""
        n_particles = int(actions.shape[1])
        Q_values = self._min_Q(
            Qs, repeat_observations(observations, n_particles),
            tf.reshape(actions, [-1, self._action_size]))
        return tf.reshape(Q_values, [-1, n_particles])

    def _y_for(self, batch, seed):
        """Bellman targets y (B, 1) and the soft values V(s') (B, 1)."""
        next_observations = batch['next_observations']
        actions = self._uniform_actions(tf.shape(batch['rewards'])[0],
                                        self._value_n_particles, seed)
        next_Q = self._Q_at_particles(self._Q_targets, next_observations,
                                      actions)
        next_values = soft_value(next_Q, self._action_size)
        return self._bellman_targets(batch, next_values), next_values

    def _grad_log_p(self, observations, actions):
        """grad_a log p(a) = grad_a [Q(s, a) + sum_d log(1 - a_d^2 + eps)]
        for actions (B, K, |A|)."""
        with tf.GradientTape() as tape:
            tape.watch(actions)
            log_p = (self._Q_at_particles(self._Qs, observations, actions)
                     + tf.reduce_sum(
                         tf.math.log(1.0 - actions ** 2 + SQUASH_EPSILON),
                         axis=-1))
        return tape.gradient(log_p, actions)

    def _update_policy(self, observations, seed):
        """``observations``: the minibatch's, as the critic's step passed
        them on."""
        variables = self._policy.trainable_variables
        with tf.GradientTape() as tape:
            particles = self._policy.particles(
                observations, self._kernel_n_particles, seed=seed)
            fixed = tf.stop_gradient(particles[:, :self._n_fixed_particles])
            updated = particles[:, self._n_fixed_particles:]
            with tape.stop_recording():
                kernel = adaptive_isotropic_gaussian_kernel(
                    fixed, tf.stop_gradient(updated))
                direction = svgd_direction(
                    kernel['values'], kernel['gradients'],
                    self._grad_log_p(observations, fixed))
            policy_loss = -tf.reduce_mean(
                tf.reduce_sum(direction * updated, axis=-1))
        gradients = tape.gradient(policy_loss, variables)
        self._policy_optimizer.apply_gradients(zip(gradients, variables))
        return (policy_loss,
                tf.reduce_mean(tf.norm(direction, axis=-1)),
                tf.reduce_mean(kernel['bandwidth']))

    def _update(self, batch):
        """One SQL update; returns its diagnostics by name: L_Q, Q(s, a),
        V(s'), the surrogate L_pi (its value only tracks <phi, a>),
        |phi(a_i)| and the kernel's h."""
        seeds = tf.cast(self._random_generator.make_seeds(2), tf.int32)
        y, next_values = self._y_for(batch, seeds[:, 0])
        Q_loss, Q_mean, observations = self._update_Qs_towards(batch, y)
        policy_loss, direction_norm, bandwidth = self._update_policy(
            observations, seeds[:, 1])
        return {'Q_loss': Q_loss, 'Q_value-mean': Q_mean,
                'soft_value-mean': tf.reduce_mean(next_values),
                'policy_loss': policy_loss,
                'svgd_direction-norm': direction_norm,
                'kernel_bandwidth': bandwidth}

    def get_diagnostics(self, batch):
        return {'reward_scale': self.reward_scale}
