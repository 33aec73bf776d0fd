"""The epoch loop shared by the off-policy algorithms.

``train()`` is a generator: each ``next()`` runs one epoch (collect ->
add to pool -> train -> evaluate) and yields a nested diagnostics dict.

Update schedule. ``n_train_repeat`` gradient updates are taken for every
``train_every_n_steps`` environment steps. For speed the loop collects
``fused_steps`` environment steps at a time and then runs all the updates
those steps are owed in one compiled call (see ``_do_training``). The
update-to-data ratio is unchanged; the policy that acts is at most
``fused_steps`` steps behind the one that would act with per-step updates
(the "policy lag"). ``fused_steps=1`` gives the classic interleaving.
"""

import time

import numpy as np

from softlearning.samplers import parallel_rollouts, path_statistics, rollouts
from softlearning.utils import non_finite

# Without ``eval_seed``, evaluation episodes run on sampler actors start from
# seeds this far up, new ones every epoch (training episodes use the actors'
# own seeds).
EVALUATION_SEED_OFFSET = 2 ** 20


class Timer:
    """Accumulates wall-clock seconds per named phase of an epoch."""

    PHASES = ('sample', 'train', 'evaluation', 'diagnostics')

    def __init__(self):
        self.seconds = dict.fromkeys(self.PHASES, 0.0)

    def __call__(self, name):
        timer = self

        class _Phase:
            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                timer.seconds[name] += time.perf_counter() - self.start
        return _Phase()


class RLAlgorithm:

    def __init__(self,
                 pool,
                 sampler,
                 policy,
                 training_environment,
                 evaluation_environment=None,
                 evaluation_environment_copies=(),
                 initial_exploration_policy=None,
                 n_epochs=1000,
                 epoch_length=1000,
                 n_train_repeat=1,
                 train_every_n_steps=1,
                 fused_steps=1,
                 batch_size=256,
                 min_pool_size=None,
                 n_initial_exploration_steps=0,
                 eval_n_episodes=1,
                 eval_deterministic=True,
                 eval_seed=None,
                 max_path_length=1000,
                 training_seconds=None,
                 iteration_callbacks=()):
        if fused_steps % train_every_n_steps:
            raise ValueError(
                f"fused_steps ({fused_steps}) must be a multiple of "
                f"train_every_n_steps ({train_every_n_steps}).")
        self._pool = pool
        self._sampler = sampler
        self._policy = policy
        self._training_environment = training_environment
        self._evaluation_environment = evaluation_environment
        # Environments built like the evaluation environment, given only
        # with ``eval_seed`` (trial/build.py): evaluation episodes then run
        # as one vector over them.
        self._evaluation_environment_copies = list(
            evaluation_environment_copies)
        self._initial_exploration_policy = initial_exploration_policy
        self._n_epochs = int(n_epochs)
        self._epoch_length = int(epoch_length)
        self._n_train_repeat = int(n_train_repeat)
        self._train_every_n_steps = int(train_every_n_steps)
        self._fused_steps = int(fused_steps)
        self._batch_size = int(batch_size)
        self._min_pool_size = int(min_pool_size or batch_size)
        self._n_initial_exploration_steps = int(n_initial_exploration_steps)
        self._eval_n_episodes = int(eval_n_episodes)
        self._eval_deterministic = eval_deterministic
        # Episode i of every evaluation resets with seed eval_seed + i: the
        # same start states at every epoch, for every trial and every
        # library that follows the protocol (benchmarks). None: evaluation
        # episodes go on from the environment's own random state.
        self._eval_seed = None if eval_seed is None else int(eval_seed)
        self._max_path_length = int(max_path_length)
        self._iteration_callbacks = list(iteration_callbacks)
        # A budget of wall-clock seconds spent collecting and training
        # (evaluations and checkpoints not counted): the run ends once it is
        # spent, mid-epoch if need be, with that epoch's evaluation
        # (benchmarks' per-hour suites). None: the epochs alone decide.
        if training_seconds is not None and not training_seconds > 0:
            raise ValueError(f"training_seconds must be positive, not "
                             f"{training_seconds!r}.")
        self._training_seconds = (None if training_seconds is None
                                  else float(training_seconds))

        # Counters; part of the algorithm's checkpointable state.
        self._epoch = 0
        self._total_timestep = 0
        self._num_train_steps = 0
        self._training_seconds_spent = 0.0

    # Subclass interface ----------------------------------------------------

    # Names of the floats ``_do_training`` returns; reported as NaN in epochs
    # without updates so that every epoch's result has the same columns.
    training_diagnostic_keys = ()
    # Names ``_do_training`` also returns whose epoch value is the largest
    # over the epoch's calls, not their mean.
    training_peak_keys = ()

    def _do_training(self, batches):
        """Runs ``len(batches)`` gradient updates; returns a dict of floats."""
        raise NotImplementedError

    def get_diagnostics(self, batch):
        """Algorithm-specific diagnostics on a pool batch (numpy)."""
        return {}

    def _observe_collected(self, collected):
        """Sees what each collect call added (``Sampler.sample``'s
        rewards, episode ids and steps), before the updates it owes."""

    # The loop ---------------------------------------------------------------

    def get_state(self):
        """Counters a checkpoint needs to continue where training stopped."""
        return {'epoch': self._epoch,
                'total_timestep': self._total_timestep,
                'num_train_steps': self._num_train_steps,
                'training_seconds': self._training_seconds_spent}

    def set_state(self, state):
        self._epoch = state['epoch']
        self._total_timestep = state['total_timestep']
        self._num_train_steps = state['num_train_steps']
        # (Checkpoints written before the budget existed lack it.)
        self._training_seconds_spent = state.get('training_seconds', 0.0)

    @property
    def epoch(self):
        return self._epoch

    @property
    def total_timestep(self):
        return self._total_timestep

    @property
    def num_train_steps(self):
        return self._num_train_steps

    @property
    def budget_spent(self):
        """Whether the ``training_seconds`` budget is spent."""
        return (self._training_seconds is not None
                and self._training_seconds_spent >= self._training_seconds)

    def _updates_owed(self, start_timestep, n_steps):
        """Updates for env timesteps start+1 .. start+n: ``n_train_repeat``
        at every multiple of ``train_every_n_steps``."""
        every = self._train_every_n_steps
        multiples = ((start_timestep + n_steps) // every
                     - start_timestep // every)
        return multiples * self._n_train_repeat

    def _ready_to_train(self, start_timestep):
        """Updates begin with the first step after the warm-up (collect calls
        never straddle its end) once the pool holds a batch."""
        return (self._pool.size >= self._min_pool_size
                and start_timestep >= self._n_initial_exploration_steps)

    def _collect_and_train(self, n_steps, timer, training_stats):
        exploring = (self._total_timestep < self._n_initial_exploration_steps
                     and self._initial_exploration_policy is not None)
        policy = (self._initial_exploration_policy if exploring
                  else self._policy)
        start = self._total_timestep
        with timer('sample'):
            try:
                collected = self._sampler.sample(n_steps, policy)
            except non_finite.NonFiniteError as error:
                raise non_finite.NonFiniteError(
                    f"{non_finite.message(error)} (Training's environment "
                    f"steps {start + 1}-{start + n_steps}, epoch "
                    f"{self._epoch + 1}.)") from None
            self._observe_collected(collected)
        self._total_timestep += n_steps
        if not self._ready_to_train(start):
            return
        n_updates = self._updates_owed(start, n_steps)
        if n_updates == 0:
            return
        with timer('train'):
            batches = self._pool.random_batches(n_updates, self._batch_size)
            stats = self._do_training(batches)
        non_finite.check_losses(
            stats, f'in updates {self._num_train_steps + 1}-'
                   f'{self._num_train_steps + n_updates} (environment step '
                   f'{self._total_timestep}, epoch {self._epoch + 1})')
        self._num_train_steps += n_updates
        for key, value in stats.items():
            training_stats.setdefault(key, []).append((value, n_updates))

    def _steps_until_boundary(self, steps_done):
        """Steps for the next collect call: at most ``fused_steps``, never
        past the end of the epoch or of the warm-up phase."""
        n = min(self._fused_steps, self._epoch_length - steps_done)
        if self._total_timestep < self._n_initial_exploration_steps:
            n = min(n, self._n_initial_exploration_steps - self._total_timestep)
        return n

    def _run_epoch(self):
        timer = Timer()
        training_stats = {}
        epoch_start = time.perf_counter()
        # A callback may return diagnostics (e.g. the curriculum's values).
        callback_diagnostics = {}
        for callback in self._iteration_callbacks:
            callback_diagnostics.update(callback(self, self._epoch) or {})
        self._sampler.start_epoch()
        steps_done = 0
        while steps_done < self._epoch_length and not self.budget_spent:
            n_steps = self._steps_until_boundary(steps_done)
            start = time.perf_counter()
            self._collect_and_train(n_steps, timer, training_stats)
            self._training_seconds_spent += time.perf_counter() - start
            steps_done += n_steps

        with timer('evaluation'):
            try:
                evaluation = self._evaluate()
            except non_finite.NonFiniteError as error:
                raise non_finite.NonFiniteError(
                    f"{non_finite.message(error)} (Evaluation after epoch "
                    f"{self._epoch + 1}.)") from None
        with timer('diagnostics'):
            diagnostics = self._diagnostics(training_stats, evaluation)
        diagnostics.update(callback_diagnostics)
        self._epoch += 1
        timer.seconds['epoch'] = time.perf_counter() - epoch_start
        diagnostics['times'] = timer.seconds
        diagnostics['timesteps_per_second'] = (
            steps_done / timer.seconds['epoch'])
        # Seconds spent collecting and training since the run began: the
        # axis of return against training time.
        diagnostics['training_seconds'] = self._training_seconds_spent
        diagnostics['epoch'] = self._epoch
        diagnostics['total_timestep'] = self._total_timestep
        diagnostics['num_train_steps'] = self._num_train_steps
        return diagnostics

    def train(self):
        """Generator over epochs, starting from the current epoch counter
        (so a restored algorithm continues where it stopped)."""
        while self._epoch < self._n_epochs and not self.budget_spent:
            yield self._run_epoch()

    # Evaluation and diagnostics ------------------------------------------

    def _evaluate(self):
        if self._eval_n_episodes < 1:
            return {}
        if self._sampler.evaluates_on_actors:
            # Pixel environments render in the sampler actors only; there
            # every episode starts from a seed (new ones every epoch
            # without eval_seed).
            first_seed = (self._eval_seed if self._eval_seed is not None
                          else EVALUATION_SEED_OFFSET
                          + self._epoch * self._eval_n_episodes)
            returns, lengths, successes = self._sampler.evaluate(
                self._eval_n_episodes, first_seed=first_seed,
                deterministic=self._eval_deterministic,
                # The physical parameters a curriculum gave evaluation.
                physical_parameters=(
                    None if self._evaluation_environment is None
                    else self._evaluation_environment
                    .get_physical_parameters()))
            return path_statistics(returns, lengths, successes)
        if self._evaluation_environment is None:
            return {}
        with self._policy.set_deterministic(self._eval_deterministic):
            if self._evaluation_environment_copies:
                paths = parallel_rollouts(
                    self._evaluation_environments(), self._policy,
                    self._max_path_length,
                    self._eval_seed + np.arange(self._eval_n_episodes))
            else:
                paths = rollouts(self._eval_n_episodes,
                                 self._evaluation_environment, self._policy,
                                 self._max_path_length, seed=self._eval_seed)
        # 'success-rate' too where the environment reports successes
        # (goal-conditioned tasks).
        return path_statistics([p['return'] for p in paths],
                               [p['length'] for p in paths],
                               [p['success'] for p in paths])

    def _evaluation_environments(self):
        """The evaluation environment and its copies, the copies with the
        physical parameters a curriculum gave the first."""
        values = self._evaluation_environment.get_physical_parameters()
        if values:
            for environment in self._evaluation_environment_copies:
                environment.set_physical_parameters(values)
        return [self._evaluation_environment,
                *self._evaluation_environment_copies]

    def _diagnostics(self, training_stats, evaluation):
        diagnostics = {
            'training': self._sampler.get_diagnostics(),
            'evaluation': evaluation,
        }
        # Update statistics: means over this epoch's updates, weighted by
        # how many updates each fused call ran.
        for key in self.training_diagnostic_keys:
            if key not in training_stats:
                diagnostics[key] = float('nan')
                continue
            values = np.array(training_stats[key], dtype=np.float64)
            diagnostics[key] = float(
                np.sum(values[:, 0] * values[:, 1]) / np.sum(values[:, 1]))
        for key in self.training_peak_keys:
            diagnostics[key] = max((value for value, _ in
                                    training_stats.get(key, ())),
                                   default=float('nan'))
        if self._pool.size > 0:
            batch = self._pool.random_batch(self._batch_size)
            diagnostics['policy'] = self._policy.get_diagnostics(
                batch['observations'])
            diagnostics.update(self.get_diagnostics(batch))
        diagnostics['replay_pool'] = {'size': self._pool.size}
        return diagnostics
