"""One trial as a Tune Trainable: ``setup`` builds every component from
the variant (build.py), ``step`` runs one epoch of the algorithm's training
loop and returns its diagnostics (the command prints them: console.py),
and ``save_checkpoint`` / ``load_checkpoint`` hold everything needed to
continue exactly where it stopped (the format:
softlearning/utils/checkpoints.py).

TensorFlow is imported when a trial starts, not when this module is: the
command that starts an experiment never imports it.
"""

import contextlib
import logging
import os

import numpy as np
from ray import tune

from softlearning.environments.rendering import keep_opengl_out_of_learner
from softlearning.utils import checkpoints
from softlearning.utils.random import set_seed
from softlearning.utils.machine import cpu_model
from softlearning.utils.tensorflow_logging import import_tensorflow

from softlearning.experiments.trial.build import build_components
from softlearning.experiments.config.config_keys import (
    with_constructor_defaults)
from softlearning.experiments.errors import TrialBuildError

# A trial imports TensorFlow, so it must not load OSMesa (see rendering.py):
# set up before TensorFlow or any simulator is imported.
keep_opengl_out_of_learner()


def set_tensorflow_threads(num_threads):
    """Caps TensorFlow's thread pools at the trial's CPUs. They can only be
    sized before TensorFlow's first op; a later trial in the same process
    (debug runs, tests) keeps the first size."""
    tf = import_tensorflow()
    if not num_threads:
        return
    try:
        tf.config.threading.set_intra_op_parallelism_threads(num_threads)
        tf.config.threading.set_inter_op_parallelism_threads(num_threads)
    except RuntimeError:
        pass


def remove_autograph_files():
    """Removes the modules TensorFlow's autograph wrote to the temporary
    folder for this process's tf.functions. Autograph removes them when
    Python exits, but Ray ends a trial's process without that (and Tune may
    end a cached one without calling ``cleanup``), so every run would leave
    dozens in /tmp. They are needed only while being imported: called after
    every epoch, and at the end."""
    import sys
    for name, module in list(sys.modules.items()):
        if name.startswith('__autograph_generated_file'):
            path = getattr(module, '__file__', None)
            if path:
                try:
                    os.remove(path)
                except OSError:
                    pass
                # Removed once: later epochs skip it. Deleted, not set to
                # None: inspect.getmodule (pydantic, so importing wandb)
                # fails on a module whose __file__ is None.
                del module.__file__


def optimizers(algorithm):
    """{name: optimizer} of the algorithm's checkpointed optimizers."""
    import tf_keras as keras
    return {name: saveable
            for name, saveable in algorithm.tf_saveables().items()
            if isinstance(saveable, keras.optimizers.Optimizer)}


def learning_rates(algorithm):
    """{optimizer name: learning rate in effect}, for the results."""
    return {name: float(optimizer.learning_rate)
            for name, optimizer in optimizers(algorithm).items()}


def keep_learning_rates(algorithm, restore):
    """Runs ``restore()`` (a checkpoint read), then puts back the learning
    rates the optimizers had before it.

    A checkpoint restores an optimizer's state (its step count and moment
    estimates) and also its learning-rate variable. The learning rates come
    from the variant instead: a trial that starts from another trial's
    checkpoint with a new learning rate (PBT's exploit, --restore with
    --config ..._lr=...) trains with the new one."""
    tf = import_tensorflow()
    before = {name: float(optimizer.learning_rate)
              for name, optimizer in optimizers(algorithm).items()
              if isinstance(optimizer.learning_rate, tf.Variable)}
    restore()
    for name, optimizer in optimizers(algorithm).items():
        if name in before:
            optimizer.learning_rate.assign(before[name])


def check_restorable(checkpoint_dir, variant):
    """Raises CheckpointError when ``variant`` cannot continue from the
    checkpoint (another environment or network). Both variants are compared
    with their constructors' defaults filled in, so a checkpoint whose
    variant left them out (written before variants recorded them) compares
    equal to one that states them."""
    checkpoints.check_compatible(
        checkpoint_dir,
        with_constructor_defaults(checkpoints.read_variant(checkpoint_dir)),
        with_constructor_defaults(variant))


@contextlib.contextmanager
def build_errors_cannot_heal(errors=Exception):
    """``errors`` raised in the block become a TrialBuildError (one line):
    Tune does not retry it. A lost process or node (Ray's errors) and
    memory can heal, and stay as they are."""
    import ray.exceptions
    try:
        yield
    except (MemoryError, ray.exceptions.RayError):
        raise
    except errors as error:
        line = str(error).strip().splitlines()
        raise TrialBuildError(
            f"{type(error).__name__}: {line[0] if line else ''}") from error


def build_outside_tune(trainable_class, variant):
    """A trial's Trainable built outside Tune (debug mode, the throughput
    benchmarks, tests). Ray gives such a Trainable a dated folder of its
    own under ~/ray_results that nothing writes to (debug mode writes to
    the trial's folder); it is removed, so that these runs do not leave
    empty folders among the user's results."""
    trainable = trainable_class(config=variant)
    with contextlib.suppress(OSError):  # not empty, or gone: leave it
        os.rmdir(trainable.logdir)
    return trainable


# Notes Tune writes from each trial's process: the time setup took, each
# checkpoint's path. The trial's own lines say what matters.
def quiet_trial_logs():
    from softlearning.utils.ray_compat import TRIAL_LOGGERS
    for name in TRIAL_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


class ExperimentRunner(tune.Trainable):
    """One trial: builds every component from the variant in ``setup`` and
    runs one epoch per ``step``."""

    def setup(self, config):
        quiet_trial_logs()
        set_tensorflow_threads(config['run_params'].get('tf_num_threads'))
        self._start_or_keep_error(config)

    def _start_or_keep_error(self, variant):
        """A trial that cannot be built fails at its first step, with one
        line: raised here, Ray would print its traceback from the trial's
        process too, and Tune call it a crash."""
        self._build_error = None
        try:
            with build_errors_cannot_heal():
                self._start(variant)
        except TrialBuildError as error:
            self._build_error = error

    def reset_config(self, new_config):
        """Tune reuses this process for another trial, or for this trial
        with a new config (PBT): everything is built anew from it."""
        self._close_sampler()
        self._start_or_keep_error(new_config)
        return True

    def _close_sampler(self):
        sampler = getattr(self, 'sampler', None)
        if sampler is not None:
            sampler.close()

    def _start(self, variant):
        self._variant = variant
        run_params = variant['run_params']
        self._seed = int(run_params['seed'])
        set_seed(self._seed)
        tf = import_tensorflow()
        tf.config.run_functions_eagerly(bool(run_params.get('run_eagerly')))
        if run_params.get('deterministic_ops'):
            # Process-wide and for good: a later trial in this process
            # keeps it (Tune reuses actors only for the same experiment).
            tf.config.experimental.enable_op_determinism()
        self._build(variant)
        if run_params.get('restore'):
            # A new trial that starts from another trial's checkpoint.
            self.load_checkpoint(checkpoints.resolve_checkpoint(
                run_params['restore']), check_variant=True)

    def _build(self, variant):
        components = build_components(variant, self._seed)
        for field in ('training_environment', 'evaluation_environment',
                      'policy', 'initial_exploration_policy', 'Qs', 'pool',
                      'sampler', 'curriculum', 'algorithm'):
            setattr(self, field, getattr(components, field))
        config = variant['algorithm_params']['config']
        self._n_epochs = config['n_epochs']
        self._train_generator = None
        # Replay pool pieces already saved (names relative to
        # ``_pool_pieces_dir``, the trial folder), see save_checkpoint.
        self._pool_pieces, self._pool_pieces_dir = [], None
        self._pool_saved_total = 0

    def step(self):
        if self._build_error is not None:
            raise self._build_error
        if self._train_generator is None:
            self._train_generator = self.algorithm.train()
        diagnostics = next(self._train_generator, None)
        if diagnostics is None:
            # (Checked before Ray starts where the checkpoints are at hand.)
            raise TrialBuildError(
                f"Nothing left to train: the trial is at epoch "
                f"{self.algorithm.epoch} and trains to epoch "
                f"{self._n_epochs} (n_epochs); give more epochs.")
        diagnostics['learning_rates'] = learning_rates(self.algorithm)
        # Tune's TensorBoard logger steps its curves by timesteps_total: the
        # environment steps, as learning curves are read.
        diagnostics['timesteps_total'] = diagnostics['total_timestep']
        # What this epoch's timings were measured on (a resumed run may
        # go on on another machine).
        diagnostics['cpu'] = cpu_model()
        import ray
        if ray.is_initialized():
            # Which node of a cluster the trial ran on.
            diagnostics['node_id'] = ray.get_runtime_context().get_node_id()
        diagnostics['done'] = (diagnostics['epoch'] >= self._n_epochs
                               or self.algorithm.budget_spent)
        remove_autograph_files()
        return diagnostics

    def cleanup(self):
        self._close_sampler()
        remove_autograph_files()

    # Checkpoints ----------------------------------------------------------
    # The format (atomic files, completion marker, incremental replay pool
    # pieces) is described in softlearning/utils/checkpoints.py.

    def _checkpoint_replay_pool(self):
        return bool(self._variant['run_params'].get('checkpoint_replay_pool'))

    def _trial_dir(self, checkpoint_dir):
        """Where replay pool pieces go. Under Tune, ``checkpoint_dir`` is a
        temporary folder copied into the trial folder afterwards."""
        storage = getattr(self, '_storage', None)
        if storage is not None:
            return storage.trial_fs_path
        return os.path.dirname(os.path.abspath(checkpoint_dir))

    def _components_state(self):
        """Picklable state of every component outside TensorFlow."""
        state = {
            'algorithm': self.algorithm.get_state(),
            'sampler': self.sampler.get_state(),
            'pool': self.pool.get_state(),
            'policy_np_random': self.policy.get_np_random_state(),
            'exploration_policy_np_random': (
                self.initial_exploration_policy.get_np_random_state()),
            'evaluation_environment': None,
            'curriculum': self._curriculum_state(),
        }
        if self.evaluation_environment is not None:
            state['evaluation_environment'] = (
                self.evaluation_environment.get_episode_state())
        return state

    def _save_pool_piece(self, checkpoint_dir):
        trial_dir = os.path.realpath(self._trial_dir(checkpoint_dir))
        if self._pool_pieces_dir != trial_dir:
            # Pieces loaded from another trial's folder: start this trial's
            # chain with one piece holding the whole pool.
            self._pool_pieces, self._pool_pieces_dir = [], trial_dir
            self._pool_saved_total = self.pool.total_samples - self.pool.size
        piece = self.pool.experience_since(self._pool_saved_total)
        self._pool_pieces.append(checkpoints.write_pool_piece(trial_dir, piece))
        self._pool_saved_total = self.pool.total_samples

    def save_checkpoint(self, checkpoint_dir):
        pool_pieces = []
        if self._checkpoint_replay_pool():
            self._save_pool_piece(checkpoint_dir)
            pool_pieces = self._pool_pieces
        tf = import_tensorflow()
        checkpoint = tf.train.Checkpoint(**self.algorithm.tf_saveables())
        checkpoint.write(os.path.join(checkpoint_dir,
                                      checkpoints.TF_CHECKPOINT_PREFIX))
        checkpoints.atomic_pickle(
            os.path.join(checkpoint_dir, checkpoints.STATE_FILE),
            self._components_state())
        checkpoints.atomic_pickle(
            os.path.join(checkpoint_dir, checkpoints.POLICY_WEIGHTS_FILE),
            [np.asarray(w) for w in self.policy.get_weights()])
        checkpoints.atomic_json(
            os.path.join(checkpoint_dir, checkpoints.VARIANT_FILE),
            self._variant)
        checkpoints.write_manifest(checkpoint_dir, pool_pieces, {
            'epoch': self.algorithm.epoch,
            'total_timestep': self.algorithm.total_timestep})
        return checkpoint_dir

    def load_checkpoint(self, checkpoint_dir, check_variant=False):
        if getattr(self, '_build_error', None) is not None:
            raise self._build_error
        with build_errors_cannot_heal(checkpoints.CheckpointError):
            manifest = checkpoints.read_manifest(checkpoint_dir)
            if check_variant:
                check_restorable(checkpoint_dir, self._variant)
            state = checkpoints.read_state(checkpoint_dir)
        if self.pool.total_samples or self.algorithm.epoch:
            self.sampler.close()
            self._build(self._variant)  # restore into fresh components
        tf = import_tensorflow()
        checkpoint = tf.train.Checkpoint(**self.algorithm.tf_saveables())
        keep_learning_rates(self.algorithm, lambda: checkpoint.read(
            os.path.join(checkpoint_dir, checkpoints.TF_CHECKPOINT_PREFIX)
        ).assert_consumed())
        self.policy.refresh_numpy_weights()
        self.algorithm.set_state(state['algorithm'])
        self.sampler.set_state(state['sampler'])
        self.policy.set_np_random_state(state['policy_np_random'])
        self.initial_exploration_policy.set_np_random_state(
            state['exploration_policy_np_random'])
        if state['evaluation_environment'] is not None:
            self.evaluation_environment.set_episode_state(
                state['evaluation_environment'])
        self._load_pool(checkpoint_dir, manifest, state['pool'])
        self._restore_curriculum_state(state.get('curriculum'))
        self._train_generator = None

    def _load_pool(self, checkpoint_dir, manifest, pool_state):
        if not manifest['replay_pool_pieces']:
            # Saved without the pool: training refills it (warm-up again
            # only if the counters say so).
            self.pool.set_np_random_state(pool_state['np_random'])
            return
        for piece in checkpoints.read_pool_pieces(checkpoint_dir, manifest):
            self.pool.add_experience(piece)
        self.pool.set_state(pool_state)
        self._pool_pieces = list(manifest['replay_pool_pieces'])
        self._pool_pieces_dir = os.path.realpath(os.path.dirname(
            os.path.abspath(checkpoint_dir)))
        self._pool_saved_total = self.pool.total_samples

    # Curriculum state: a resumed run continues the schedule. ---------------

    def _curriculum_state(self):
        return self.curriculum.get_state() if self.curriculum else None

    def _restore_curriculum_state(self, curriculum_state):
        if self.curriculum and curriculum_state is not None:
            self.curriculum.set_state(curriculum_state)

