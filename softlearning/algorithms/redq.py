"""Randomized Ensembled Double Q-learning (REDQ, Chen et al. 2021): SAC
with an ensemble of N Q-functions, many updates per environment step, and
a target that takes the minimum over a random subset of the target
critics.

One update on a minibatch (s, a, r, d, s'), alpha = exp(log_alpha):

  a' ~ pi(.|s');  S = a random subset of M of the N target critics
  y  = reward_scale * r + discount * (1 - d) * (min_{i in S} Q'_i(s', a') - alpha * log pi(a'|s'))
  L_Q  = sum_i 0.5 * mean((Q_i(s, a) - y)^2)            (all N)
  every policy_delay updates:
    L_pi = mean(alpha * log pi(a~|s) - mean_i Q_i(s, a~)),  alpha as SAC's

Two presets use this update:

- REDQ (presets/redq.py), the paper's: N = 10, M = 2, 20 updates per
  environment step (``n_train_repeat``) and the policy every 20
  (``policy_delay``);
- DroQ (Hiraoka et al. 2022; presets/droq.py, ``--algorithm DroQ``): N = M
  = 2 Q-functions with dropout (0.01) and LayerNorm in their hidden layers
  (value_functions/feedforward_q_function.py), the same 20 and 20.

With N = M = 2 and no dropout this is SAC with a mean instead of a min in
the policy's objective.
"""

import tensorflow as tf

from .sac import SAC


class REDQ(SAC):

    # (Its targets and losses are its own: not categorical_critics.py's.)
    categorical_critics = False

    def __init__(self, training_environment, target_subset_size=2, **kwargs):
        super().__init__(training_environment=training_environment, **kwargs)
        self._target_subset_size = int(target_subset_size)
        if not 1 <= self._target_subset_size <= len(self._Qs):
            raise ValueError(
                f"target_subset_size ({target_subset_size}) must be between "
                f"1 and the number of Q-functions ({len(self._Qs)}).")

    def _Q_values(self, Qs, observations, actions):
        """Q_i(s, a) of each of ``Qs``, stacked: (N, B, 1)."""
        inputs = Qs[0].network_inputs(observations)
        return tf.stack([Q.head(inputs, actions) for Q in Qs])

    def target_subset(self, seed):
        """Indices of the target critics whose minimum is the target: a
        uniformly random M of N, drawn from ``seed``."""
        draws = tf.random.stateless_uniform(
            [len(self._Q_targets)],
            tf.random.experimental.stateless_fold_in(seed, 1))
        return tf.argsort(draws)[:self._target_subset_size]

    def _y_for(self, batch, alpha, seed):
        next_actions, next_log_pis = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seed)
        next_Qs = self._Q_values(self._Q_targets, batch['next_observations'],
                                 next_actions)
        next_Q = tf.reduce_min(tf.gather(next_Qs, self.target_subset(seed)),
                               axis=0)
        return self._bellman_targets(batch, next_Q - alpha * next_log_pis)

    def _policy_Q(self, observations, actions):
        return tf.reduce_mean(self._Q_values(self._Qs, observations, actions),
                              axis=0)
