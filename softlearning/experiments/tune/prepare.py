"""An experiment, ready to run: its options checked, its variant spec
built, its storage and checkpoint checked, its Tune settings made. Anything
wrong with the input fails here, before Ray or TensorFlow start, as one
ExperimentError.

An experiment definition is a module with ``get_variant_spec(options)``
and ``get_trainable_class(options)``, and optionally ``OPTION_DEFAULTS``
({option name: its default in this experiment}; the options are the
schema's, option_schema.py) and ``prepare_args(options)``:
``softlearning.experiments.definition`` is softlearning's own
(``examples.development`` is it); ``examples.multi_goal`` shows another.
"""

import dataclasses
import importlib
import math
import os
import sys
import types
from typing import Optional

from softlearning.utils import imports, storage
from softlearning.utils.one_line import first_line

from softlearning.experiments.cluster import resources
from softlearning.experiments.tune import tracking
from softlearning.experiments.config.results_folder import results_root
from softlearning.experiments.errors import ExperimentError

DEFAULT_DEFINITION = 'softlearning.experiments.definition'


@dataclasses.dataclass
class Experiment:
    """What the runners need: the definition (its trainable), the options,
    the variant spec (may hold search spaces), and how to run it."""
    definition: types.ModuleType
    options: object
    variant_spec: dict
    mode: str
    # An experiment folder to resume (--restore of an experiment), or None.
    restore_experiment: Optional[str] = None
    # (storage path, experiment name) of the results; None: the default
    # <results root>/<universe>/<domain>/<task>/<timestamp>-<exp name>.
    location: Optional[tuple] = None
    # The param space a resumed experiment gets again: Tune keeps its
    # functions (sample_from, which a benchmark suite's spec holds) only as
    # placeholders, which the trials not yet started need resolved.
    restore_param_space: Optional[dict] = None
    # Resuming: trials that ended in an error start over from scratch
    # (e.g. their checkpoints are from a version that cannot restore them)
    # instead of continuing from their last checkpoints.
    restart_errored: bool = False
    # Resuming with --n-epochs: every trial (finished ones too) trains on
    # to this epoch; None: the trials keep their own n_epochs.
    resume_to_epoch: Optional[int] = None
    tune_settings: dict = dataclasses.field(default_factory=dict)

    @property
    def trainable_class(self):
        return self.definition.get_trainable_class(self.options)


def load_definition(name=None):
    """The experiment definition module ``name`` (default: softlearning's
    own), or one clear error. ``examples.development`` is softlearning's
    own too where the repository's examples/ is not at hand (an installed
    package run from elsewhere, a cluster node)."""
    name = name or DEFAULT_DEFINITION
    try:
        # (The repository's examples.* from any folder.)
        return imports.import_module(name)
    except ModuleNotFoundError as error:
        if name == 'examples.development' and error.name in (
                'examples', 'examples.development'):
            return importlib.import_module(DEFAULT_DEFINITION)
        raise ExperimentError(
            f"Cannot import example module '{name}' ({error}); e.g. use "
            "'examples.development'.") from None


def _notice(options, message):
    """A notice about a default the input implied; printed once the whole
    input is known to be good (a bad input prints its one error only)."""
    options.notices.append(message)


def prepare(definition, options, mode, given=None, check_storage=True,
            provenance=None):
    """The Experiment of ``options`` (a namespace of the schema's options)
    run in ``mode`` ('local', 'cluster' or 'debug'). ``given``: {option:
    as written} of the options the user set (refused ones are an error). A
    launcher checks the options for a cluster whose storage it may not
    reach itself: ``check_storage=False``. ``provenance``: a
    provenance.Provenance that records where each variant value came
    from (softlearning show-config)."""
    # This process, the trials and Ray's workers import TensorFlow: none may
    # load OSMesa, whatever MUJOCO_GL the user exported (rendering actors
    # still get the user's choice).
    from softlearning.environments.rendering import keep_opengl_out_of_learner
    keep_opengl_out_of_learner()
    options.notices = []
    if provenance is not None:
        options.provenance = provenance
    # (Here: its tables import Tune's names.)
    from softlearning.experiments.config import option_schema
    option_schema.check_refused(given or {}, mode)
    option_schema.apply_mode_defaults(options, mode)
    # Defaults that follow from other options (the definition's rules).
    prepare_args = getattr(definition, 'prepare_args', None)
    if prepare_args is not None:
        prepare_args(options)
    _resolve_cpus(options, mode)
    try:
        variant_spec = definition.get_variant_spec(options)
    except ValueError as error:
        raise ExperimentError(str(error)) from None
    run_params = variant_spec['run_params']
    if run_params.get('tf_num_threads') is None:
        run_params['tf_num_threads'] = max(
            1, math.ceil(resources.learner_cpus(options)))
    if provenance is not None:
        provenance.step('derived', variant_spec)
    if mode != 'cluster':  # (a cluster's trials run on its nodes)
        _check_precision(options, variant_spec)
    if check_storage:
        _check_storage_option(options, variant_spec)
    tracking.check(options)
    written = storage.folder_name(str(options.exp_name))
    if written != options.exp_name:
        _notice(options, f"--exp-name {options.exp_name!r} is written "
                         f"{written!r} in the results folder's name.")
    experiment = Experiment(definition, options, variant_spec, mode)
    experiment.restore_experiment = _check_restore(options, variant_spec)
    experiment.resume_to_epoch = _check_epochs_after_restore(
        experiment, 'n_epochs' in (given or {}))
    if provenance is not None:
        provenance.step('option', variant_spec)
    if mode == 'debug' and experiment.restore_experiment:
        raise ExperimentError(
            f"--restore {options.restore}: an experiment folder is resumed "
            "by run_example_local; run_example_debug starts from a "
            "checkpoint folder (e.g. .../<trial>/checkpoint_000000).")
    if mode in ('local', 'cluster') and not experiment.restore_experiment:
        experiment.tune_settings = _tune_settings(
            options, variant_spec, on_cluster=mode == 'cluster')
    for message in options.notices:
        print(f"[softlearning] Notice: {message}", file=sys.stderr,
              flush=True)
    return experiment


def _check_precision(options, variant_spec):
    """bfloat16 where this machine would only emulate it is refused here
    (algorithms/precision.py), before Ray or TensorFlow start."""
    from softlearning.algorithms.precision import BFLOAT16, machine_refusal
    from softlearning.experiments.config.search_spaces import possible_values
    precision = variant_spec['algorithm_params']['config'].get('precision')
    if BFLOAT16 not in possible_values(precision):
        return
    name = (f'--precision {BFLOAT16}' if options.precision == BFLOAT16
            else f'algorithm_params.config.precision {BFLOAT16}')
    refusal = machine_refusal(name)
    if refusal:
        raise ExperimentError(refusal)


def _resolve_cpus(options, mode):
    if mode == 'cluster':
        # The cluster's CPUs are not known here (an autoscaler may add
        # nodes): Tune waits for the trial's resources.
        options.trial_cpus = options.trial_cpus or 1
        if options.num_samplers and options.sampler_cpus is None:
            options.sampler_cpus = 1.0
        return
    resources.resolve_cpus(
        options, options.cpus or os.cpu_count(),
        trainer_in_ray=(mode == 'local'),
        notice=lambda message: _notice(options, message))


def _tune_settings(options, variant_spec, on_cluster=False):
    """Scheduler, search algorithm, metric and console table of a sweep,
    checked before Ray starts."""
    from softlearning.experiments.tune import sweeps
    try:
        sweeps.check_metric(options.metric)
        search_alg = sweeps.prepare_search(options, variant_spec)
        scheduler = sweeps.get_scheduler(options, variant_spec)
    except sweeps.SweepError as error:
        raise ExperimentError(str(error)) from None
    # Tune checks every result for the metric when it optimizes it, and
    # then tells the console table itself.
    optimizes = scheduler is not None or search_alg is not None
    metric = {'metric': options.metric, 'mode': options.metric_mode}
    return {
        'tune_config': {
            'scheduler': scheduler, 'search_alg': search_alg,
            'max_concurrent_trials': options.max_concurrent_trials,
            **(metric if optimizes else {}),
        },
        'progress_reporter': sweeps.get_progress_reporter(
            variant_spec, **metric, told_by_tune=optimizes),
        # On a cluster every trial gets a process of its own: a reused one
        # kept trials on one node, one after another, in Ray 2.60.
        'reuse_actors': (sweeps.reuses_processes(scheduler)
                         and not on_cluster),
    }


def _check_storage_option(options, variant_spec):
    """The results root must be writable from here, before Ray starts."""
    root = results_root(options)
    option = '--upload-dir' if options.upload_dir else '--local-dir'
    if not storage.is_uri(root):
        path = storage.normalize(root)
        try:
            os.makedirs(path, exist_ok=True)
            if not os.access(path, os.W_OK | os.X_OK):
                raise PermissionError('permission denied')
        except OSError as error:
            raise ExperimentError(
                f"Cannot write results to {option} {root}: "
                f"{error.strerror or error}; choose a folder you can "
                "write to.") from None
        return
    if variant_spec['run_params'].get('checkpoint_replay_pool'):
        raise ExperimentError(
            "--checkpoint-replay-pool True needs results in a file system "
            "(a local or shared folder), not a URI: the pool pieces are "
            f"written beside the trial ('{root}' given).")
    try:
        storage.check_writable(root)
    except OSError as error:
        raise ExperimentError(
            f"Cannot write results to {option}: {error}") from None


def _check_restore(options, variant_spec):
    """Validates ``--restore`` before Ray starts. Returns the experiment
    folder to resume, or None; a checkpoint (or trial) folder instead goes
    into the variant (run_params.restore) and starts new trials from it."""
    restore = options.restore
    if not restore:
        return None
    from softlearning.utils import checkpoints

    from softlearning.experiments.trial.trainable import check_restorable
    path = storage.normalize(restore)
    try:
        is_experiment = storage.exists(storage.join(path, 'tuner.pkl'))
    except Exception as error:  # pyarrow: an unknown scheme, no access
        raise ExperimentError(
            f"--restore {restore}: cannot read it: "
            f"{first_line(error)}") from None
    if is_experiment:
        if not storage.is_uri(path) and not os.access(path, os.W_OK):
            raise ExperimentError(
                f"--restore {restore}: the experiment folder is read-only "
                "here, and a resumed experiment writes into it; copy it "
                "where you can write (e.g. cp -r), and resume the copy.")
        return path
    if storage.is_uri(path):
        raise ExperimentError(
            f"--restore {restore}: no experiment there (no tuner.pkl); from "
            "a URI, only experiments are resumed.")
    try:
        checkpoint_dir = checkpoints.resolve_checkpoint(path)
        checkpoints.read_manifest(checkpoint_dir)
        check_restorable(checkpoint_dir, variant_spec)
    except checkpoints.CheckpointError as error:
        raise ExperimentError(f"--restore: {error}") from None
    variant_spec['run_params']['restore'] = checkpoint_dir
    return None


def _check_epochs_after_restore(experiment, n_epochs_given):
    """A run that starts from checkpoints must have epochs left to train:
    ``n_epochs`` counts from the first epoch, so it must be above the
    epoch the checkpoints reached. Resuming an experiment with
    ``--n-epochs``: returns it (its trials train on to it, finished ones
    too); else None."""
    from softlearning.utils import checkpoints
    n_epochs = experiment.variant_spec['algorithm_params']['config'].get(
        'n_epochs')
    if not isinstance(n_epochs, int):
        return None  # searched over: each trial's own
    folder = experiment.restore_experiment
    if folder is None:
        restore = experiment.variant_spec['run_params'].get('restore')
        if restore is None:
            return None
        reached = checkpoints.manifest_epoch(restore)
        if n_epochs <= reached:
            raise ExperimentError(
                f"--restore {experiment.options.restore}: its checkpoint is "
                f"at epoch {reached} and the run trains to epoch {n_epochs}"
                f"{'' if n_epochs_given else ' (the default --n-epochs)'}; "
                f"give --n-epochs above {reached} to train on from it.")
        return None
    if not n_epochs_given:
        return None
    if storage.is_uri(folder):
        return n_epochs  # (the trials check it: their checkpoints are there)
    reached = {os.path.basename(trial): checkpoints.manifest_epoch(
                   checkpoints.checkpoint_dirs(trial)[-1])
               for trial in checkpoints.trial_dirs_with_checkpoints(folder)}
    if reached and n_epochs <= max(reached.values()):
        trial = max(reached, key=reached.get)
        raise ExperimentError(
            f"--n-epochs {n_epochs}: trial {trial} of {folder} has a "
            f"checkpoint at epoch {reached[trial]} already; give --n-epochs "
            f"above {reached[trial]} to train its trials on, or leave it out "
            "to resume them as they were.")
    return n_epochs
