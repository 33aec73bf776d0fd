"""Truncated Quantile Critics (Kuznetsov et al. 2020): SAC whose N critics
each predict M quantiles of the return, and whose target drops the largest
atoms to control overestimation.

One update on a minibatch (s, a, r, d, s'), alpha = exp(log_alpha):

  Z_i(s, a)  the M atoms of critic i, at fractions tau_m = (m + 0.5) / M
  a' ~ pi(.|s')
  z' = the N * M atoms of all target critics Z'_i(s', a'), sorted; keep the
       smallest N * (M - d)  (d: top_quantiles_to_drop_per_net)
  y  = reward_scale * r + discount * (1 - d) * (z' - alpha * log pi(a'|s'))
  L_Z  = sum_i mean_{b, m, j} |tau_m - 1{y_j < Z_im}| * huber(y_j - Z_im)
  a~ ~ pi(.|s)
  L_pi = mean(alpha * log pi(a~|s) - mean_{i, m} Z_im(s, a~))
  L_alpha and the target update as SAC's (sac.py).

The critics are ``feedforward_Q_functions`` with ``n_quantiles`` outputs
(presets/tqc.py: N = 5, M = 25, d = 2 as in the paper, d per domain as in
its table).
"""

import tensorflow as tf

from .sac import SAC


def quantile_huber_loss(quantiles, targets, kappa=1.0):
    """Elementwise loss (B, M, K) of ``quantiles`` (B, M), at fractions
    (m + 0.5) / M, against target atoms ``targets`` (B, K): the quantile
    regression weight |tau_m - 1{y_j < Z_m}| times the Huber loss of
    y_j - Z_m (quadratic within ``kappa``)."""
    n_quantiles = tf.shape(quantiles)[-1]
    fractions = ((tf.cast(tf.range(n_quantiles), tf.float32) + 0.5)
                 / tf.cast(n_quantiles, tf.float32))
    errors = targets[:, None, :] - quantiles[:, :, None]
    absolute = tf.abs(errors)
    huber = tf.where(absolute <= kappa, 0.5 * errors ** 2,
                     kappa * (absolute - 0.5 * kappa))
    weights = tf.abs(fractions[None, :, None]
                     - tf.cast(errors < 0.0, tf.float32))
    return weights * huber


class TQC(SAC):

    # (Its targets and losses are its own: not categorical_critics.py's.)
    categorical_critics = False

    def __init__(self,
                 training_environment,
                 top_quantiles_to_drop_per_net=2,
                 huber_kappa=1.0,
                 **kwargs):
        super().__init__(training_environment=training_environment, **kwargs)
        n_quantiles = int(self._Qs[0].model.output_shape[-1])
        drop = int(top_quantiles_to_drop_per_net)
        if not 0 <= drop < n_quantiles:
            raise ValueError(
                f"top_quantiles_to_drop_per_net ({drop}) must be at least 0 "
                f"and less than the critics' quantiles ({n_quantiles}).")
        self._n_target_atoms = len(self._Qs) * (n_quantiles - drop)
        self._huber_kappa = float(huber_kappa)

    def _atoms(self, Qs, observations, actions):
        """All critics' atoms side by side, (B, N * M)."""
        inputs = Qs[0].network_inputs(observations)
        return tf.concat([Q.head(inputs, actions) for Q in Qs], axis=-1)

    def _y_for(self, batch, alpha, seed):
        next_actions, next_log_pis = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seed)
        atoms = tf.sort(self._atoms(self._Q_targets,
                                    batch['next_observations'], next_actions),
                        axis=-1)[:, :self._n_target_atoms]
        return self._bellman_targets(batch, atoms - alpha * next_log_pis)

    def _Q_loss(self, Q_values, y, batch):
        return tf.reduce_mean(quantile_huber_loss(Q_values, y,
                                                  self._huber_kappa))

    def _policy_Q(self, observations, actions):
        return tf.reduce_mean(self._atoms(self._Qs, observations, actions),
                              axis=-1, keepdims=True)
