"""CrossQ (Bhatt et al., ICLR 2024): SAC without target networks, whose
critics (and actor) use batch renormalization, and whose critic sees the
current and the next state-actions as one minibatch.

One update on a minibatch (s, a, r, d, s') of size B, alpha = exp(log_alpha):

  a' ~ pi(.|s')                       (the policy in inference mode)
  [Q_i(s, a); Q_i(s', a')] = Q_i([s; s'], [a; a'])   one pass of 2B, training
       mode: the normalization statistics are those of the joint batch
  y  = reward_scale * r + discount * (1 - d) * (min_i Q_i(s', a') - alpha * log pi(a'|s'))
       (no gradient through y)
  L_Q  = sum_i 0.5 * mean((Q_i(s, a) - y)^2)
  every policy_delay (3) updates, as SAC's (sac.py), with the policy in
  training mode and the critics in inference mode:
    L_pi = mean(alpha * log pi(a~|s) - min_i Q_i(s, a~)),  L_alpha

Why the joint batch: with batch normalization, (s', a') drawn from the
current policy is distributed differently from the replay's (s, a); a
separate pass (or a target network's running statistics) would normalize
it as out of distribution. Without target networks, one pass over both
makes the statistics those of the mixture.

The networks are ``feedforward_model``s with ``batch_renorm``
(models/batch_renorm.py); presets/crossq.py has the paper's settings (Adam
beta1 0.5, learning rates 1e-3, policy delay 3) and a critic width a 2-core
CPU affords.
"""

import tensorflow as tf

from .sac import SAC


def joint_batch(first, second):
    """``first`` and ``second`` (tensors or dicts of them) concatenated
    along the batch axis."""
    return tf.nest.map_structure(lambda a, b: tf.concat([a, b], axis=0),
                                 first, second)


class CrossQ(SAC):

    # (Its targets and losses are its own: not categorical_critics.py's.)
    categorical_critics = False

    target_networks = False

    def __init__(self, training_environment, Qs, **kwargs):
        if Qs[0].encoder is not None:
            raise ValueError("CrossQ runs on state observations; a pixel "
                             "agent's shared encoder is not supported.")
        super().__init__(training_environment=training_environment, Qs=Qs,
                         **kwargs)

    def _update_critics(self, batch, alpha, seed):
        next_actions, next_log_pis = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seed)
        observations = joint_batch(batch['observations'],
                                   batch['next_observations'])
        actions = joint_batch(batch['actions'], next_actions)
        size = tf.shape(batch['actions'])[0]
        with tf.GradientTape() as tape:
            inputs = self._Qs[0].network_inputs(observations)
            Q_values, next_Q_values = zip(*(
                tf.split(Q.head(inputs, actions, training=True),
                         [size, size]) for Q in self._Qs))
            next_Q = tf.reduce_min(tf.stack(next_Q_values), axis=0)
            y = self._bellman_targets(batch, next_Q - alpha * next_log_pis)
            Q_loss = tf.add_n([self._Q_loss(Q_value, y, batch)
                               for Q_value in Q_values])
        Q_mean = self._apply_Q_step(tape, Q_loss, Q_values, batch)
        return Q_loss, Q_mean, batch['observations']
