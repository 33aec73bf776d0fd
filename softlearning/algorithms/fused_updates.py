"""The update skeleton shared by the off-policy actor-critic algorithms.

``FusedUpdateAlgorithm`` sits between the epoch loop (``RLAlgorithm``) and an
algorithm's update rule (``SAC`` in sac.py, ``SQL`` in sql.py, ``TD3`` in
td3.py). It owns the loop and what every such algorithm needs:

- the compiled update: ``_do_training`` runs K updates in one
  ``tf.function`` call, a loop inside the graph over K minibatches drawn
  beforehand and stacked to (K, B, ...), so TensorFlow's per-call dispatch
  is paid once per K updates; it returns {name: mean over the K} of the
  update's diagnostics (and of ``PEAK_KEYS``, '<name>-max': the largest of
  the K) and the policy's new weights, which the numpy copy
  that acts is loaded from (so no variable is read from Python);
- the Q-functions and the target update ``Q' <- tau * Q + (1 - tau) * Q'``
  every ``target_update_interval`` updates (``tau = 1``: hard copies);
- the update counter and one random generator (a TensorFlow variable, so a
  checkpoint holds it and a resumed run draws the same noise);
- Adam optimizers, built up front so checkpoints always hold their slots and
  the compiled update never creates variables: one for the Q-functions
  (``Q_lr``) and one for the policy (``policy_lr``), both with
  ``adam_beta1`` (CrossQ's 0.5) and ``weight_decay`` (FastTD3's AdamW),
  and every optimizer with ``adam_epsilon``;
- the TensorFlow objects a checkpoint must hold (``tf_saveables``).

What varies between agents is a part it is built with, each in its own
module, so a new feature adds a part and not a branch here:

- the critic head (critic_heads.py): what a critic's outputs are (Q, or a
  categorical distribution), so how targets, losses and Q estimates are
  formed;
- the target copies (target_networks.py), or none (CrossQ);
- the running observation statistics (observation_statistics.py) and the
  minibatch augmentation (augmentation.py: pixel agents' random shifts);
- the learning-rate schedule (learning_rate_decay.py);
- the reward scale of the targets (reward_normalization.py);
- the decoupled weight decay of the optimizers (weight_decay.py);
- the XLA switch (compilation.py);
- the precision, float32 or bfloat16 mixed precision (precision.py): the
  networks compute in it, the update's losses and state stay float32.

Weight projections need nothing here: SimbaV2's unit-norm kernels
(models/simbav2.py) are Keras constraints, which every optimizer applies
after each ``apply_gradients``.

A new algorithm is its own file beside sac.py: a subclass of
``FusedUpdateAlgorithm`` (named in ``ALGORITHMS``, __init__.py) providing

- ``_update(batch)``: one update on a minibatch of tensors (B, ...); returns
  its diagnostics as a dict of scalars, {name: value}. The names are the
  columns of progress.csv (each the mean over an epoch's updates); the
  skeleton reads them off a trace of ``_update``
  (``training_diagnostic_keys``), so no separate list of names has to match
  the update;
- any other optimizers (``self._make_optimizer(name, lr, variables)``) and
  variables a checkpoint needs (extend ``tf_saveables``).

The update is traced without autograph (converting its source cost about
a second per training process): Python ``if`` and ``for`` only over Python
values; a branch on a tensor is ``tf.cond`` (tensor_branches.py's
``every_step`` for "every n-th update"), a loop ``tf.while_loop``.

The update is built from the shared pieces below. The critic's step
``_update_Qs_towards(batch, y)`` (y from ``_target_values``, or from
``_bellman_targets`` and ``_min_Q``) returns the observations the policy's
step is to read, and the update passes them to its policy step as an
argument; nothing rewrites the minibatch:

    def _update(self, batch):
        Q_loss, Q_mean, observations = self._update_Qs_towards(
            batch, self._y_for(batch))
        policy_loss = self._update_policy(batch, observations)
        return {'Q_loss': Q_loss, 'Q_value-mean': Q_mean,
                'policy_loss': policy_loss}

For a pixel agent those observations are the features the critic's step
computed (so the policy's step does not run the encoder again); otherwise
they are the minibatch's own.
"""

import functools

import tensorflow as tf
import tf_keras as keras

from .augmentation import batch_augmentation
from .compilation import resolve_jit_compile
from .critic_heads import critic_head
from .discounts import resolve_discount
from .learning_rate_decay import learning_rate_schedule, run_updates
from .observation_statistics import ObservationStatistics
from .precision import check_networks
from .reward_normalization import RewardScale
from .rl_algorithm import RLAlgorithm
from .target_networks import target_copies, unique_variables, update_targets
from .tensor_branches import every_step


def batch_signature(pool):
    """TensorSpecs of (K, B, ...) stacked minibatches, K and B unknown."""
    def specs(shapes, dtypes):
        # Shapes are tuples, which tf.nest would take apart: walk the dicts.
        if isinstance(shapes, dict):
            return {key: specs(value, dtypes[key])
                    for key, value in shapes.items()}
        return tf.TensorSpec((None, None, *shapes), tf.as_dtype(dtypes))
    return specs(pool.batch_shapes(), pool.batch_dtypes())


class FusedUpdateAlgorithm(RLAlgorithm):

    # Whether the algorithm bootstraps from target copies of its critics.
    target_networks = True
    # Whether its update trains categorical critics (categorical_critics.py):
    # those whose targets come from ``_target_values`` and whose losses are
    # ``_Q_loss``.
    categorical_critics = False
    # The decoupled weight decay of the critics' and the policy's optimizers
    # (AdamW's), or None: the WeightDecay part sets it (weight_decay.py).
    weight_decay = None
    # Also reported as the largest single update's ('Q_loss-max').
    PEAK_KEYS = ('Q_loss',)

    def __init__(self,
                 training_environment,
                 policy,
                 Qs,
                 pool,
                 policy_lr=3e-4,
                 Q_lr=3e-4,
                 discount=0.99,
                 reward_scale=1.0,
                 tau=5e-3,
                 target_update_interval=1,
                 jit_compile=False,
                 augmentation_pad=None,
                 adam_beta1=0.9, adam_epsilon=1e-7,
                 reward_normalization=None,
                 lr_decay_to=None,
                 precision='float32',
                 seed=None,
                 **kwargs):
        """``augmentation_pad``: pixel agents' random-shift augmentation
        (``random_shift``) of observations and next observations, by this
        many pixels; None or 0 for none. ``reward_normalization``:
        SimbaV2's scaling of rewards by the spread of the discounted return
        (reward_normalization.py), ``{"g_max": 5.0}``; it multiplies
        ``reward_scale``. None for none. ``lr_decay_to``: SimbaV2's linear
        decay of every learning rate to this fraction of its initial value
        over the run's updates (learning_rate_decay.py); None for none.
        ``jit_compile``: the fused update compiled with XLA; 'auto' where
        this machine runs it faster (compilation.py). ``precision``:
        'float32', or 'bfloat16' mixed precision (precision.py), which the
        policy and Q-functions must have been built with. ``adam_epsilon``:
        Keras's 1e-7, or PyTorch's and optax's 1e-8 (it slows the steps of
        parameters whose gradients are of its order)."""
        super().__init__(pool=pool, policy=policy,
                         training_environment=training_environment,
                         **kwargs)
        self._Qs = tuple(Qs)
        algorithm = type(self).__name__
        self._precision = check_networks(precision, {
            'policy': self._policy.model,
            **{f'Q{i}': Q.model for i, Q in enumerate(self._Qs)},
            **({} if self._Qs[0].encoder is None
               else {'encoder': self._Qs[0].encoder.model})}, algorithm)
        self._critic_head = critic_head(self._Qs, algorithm,
                                        self.categorical_critics)
        self._Q_targets = target_copies(self._Qs, algorithm,
                                        self.target_networks)
        self._Q_variables = unique_variables(
            v for Q in self._Qs for v in Q.trainable_variables)
        self._Q_target_variables = unique_variables(
            v for Q in self._Q_targets for v in Q.trainable_variables)
        # (source, target) variable pairs of the target update; an algorithm
        # with a target policy (TD3) adds its pairs.
        self._target_variable_pairs = list(zip(self._Q_variables,
                                               self._Q_target_variables))
        # 'auto': from the episode length (discounts.py).
        self._discount = discount = resolve_discount(discount,
                                                     self._max_path_length)
        # What the targets multiply rewards by (``.value``: a number, or a
        # variable the compiled update reads).
        self._rewards = RewardScale(reward_scale, discount,
                                    reward_normalization)
        self._tau = float(tau)
        self._target_update_interval = int(target_update_interval)
        self._train_step_counter = tf.Variable(0, dtype=tf.int64,
                                               name='train_steps')
        self._learning_rate = learning_rate_schedule(
            lr_decay_to,
            run_updates(self._n_epochs, self._epoch_length,
                        self._n_train_repeat, self._train_every_n_steps),
            self._train_step_counter)
        self._optimizers, self._adam_epsilon = {}, float(adam_epsilon)
        self._Q_optimizer = self._make_optimizer(
            'Q', Q_lr, self._Q_variables, beta_1=adam_beta1,
            weight_decay=self.weight_decay)
        self._policy_optimizer = self._make_optimizer(
            'policy', policy_lr, self._policy.trainable_variables,
            beta_1=adam_beta1, weight_decay=self.weight_decay)
        self._random_generator = tf.random.Generator.from_seed(
            0 if seed is None else int(seed))
        self._augment = batch_augmentation(
            augmentation_pad, self._Qs[0].encoder, self._random_generator)
        # autograph=False: the update's few branches on tensors are written
        # as tf.cond and its loop as tf.while_loop, so tracing need not
        # convert ~100 functions' source first (about a second of CPU in
        # every process that trains, half its start-up after TensorFlow's
        # import).
        self._fused_updates = tf.function(
            self._fused_updates_impl,
            input_signature=[batch_signature(pool)],
            jit_compile=resolve_jit_compile(jit_compile, dropout=any(
                getattr(Q, 'dropout_rate', 0) for Q in self._Qs),
                precision=self._precision),
            reduce_retracing=True, autograph=False)

    def _make_optimizer(self, name, learning_rate, variables, beta_1=0.9,
                        weight_decay=None):
        """An Adam optimizer over ``variables``, built now (slots exist
        before the first update) and checkpointed as '<name>_optimizer';
        with ``weight_decay`` AdamW's (Keras's Adam decays each variable by
        learning_rate * weight_decay * variable before its step)."""
        optimizer = keras.optimizers.Adam(
            learning_rate=self._learning_rate(learning_rate), beta_1=beta_1,
            epsilon=self._adam_epsilon, weight_decay=weight_decay)
        optimizer.build(list(variables))
        self._optimizers[f'{name}_optimizer'] = optimizer
        return optimizer

    # Subclass interface --------------------------------------------------

    def _update(self, batch):
        """One update on ``batch`` (tensors (B, ...)); returns its
        diagnostics, {name: scalar tensor}."""
        raise NotImplementedError

    @property
    def training_peak_keys(self):
        return tuple(f'{key}-max' for key in self.PEAK_KEYS)

    @functools.cached_property
    def training_diagnostic_keys(self):
        """The names of the diagnostics ``_update`` returns, in its order:
        read off a trace of one update on a minibatch of the pool's shapes
        (a trace runs nothing: no variable changes), once."""
        spec = tf.nest.map_structure(
            lambda batches: tf.TensorSpec(batches.shape[1:], batches.dtype),
            batch_signature(self._pool))
        update = tf.function(self._update_with_head_diagnostics,
                             input_signature=[spec], autograph=False)
        return tuple(update.get_concrete_function().structured_outputs)

    def _update_with_head_diagnostics(self, batch):
        """``_update``'s diagnostics and the critic head's of the targets
        it formed (critic_heads.py: a categorical head's clipped share)."""
        self._critic_head.diagnostics()  # (nothing left of another trace)
        diagnostics = self._update(batch)
        return {**diagnostics, **self._critic_head.diagnostics()}

    # Shared pieces of updates ----------------------------------------------

    @staticmethod
    def _mean(values, batch):
        """The mean over a minibatch. Sequence minibatches (recurrent agents)
        carry a 'mask' (B, T, 1): steps outside it (burn-in, and steps after
        the sequence left its episode) count for nothing, in the value and
        in every gradient."""
        mask = batch.get('mask')
        if mask is None:
            return tf.reduce_mean(values)
        return (tf.reduce_sum(values * mask)
                / tf.maximum(tf.reduce_sum(mask), 1.0))

    def _min_Q(self, Qs, observations, actions):
        """min_i Q_i(s, a), (B, 1); the single Q with one Q-function. The
        observations' network inputs (a pixel agent's encoder pass) are
        computed once for all of ``Qs``."""
        inputs = Qs[0].network_inputs(observations)
        return tf.reduce_min(tf.stack(
            [self._Q_estimate(Q.head(inputs, actions)) for Q in Qs], axis=0),
            axis=0)

    def _Q_estimate(self, outputs):
        """Q(s, a) from a critic's outputs (the critic head's reading)."""
        return self._critic_head.estimate(outputs)

    def _target_values(self, batch, next_actions, next_entropy=0.0):
        """The critics' targets from the target critics at (s', a'),
        ``next_entropy`` (SAC's alpha * log pi(a'|s'), (B, 1)) subtracted,
        as the critic head forms them (critic_heads.py): y (B, 1) from
        min_i Q'_i, or a categorical critic's target distribution."""
        inputs = self._Q_targets[0].network_inputs(batch['next_observations'])
        return self._critic_head.targets(
            [Q.head(inputs, next_actions) for Q in self._Q_targets],
            next_entropy, functools.partial(self._bellman_targets, batch))

    def _bellman_targets(self, batch, next_values):
        """y = reward_scale * r + discount * (1 - d) * V(s'); from an
        n-step pool (replay_pools/n_step_replay_pool.py: rewards (B, n),
        zero after the k steps kept, and 'n_steps' k):
        y = reward_scale * sum_j discount^j r_j + discount^k (1 - d) V(s')."""
        rewards, discount = batch['rewards'], self._discount
        if 'n_steps' in batch:
            powers = discount ** tf.range(tf.shape(rewards)[-1],
                                          dtype=rewards.dtype)
            rewards = tf.reduce_sum(rewards * powers, axis=-1, keepdims=True)
            discount = discount ** batch['n_steps']
        return tf.stop_gradient(
            self._rewards.value * rewards
            + discount * (1.0 - batch['terminals']) * next_values)

    def _Q_loss(self, Q_values, y, batch):
        """One Q-function's loss towards its targets ``y``, as the critic
        head forms it (0.5 * mean((Q(s, a) - y)^2), or a categorical
        critic's cross-entropy). A quantile critic (TQC) has its own."""
        return self._critic_head.loss(
            Q_values, y, functools.partial(self._mean, batch=batch))

    def _update_Qs_towards(self, batch, y):
        """One gradient step of L_Q = sum_i L(Q_i(s, a), y) (``_Q_loss``).

        Returns (L_Q, mean Q(s, a), observations for the policy's step).
        The latter are, for a pixel agent, the features the encoder computed
        here (before this step changed it, without gradient) as encoded
        observations (``ConvEncoder.encoded``): the policy's step reads them
        instead of running the encoder on the images twice more (DrQ
        encodes them again after the critic's step; the difference is one
        step of the encoder). Otherwise they are the minibatch's own."""
        with tf.GradientTape() as tape:
            inputs = self._Qs[0].network_inputs(batch['observations'])
            Q_values = [Q.head(inputs, batch['actions']) for Q in self._Qs]
            Q_loss = tf.add_n([self._Q_loss(Q_value, y, batch)
                               for Q_value in Q_values])
        Q_mean = self._apply_Q_step(tape, Q_loss, Q_values, batch)
        encoder = self._Qs[0].encoder
        policy_observations = (
            batch['observations'] if encoder is None
            else encoder.encoded(tf.stop_gradient(inputs)))
        return Q_loss, Q_mean, policy_observations

    def _apply_Q_step(self, tape, Q_loss, Q_values, batch):
        """The critics' gradient step on ``Q_loss`` (computed under
        ``tape``); returns the mean of their ``Q_values``, (B, ...) each."""
        gradients = tape.gradient(Q_loss, self._Q_variables)
        self._Q_optimizer.apply_gradients(zip(gradients, self._Q_variables))
        return tf.add_n([self._mean(self._Q_estimate(Q_value), batch)
                         for Q_value in Q_values]) / len(Q_values)

    # The compiled loop -----------------------------------------------------

    @functools.cached_property
    def observation_statistics(self):
        """The running observation normalizations (SimBa's) of every
        network a checkpoint holds: policy, critics and target copies
        (read once the subclass has added its networks)."""
        return ObservationStatistics(self.tf_saveables().values())

    def _counted_update(self, batch):
        # Before the update, so all networks normalize alike.
        self.observation_statistics.update(batch['observations'])
        diagnostics = self._update_with_head_diagnostics(self._augment(batch))
        self._train_step_counter.assign_add(1)
        every_step(self._train_step_counter, self._target_update_interval,
                   lambda: update_targets(self._target_variable_pairs,
                                          self._tau))
        return diagnostics

    def _fused_updates_impl(self, batches):
        """Runs one update per leading index of ``batches``; returns the
        mean of each diagnostic over them (and the peaks), {name: scalar},
        and the values the policy's numpy copy is then loaded from."""
        n_updates = tf.shape(batches['actions'])[0]
        # The loop carries the sums and peaks, so they start with every name.
        sums = {key: tf.zeros(()) for key in self.training_diagnostic_keys}
        peaks = {key: tf.fill((), float('-inf')) for key in self.PEAK_KEYS}

        def update(i, sums, peaks):
            diagnostics = {key: tf.cast(value, tf.float32) for key, value in
                           self._counted_update(tf.nest.map_structure(
                               lambda x: x[i], batches)).items()}
            return (i + 1, {key: total + diagnostics[key]
                            for key, total in sums.items()},
                    {key: tf.maximum(peak, diagnostics[key])
                     for key, peak in peaks.items()})

        _, sums, peaks = tf.while_loop(
            lambda i, *_: i < n_updates, update,
            (tf.constant(0), sums, peaks), maximum_iterations=n_updates)
        means = {key: total / tf.cast(n_updates, tf.float32)
                 for key, total in sums.items()}
        # Read after the loop (automatic control dependencies order them).
        return {'diagnostics': {**means, **{f'{key}-max': peak
                                            for key, peak in peaks.items()}},
                'acting_weights': [variable.read_value() for variable
                                   in self._policy.acting_variables()]}

    def get_diagnostics(self, batch):
        return self._rewards.diagnostics()

    def _observe_collected(self, collected):
        self._rewards.observe(collected)

    def _do_training(self, batches):
        self._rewards.refresh()
        outputs = self._fused_updates(batches)
        self._policy.set_acting_weights(
            [value.numpy() for value in outputs['acting_weights']])
        return {key: float(value)
                for key, value in outputs['diagnostics'].items()}

    # State -------------------------------------------------------------------

    def get_state(self):
        return {**super().get_state(), **self._rewards.get_state()}

    def set_state(self, state):
        super().set_state(state)
        self._rewards.set_state(state)

    @property
    def reward_scale(self):
        """What rewards are multiplied by in the critics' targets now."""
        return float(self._rewards)

    @property
    def Qs(self):
        return self._Qs

    @property
    def Q_targets(self):
        return self._Q_targets

    def tf_saveables(self):
        """Every TensorFlow object a checkpoint needs to resume exactly."""
        saveables = {
            'policy': self._policy.model,
            **self._optimizers,
            'random_generator': self._random_generator,
            'train_step_counter': self._train_step_counter,
        }
        for i, Q in enumerate(self._Qs):
            saveables[f'Q{i}'] = Q.model
        for i, Q_target in enumerate(self._Q_targets):
            saveables[f'Q{i}_target'] = Q_target.model
        if self._Qs[0].encoder is not None:
            saveables['encoder'] = self._Qs[0].encoder.model
        if self._Q_targets and self._Q_targets[0].encoder is not None:
            saveables['encoder_target'] = self._Q_targets[0].encoder.model
        return saveables
