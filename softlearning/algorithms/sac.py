"""Soft Actor-Critic (Haarnoja et al. 2018, with automatic entropy tuning).

One update on a minibatch (s, a, r, d, s'), alpha = exp(log_alpha):

  a' ~ pi(.|s')
  y  = reward_scale * r + discount * (1 - d) * (min_i Q'_i(s', a') - alpha * log pi(a'|s'))
  L_Q  = sum_i 0.5 * mean((Q_i(s, a) - y)^2)
     (categorical critics, Q_params.config.categorical: the projected
     target distribution and cross-entropy, algorithms/categorical_critics.py)
  a~ ~ pi(.|s)
  L_pi = mean(alpha * log pi(a~|s) - min_i Q_i(s, a~))
  L_alpha = -mean(alpha * stop_gradient(log pi(a~|s) + target_entropy))
     (temperature_loss 'log_alpha': log_alpha in place of alpha, as SB3's;
     algorithms/temperature.py)
     (the policy's and alpha's steps every policy_delay updates; 1 by default)
  every target_update_interval updates: Q'_i <- tau * Q_i + (1 - tau) * Q'_i

``d`` is 1 only for true terminations; time-limit truncations bootstrap.
With recurrent networks the same update runs on sequence minibatches
(B, T, ...), every mean taken over the steps the pool's mask keeps
(``_mean`` in fused_updates.py).
The loop that runs K such updates in one compiled call, the target update
and the checkpointed state are shared with the other algorithms
(fused_updates.py); this file is the update itself.
"""

import numpy as np
import tensorflow as tf

from .fused_updates import FusedUpdateAlgorithm
from .temperature import check_temperature_loss
from .tensor_branches import every_step


class SAC(FusedUpdateAlgorithm):

    categorical_critics = True

    def __init__(self,
                 training_environment,
                 alpha_lr=3e-4,
                 initial_alpha=1.0,
                 target_entropy='auto',
                 policy_delay=1,
                 target_entropy_per_dimension=-1.0,
                 temperature_loss='alpha',
                 **kwargs):
        """``policy_delay``: the policy and the temperature take a step
        every that many updates (REDQ's and DroQ's 20 with 20 updates per
        environment step), the critics every update.
        ``target_entropy_per_dimension``: 'auto''s target entropy per action
        dimension (-1, i.e. -|A|; SimbaV2's -0.5).
        ``temperature_loss``: 'alpha' or 'log_alpha', what multiplies the
        entropy's shortfall in the temperature's loss
        (algorithms/temperature.py)."""
        super().__init__(training_environment=training_environment, **kwargs)
        self._temperature_loss = check_temperature_loss(temperature_loss)
        self._policy_delay = int(policy_delay)
        if self._policy_delay < 1:
            raise ValueError(f"policy_delay must be >= 1, got {policy_delay}")
        action_size = int(np.prod(training_environment.action_shape))
        self._target_entropy = float(
            float(target_entropy_per_dimension) * action_size
            if target_entropy == 'auto' else target_entropy)
        self._log_alpha = tf.Variable(np.log(initial_alpha), dtype=tf.float32,
                                      name='log_alpha')
        self._alpha_optimizer = self._make_optimizer('alpha', alpha_lr,
                                                     [self._log_alpha])
        # The last actor step's diagnostics, reported by the updates between
        # delayed steps too (diagnostics are means over fused updates).
        self._actor_diagnostics = {
            key: tf.Variable(0.0, name=key)
            for key in ('policy_loss', 'alpha_loss', 'entropy')}

    # The update ------------------------------------------------------------

    def _y_for(self, batch, alpha, seed):
        next_actions, next_log_pis = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seed)
        return self._target_values(batch, next_actions,
                                   alpha * next_log_pis)

    def _policy_Q(self, observations, actions):
        """The value the policy climbs: min_i Q_i(s, a), (B, 1)."""
        return self._min_Q(self._Qs, observations, actions)

    def _update_policy(self, batch, observations, alpha, seed):
        """``observations``: the minibatch's, as the critic's step passed
        them on (a pixel agent's features); ``batch`` gives the mask."""
        variables = self._policy.trainable_variables
        with tf.GradientTape() as tape:
            actions, log_pis = self._policy.actions_and_log_probs(
                observations, seed=seed, training=True)
            Q_values = self._policy_Q(observations, actions)
            policy_loss = self._mean(alpha * log_pis - Q_values, batch)
        gradients = tape.gradient(policy_loss, variables)
        self._policy_optimizer.apply_gradients(zip(gradients, variables))
        return policy_loss, log_pis

    def _update_alpha(self, log_pis, batch):
        with tf.GradientTape() as tape:
            scale = (self._log_alpha if self._temperature_loss == 'log_alpha'
                     else tf.exp(self._log_alpha))
            alpha_loss = -self._mean(
                scale * tf.stop_gradient(log_pis + self._target_entropy),
                batch)
        gradients = tape.gradient(alpha_loss, [self._log_alpha])
        self._alpha_optimizer.apply_gradients(zip(gradients,
                                                  [self._log_alpha]))
        return alpha_loss

    def _update_actor(self, batch, observations, alpha, seed):
        """The policy's step, then the temperature's; their diagnostics."""
        policy_loss, log_pis = self._update_policy(batch, observations, alpha,
                                                   seed)
        alpha_loss = self._update_alpha(log_pis, batch)
        return {'policy_loss': policy_loss, 'alpha_loss': alpha_loss,
                'entropy': -self._mean(log_pis, batch)}

    def _update_critics(self, batch, alpha, seed):
        """The critics' step; returns (L_Q, mean Q(s, a), observations for
        the policy's step), as ``_update_Qs_towards``."""
        return self._update_Qs_towards(
            batch, self._y_for(batch, alpha, seed))

    def _update(self, batch):
        """One SAC update (the actor's part every ``policy_delay``-th);
        returns its diagnostics by name."""
        seeds = tf.cast(self._random_generator.make_seeds(2), tf.int32)
        alpha = tf.exp(self._log_alpha)
        Q_loss, Q_mean, observations = self._update_critics(
            batch, alpha, seeds[:, 0])
        if self._policy_delay == 1:
            actor = self._update_actor(batch, observations, alpha,
                                       seeds[:, 1])
        else:
            def actor_step():
                for key, value in self._update_actor(
                        batch, observations, alpha, seeds[:, 1]).items():
                    self._actor_diagnostics[key].assign(value)

            every_step(self._train_step_counter + 1, self._policy_delay,
                       actor_step)
            actor = {key: variable.read_value()
                     for key, variable in self._actor_diagnostics.items()}
        return {'Q_loss': Q_loss, 'Q_value-mean': Q_mean,
                'policy_loss': actor['policy_loss'],
                'alpha_loss': actor['alpha_loss'], 'alpha': alpha,
                'entropy': actor['entropy']}

    # State -------------------------------------------------------------------

    @property
    def alpha(self):
        return float(tf.exp(self._log_alpha))

    def tf_saveables(self):
        saveables = {**super().tf_saveables(), 'log_alpha': self._log_alpha}
        if self._policy_delay > 1:
            # Only a delayed actor reports them between its steps (and
            # checkpoints of an undelayed SAC keep their old contents).
            saveables.update({f'last_{key}': variable for key, variable
                              in self._actor_diagnostics.items()})
        return saveables

    def get_diagnostics(self, batch):
        return {**super().get_diagnostics(batch),
                'target_entropy': self._target_entropy}
