"""TD3 (Fujimoto et al. 2018) and DDPG (Lillicrap et al. 2016) as its special
case.

One update on a minibatch (s, a, r, d, s'), deterministic policy mu:

  eps ~ clip(N(0, target_noise^2), -target_noise_clip, target_noise_clip)
  a'  = clip(mu'(s') + eps, -1, 1)                   (target policy smoothing)
  y   = reward_scale * r + discount * (1 - d) * min_i Q'_i(s', a')
  L_Q = sum_i 0.5 * mean((Q_i(s, a) - y)^2)
        (categorical critics: algorithms/categorical_critics.py)
  every policy_delay updates:
    L_mu = -mean(Q_0(s, mu(s)))
    Q'_i <- tau * Q_i + (1 - tau) * Q'_i,  mu' <- tau * mu + (1 - tau) * mu'

DDPG is the same update with one Q-function, no smoothing noise and no
delay; FastTD3 (fast_td3.py) the same without the target policy (mu in
place of mu') and with the policy climbing min_i Q_i. Exploration noise
while collecting is the policy's
(softlearning/policies/deterministic_policy.py). ``d`` is 1 only for true
terminations; time-limit truncations bootstrap. The loop that runs K updates
in one compiled call and the target update are shared (fused_updates.py).
"""

import tensorflow as tf

from .fused_updates import FusedUpdateAlgorithm
from .tensor_branches import every_step


class TD3(FusedUpdateAlgorithm):

    categorical_critics = True
    # Whether the targets' next actions come from a target copy of the
    # policy, which moves with the critics' target copies every
    # policy_delay updates (TD3's). Without one (FastTD3's) they come from
    # the policy itself, and the critics' copies move every update.
    target_policy = True
    # How many of the critics (the first ones) the policy's loss takes the
    # minimum of: TD3's first one; None for all (FastTD3's clipped double Q).
    policy_critics = 1

    def __init__(self,
                 training_environment,
                 policy,
                 target_noise=0.2,
                 target_noise_clip=0.5,
                 policy_delay=2,
                 **kwargs):
        if 'target_update_interval' in kwargs:
            raise ValueError(
                f"{type(self).__name__} updates its targets with the policy, "
                f"every policy_delay updates; set policy_delay, not "
                f"target_update_interval "
                f"(got {kwargs['target_update_interval']})")
        self._policy_delay = int(policy_delay)
        if self._policy_delay < 1:
            raise ValueError(f"policy_delay must be >= 1, got {policy_delay}")
        super().__init__(
            training_environment=training_environment, policy=policy,
            target_update_interval=(self._policy_delay if self.target_policy
                                    else 1), **kwargs)
        self._target_noise = float(target_noise)
        self._target_noise_clip = float(target_noise_clip)
        # (The policy itself stands in for a target policy it has not.)
        self._policy_target = policy.clone() if self.target_policy else policy
        if self.target_policy:
            self._target_variable_pairs += list(zip(
                self._policy.trainable_variables,
                self._policy_target.trainable_variables))
        # The last policy loss, reported on the updates between policy
        # updates too (diagnostics are means over the K fused updates).
        self._policy_loss = tf.Variable(0.0, name='policy_loss')

    # The update ------------------------------------------------------------

    def _smoothed_target_actions(self, next_observations, seed):
        actions = self._policy_target.actions(next_observations)
        if not self._target_noise:
            return actions
        noise = tf.clip_by_value(
            self._target_noise * tf.random.stateless_normal(
                tf.shape(actions), seed),
            -self._target_noise_clip, self._target_noise_clip)
        return tf.clip_by_value(actions + noise, -1.0, 1.0)

    def _y_for(self, batch, seed):
        next_actions = self._smoothed_target_actions(
            batch['next_observations'], seed)
        return self._target_values(batch, next_actions)

    def _update_policy(self, batch, observations):
        """``observations``: the minibatch's, as the critic's step passed
        them on; ``batch`` gives the mask."""
        variables = self._policy.trainable_variables
        with tf.GradientTape() as tape:
            actions = self._policy.actions(observations)
            # (Expected values, for categorical critics.)
            policy_loss = -self._mean(self._min_Q(
                self._Qs[:self.policy_critics], observations, actions), batch)
        gradients = tape.gradient(policy_loss, variables)
        self._policy_optimizer.apply_gradients(zip(gradients, variables))
        self._policy_loss.assign(policy_loss)

    def _update(self, batch):
        """One TD3 update; the policy only every ``policy_delay`` updates
        (the 2nd, 4th, ... with delay 2, as the reference code). Returns
        its diagnostics by name; policy_loss is the last policy update's."""
        seed = tf.cast(self._random_generator.make_seeds(1)[:, 0], tf.int32)
        Q_loss, Q_mean, observations = self._update_Qs_towards(
            batch, self._y_for(batch, seed))
        every_step(self._train_step_counter + 1, self._policy_delay,
                   lambda: self._update_policy(batch, observations))
        return {'Q_loss': Q_loss, 'Q_value-mean': Q_mean,
                'policy_loss': self._policy_loss.read_value()}

    # State -------------------------------------------------------------------

    @property
    def policy_target(self):
        return self._policy_target

    def tf_saveables(self):
        saveables = super().tf_saveables()
        if self.target_policy:
            saveables['policy_target'] = self._policy_target.model
        return {**saveables, 'policy_loss': self._policy_loss}

    def get_diagnostics(self, batch):
        return {**super().get_diagnostics(batch),
                'policy_delay': self._policy_delay}


class DDPG(TD3):
    """TD3 without its three changes: one Q-function (the variant's Q_params
    name ``feedforward_Q_function``), no target smoothing, no delay."""

    def __init__(self, training_environment, policy, Qs, **kwargs):
        if len(Qs) != 1:
            raise ValueError(
                f"DDPG learns one Q-function; got {len(Qs)} (use Q_params "
                f"class_name 'feedforward_Q_function', or --algorithm TD3 "
                f"for twin Q-functions)")
        super().__init__(training_environment=training_environment,
                         policy=policy, Qs=Qs, target_noise=0.0,
                         policy_delay=1, **kwargs)
