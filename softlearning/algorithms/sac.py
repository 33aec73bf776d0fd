"""Soft Actor-Critic (Haarnoja et al. 2018, with automatic entropy tuning).

One update on a minibatch (s, a, r, d, s'), alpha = exp(log_alpha):

  a' ~ pi(.|s')
  y  = reward_scale * r + discount * (1 - d) * (min_i Q'_i(s', a') - alpha * log pi(a'|s'))
  L_Q  = sum_i 0.5 * mean((Q_i(s, a) - y)^2)
  a~ ~ pi(.|s)
  L_pi = mean(alpha * log pi(a~|s) - min_i Q_i(s, a~))
  L_alpha = -mean(alpha * stop_gradient(log pi(a~|s) + target_entropy))
  every target_update_interval updates: Q'_i <- tau * Q_i + (1 - tau) * Q'_i

``d`` is 1 only for true terminations; time-limit truncations bootstrap.
``_do_training`` runs K such updates in one compiled call (a loop inside the
graph over K minibatches drawn beforehand), so TensorFlow's per-call dispatch
is paid once per K updates.
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras

from .rl_algorithm import RLAlgorithm

DIAGNOSTIC_KEYS = ('Q_loss', 'Q_value-mean', 'policy_loss', 'alpha_loss',
                   'alpha', 'entropy')


def _batch_signature(pool):
    """TensorSpecs of (K, B, ...) stacked minibatches, K and B unknown."""
    def spec(array):
        return tf.TensorSpec((None, None, *array.shape[1:]), tf.float32)
    return tf.nest.map_structure(spec, pool.data)


class SAC(RLAlgorithm):

    training_diagnostic_keys = DIAGNOSTIC_KEYS

    def __init__(self,
                 training_environment,
                 policy,
                 Qs,
                 pool,
                 policy_lr=3e-4,
                 Q_lr=3e-4,
                 alpha_lr=3e-4,
                 initial_alpha=1.0,
                 reward_scale=1.0,
                 target_entropy='auto',
                 discount=0.99,
                 tau=5e-3,
                 target_update_interval=1,
                 jit_compile=False,
                 seed=None,
                 **kwargs):
        super().__init__(pool=pool, policy=policy,
                         training_environment=training_environment,
                         **kwargs)
        self._Qs = tuple(Qs)
        self._Q_targets = tuple(Q.clone() for Q in self._Qs)
        self._policy_lr = policy_lr
        self._Q_lr = Q_lr
        self._alpha_lr = alpha_lr
        self._reward_scale = float(reward_scale)
        self._discount = float(discount)
        self._tau = float(tau)
        self._target_update_interval = int(target_update_interval)
        action_size = int(np.prod(training_environment.action_shape))
        self._target_entropy = float(
            -action_size if target_entropy == 'auto' else target_entropy)

        self._Q_optimizer = keras.optimizers.Adam(learning_rate=Q_lr)
        self._policy_optimizer = keras.optimizers.Adam(learning_rate=policy_lr)
        self._alpha_optimizer = keras.optimizers.Adam(learning_rate=alpha_lr)
        self._log_alpha = tf.Variable(np.log(initial_alpha), dtype=tf.float32,
                                      name='log_alpha')
        self._Q_variables = [v for Q in self._Qs
                             for v in Q.trainable_variables]
        self._Q_target_variables = [v for Q in self._Q_targets
                                    for v in Q.trainable_variables]
        # Randomness of the updates lives in one generator variable, so it is
        # checkpointed with the weights and a resumed run draws the same noise.
        self._random_generator = tf.random.Generator.from_seed(
            0 if seed is None else int(seed))
        self._train_step_counter = tf.Variable(0, dtype=tf.int64,
                                               name='train_steps')
        self._fused_updates = tf.function(
            self._fused_updates_impl,
            input_signature=[_batch_signature(pool)],
            jit_compile=jit_compile, reduce_retracing=True)
        self._build_optimizers()

    def _build_optimizers(self):
        """Creates optimizer slots up front so checkpoints always hold them
        and the compiled update never creates variables."""
        self._Q_optimizer.build(self._Q_variables)
        self._policy_optimizer.build(self._policy.trainable_variables)
        self._alpha_optimizer.build([self._log_alpha])

    # The update ------------------------------------------------------------

    def _min_Q(self, Qs, observations, actions):
        return tf.reduce_min(
            tf.stack([Q(observations, actions) for Q in Qs], axis=0), axis=0)

    def _Q_targets_for(self, batch, alpha, seed):
        next_actions, next_log_pis = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seed)
        next_Q = self._min_Q(self._Q_targets, batch['next_observations'],
                             next_actions)
        next_values = next_Q - alpha * next_log_pis
        return tf.stop_gradient(
            self._reward_scale * batch['rewards']
            + self._discount * (1.0 - batch['terminals']) * next_values)

    def _update_Qs(self, batch, alpha, seed):
        Q_targets = self._Q_targets_for(batch, alpha, seed)
        with tf.GradientTape() as tape:
            Q_values = [Q(batch['observations'], batch['actions'])
                        for Q in self._Qs]
            Q_losses = [0.5 * tf.reduce_mean((Q_value - Q_targets) ** 2)
                        for Q_value in Q_values]
            Q_loss = tf.add_n(Q_losses)
        gradients = tape.gradient(Q_loss, self._Q_variables)
        self._Q_optimizer.apply_gradients(zip(gradients, self._Q_variables))
        return Q_loss, tf.reduce_mean(tf.stack(Q_values))

    def _update_policy(self, batch, alpha, seed):
        variables = self._policy.trainable_variables
        with tf.GradientTape() as tape:
            actions, log_pis = self._policy.actions_and_log_probs(
                batch['observations'], seed=seed)
            Q_values = self._min_Q(self._Qs, batch['observations'], actions)
            policy_loss = tf.reduce_mean(alpha * log_pis - Q_values)
        gradients = tape.gradient(policy_loss, variables)
        self._policy_optimizer.apply_gradients(zip(gradients, variables))
        return policy_loss, log_pis

    def _update_alpha(self, log_pis):
        with tf.GradientTape() as tape:
            alpha_loss = -tf.reduce_mean(
                tf.exp(self._log_alpha)
                * tf.stop_gradient(log_pis + self._target_entropy))
        gradients = tape.gradient(alpha_loss, [self._log_alpha])
        self._alpha_optimizer.apply_gradients(zip(gradients,
                                                  [self._log_alpha]))
        return alpha_loss

    def _update_targets(self, tau):
        for source, target in zip(self._Q_variables, self._Q_target_variables):
            target.assign(tau * source + (1.0 - tau) * target)

    def _update(self, batch):
        """One SAC update; returns its diagnostics as a tuple of scalars."""
        seeds = tf.cast(self._random_generator.make_seeds(2), tf.int32)
        alpha = tf.exp(self._log_alpha)
        Q_loss, Q_mean = self._update_Qs(batch, alpha, seeds[:, 0])
        policy_loss, log_pis = self._update_policy(batch, alpha, seeds[:, 1])
        alpha_loss = self._update_alpha(log_pis)
        self._train_step_counter.assign_add(1)
        if self._train_step_counter % self._target_update_interval == 0:
            self._update_targets(self._tau)
        return (Q_loss, Q_mean, policy_loss, alpha_loss, alpha,
                -tf.reduce_mean(log_pis))

    def _fused_updates_impl(self, batches):
        """Runs one update per leading index of ``batches``; returns the
        mean of each diagnostic over them."""
        n_updates = tf.shape(batches['actions'])[0]
        sums = tuple(tf.zeros(()) for _ in DIAGNOSTIC_KEYS)
        for i in tf.range(n_updates):
            batch = tf.nest.map_structure(lambda x: x[i], batches)
            sums = tuple(s + v for s, v in zip(sums, self._update(batch)))
        return tuple(s / tf.cast(n_updates, tf.float32) for s in sums)

    def _do_training(self, batches):
        means = self._fused_updates(batches)
        self._policy.refresh_numpy_weights()
        return dict(zip(DIAGNOSTIC_KEYS, (float(m) for m in means)))

    # State -------------------------------------------------------------------

    @property
    def alpha(self):
        return float(tf.exp(self._log_alpha))

    @property
    def Qs(self):
        return self._Qs

    @property
    def Q_targets(self):
        return self._Q_targets

    def tf_saveables(self):
        """Every TensorFlow object a checkpoint needs to resume exactly."""
        saveables = {
            'policy': self._policy.shift_and_log_scale_model,
            'Q_optimizer': self._Q_optimizer,
            'policy_optimizer': self._policy_optimizer,
            'alpha_optimizer': self._alpha_optimizer,
            'log_alpha': self._log_alpha,
            'random_generator': self._random_generator,
            'train_step_counter': self._train_step_counter,
        }
        for i, (Q, Q_target) in enumerate(zip(self._Qs, self._Q_targets)):
            saveables[f'Q{i}'] = Q.model
            saveables[f'Q{i}_target'] = Q_target.model
        return saveables

    def get_diagnostics(self, batch):
        return {'target_entropy': self._target_entropy}
