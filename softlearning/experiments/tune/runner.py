"""An Experiment as a Ray Tune experiment: on a Ray instance started here
(``run_local``) or on a running cluster (``run_on_cluster``). Results go to
``<results root>/<universe>/<domain>/<task>/<timestamp>-<exp name>/``, a
folder or a URI; ``--restore EXPERIMENT_DIR`` resumes one there."""

import contextlib
import copy
import dataclasses
import datetime
import os
import sys

from softlearning.utils import critic_health
from softlearning.utils import storage

from softlearning.experiments.tune import tracking
from softlearning.experiments.tune import behaviour as tune_behaviour
from softlearning.experiments.trial.console import EpochConsole
from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.config.results_folder import (
    experiment_dir, results_root)
from softlearning.experiments.cluster.resources import trial_resources
from softlearning.experiments.tune.state import state_files, tune_statuses
from softlearning.experiments.tune.progress_file import ProgressFile


@dataclasses.dataclass
class TuneRun:
    """What a Tune run gives: Tune's ResultGrid, the experiment folder (a
    path or a URI), and whether Ctrl+C stopped it."""
    results: object
    folder: str
    interrupted: bool = False


# --verbose -> Tune's verbosity: the command prints a line per epoch
# (console.py); Tune's tables (and its best-trial line) only with 2.
TUNE_VERBOSITY = {0: 0, 1: 0, 2: 1}


def _trial_name_creator(template):
    def create(trial):
        return template.format(trial=trial)
    return create


def run_local(experiment):
    """Runs the experiment on a Ray instance started here; a TuneRun."""
    options = experiment.options

    def start_ray():
        from softlearning.utils import local_ray
        with tune_behaviour.quiet_token_notice():
            # Ray's INFO lines (an instance started, a token written) are
            # its own workings, as when joining a cluster (cluster.py).
            local_ray.start(num_cpus=options.cpus, num_gpus=options.gpus,
                            resources=options.resources,
                            include_dashboard=False, logging_level='WARNING')
    return _run(experiment, start_ray)


def run_on_cluster(experiment):
    """Runs the experiment on a running Ray cluster (``--address``, else
    RAY_ADDRESS, else the cluster of this machine)."""
    options = experiment.options

    def join_cluster():
        from softlearning.experiments.cluster import connection as cluster
        cluster.connect(options.address)
        cluster.check_storage_reachable(results_root(options))
    return _run(experiment, join_cluster)


def _run(experiment, start_ray):
    """The Tune experiment of the variant spec (or the experiment that
    ``--restore`` resumes), on the Ray instance ``start_ray`` starts or
    joins. Returns a TuneRun."""
    import ray
    from ray import tune

    from softlearning.experiments.tune.pending_trials import PendingTrials

    options, variant_spec = experiment.options, experiment.variant_spec
    storage_path, experiment_name = (experiment.location
                                     or experiment_dir(options, variant_spec))
    run_params = variant_spec['run_params']
    verbose = 1 if options.verbose is None else options.verbose
    tracking.set_environment(options)
    # Tune's console of Ray 2.x (a configuration box, its own tables and
    # hints) is left for the one of sweeps.get_progress_reporter, shown
    # with --verbose 2 only, on a fresh and a resumed run alike.
    os.environ.setdefault('RAY_AIR_NEW_OUTPUT', '0')
    if not sys.stdout.isatty():
        # (Ray reads it as it prints: the Python API's runs too.) No colour
        # codes in output that goes to a file.
        os.environ.setdefault('RAY_COLOR_PREFIX', '0')
    try:
        start_ray()  # first: a cluster that is not there fails in seconds
        trainable = tune.with_resources(experiment.trainable_class,
                                        trial_resources(options, variant_spec))
        if experiment.restore_experiment:
            # Unfinished and errored trials continue from their last
            # checkpoints, in the same experiment folder (errored ones
            # start over with restart_errored).
            print(f"Resuming experiment {experiment.restore_experiment}",
                  flush=True)
            restart = experiment.restart_errored
            folder = experiment.restore_experiment
            to_epoch = experiment.resume_to_epoch
            if to_epoch is not None:
                print(f"Every trial trains on to epoch {to_epoch} "
                      "(--n-epochs).", flush=True)
            with tune_behaviour.quiet_unstarted_trials():
                tuner = tune.Tuner.restore(
                    folder, trainable,
                    param_space=experiment.restore_param_space,
                    _resume_config=tune_behaviour.resume_config(
                        restart_errored=restart,
                        resume_finished=to_epoch is not None))
            tune_behaviour.set_restored_callbacks(
                tuner, [EpochConsole(), ProgressFile()],
                TUNE_VERBOSITY[verbose])
            known, states_before = _trial_count(folder), state_files(folder)
            set_aside = (_set_aside_errored_trials(folder) if restart
                         else [])
            with _restarts_keep_placeholders(), \
                    tune_behaviour.restored_trials_train_to(to_epoch):
                results, interrupted = _fit(tuner, verbose)
            for trial_folder in set_aside:
                # (Tune makes the old folder again, empty but for the
                # restart's own log files.)
                _remove_if_no_trial(trial_folder)
            _check_all_restored(folder, known, len(results), states_before)
            return _finished(options, TuneRun(results, folder, interrupted))
        settings = experiment.tune_settings
        tuner = tune.Tuner(
            trainable,
            param_space=variant_spec,
            tune_config=tune.TuneConfig(
                num_samples=options.num_samples,
                trial_name_creator=_trial_name_creator(
                    options.trial_name_template),
                trial_dirname_creator=_trial_name_creator(
                    options.trial_name_template),
                # A trial that ends hands its process (TensorFlow imported)
                # to the next one: ExperimentRunner.reset_config.
                reuse_actors=settings.get('reuse_actors', True),
                **settings.get('tune_config', {})),
            run_config=tune.RunConfig(
                name=experiment_name,
                storage_path=storage_path,
                checkpoint_config=tune.CheckpointConfig(
                    checkpoint_frequency=run_params['checkpoint_frequency'],
                    checkpoint_at_end=run_params['checkpoint_at_end']),
                failure_config=tune.FailureConfig(
                    max_failures=options.max_failures),
                progress_reporter=settings.get('progress_reporter'),
                # Ends the run when trials no longer fit a cluster that no
                # autoscaler can grow (pending_trials.py).
                callbacks=[EpochConsole(), ProgressFile(), PendingTrials(
                    storage.join(storage_path, experiment_name)),
                    *tracking.callbacks(options, storage.join(
                        storage_path, experiment_name))],
                verbose=TUNE_VERBOSITY[verbose]))
        results, interrupted = _fit(tuner, verbose)
    finally:
        ray.shutdown()
    return _finished(options, TuneRun(
        results, storage.join(storage_path, experiment_name), interrupted))


def _finished(options, run):
    """The run, once what the trackers made of it is said."""
    notice = tracking.wandb_notice(options, run.folder)
    if notice:
        print(notice, flush=True)
    return run


def _fit(tuner, verbose):
    """``tuner.fit()`` as softlearning runs it (tune_behaviour.py): bad
    input is not retried, Tune's own resume hint is not shown, no usage tag
    that would not be sent is counted. Returns
    (ResultGrid, whether Ctrl+C stopped it)."""
    with tune_behaviour.no_retries_of_bad_input(), \
            tune_behaviour.no_untold_usage_tags(), \
            tune_behaviour.quiet_tune_logs(verbose), \
            tune_behaviour.watching_interrupts() as watch:
        results = tuner.fit()
        return results, watch.interrupted()


RESTARTED_FOLDER = '.restarted'


@contextlib.contextmanager
def _restarts_keep_placeholders():
    """Tune (2.60) restarts an errored trial (``restart_errored``) as
    ``Trial.reset()``: a new trial built from the old one's *resolved*
    config. Adding it, Tune resolves that config's placeholders again and
    fails on any ``sample_from`` value that resolved to a dict (a suite's
    per-cell settings: suite_experiment.merge_cells), then drops every
    trial after it from the experiment. Here the new trial keeps the old one's
    unresolved config, as a new trial of the same variant has."""
    from softlearning.utils import ray_compat
    Trial = ray_compat.trial_class()
    reset = Trial.reset

    def reset_keeping_placeholders(trial):
        restarted = reset(trial)
        unresolved = ray_compat.unresolved_config(trial)
        if unresolved is not None:
            ray_compat.set_unresolved_config(restarted,
                                             copy.deepcopy(unresolved))
        return restarted

    with ray_compat.patched(Trial, 'reset', reset_keeping_placeholders):
        yield


def _trial_count(experiment_folder):
    return len(tune_statuses(experiment_folder))


def _check_all_restored(experiment_folder, known, restored, states_before):
    """If Tune restored fewer trials than the experiment has (it logs the
    failure and goes on with the trials it got), the state files this run
    wrote are removed, so that the next resume starts from the complete
    state of the run before, and the run ends in an error."""
    if restored >= known:
        return
    fs, _ = storage.filesystem(experiment_folder)
    for path in state_files(experiment_folder) - states_before:
        fs.delete_file(path)
    raise ExperimentError(
        f"Tune restored {restored} of the {known} trials of "
        f"{experiment_folder.split('?')[0]} (its log above says why); the "
        "state this run wrote was removed, so the next resume starts from "
        "the complete one again.")


def _set_aside_errored_trials(experiment_folder):
    """Moves the folders of the trials that ended in an error to
    <experiment>/.restarted/: restarted, each gets a new folder from Tune,
    and its old one (partial results) would count as a second trial of its
    configuration. summary, plot and report skip hidden folders. Works on
    a local folder or a storage URI. Returns the errored trials' folders:
    Tune makes them again, to be removed after the run if still empty."""
    fs, root = storage.filesystem(experiment_folder)
    aside = f"{root.rstrip('/')}/{RESTARTED_FOLDER}"
    shown = storage.join(experiment_folder, RESTARTED_FOLDER).split('?')[0]
    moved = []
    for name, status in tune_statuses(experiment_folder).items():
        source = f"{root.rstrip('/')}/{name}"
        if status != 'ERROR' or not _is_dir(fs, source):
            continue
        moved.append(storage.join(experiment_folder, name))
        if not _holds_trial(fs, source):
            continue  # set aside before (removed after the run)
        destination, n = f'{aside}/{name}', 1
        while _is_dir(fs, destination):  # restarted before: keep both
            destination, n = f'{aside}/{name}.{n}', n + 1
        _move_tree(fs, source, destination)
        print(f"{name} ended in an error: starting it over (its old "
              f"folder is now in {shown}).", flush=True)
    return moved


def _holds_trial(fs, path):
    import pyarrow.fs
    return fs.get_file_info(f"{path.rstrip('/')}/params.json").type != (
        pyarrow.fs.FileType.NotFound)


def _is_dir(fs, path):
    import pyarrow.fs
    return fs.get_file_info(path).type == pyarrow.fs.FileType.Directory


def _move_tree(fs, source, destination):
    """A folder moved within one filesystem. Object stores have no folder
    rename: there it is a copy, then a delete of the original."""
    import pyarrow.fs
    if isinstance(fs, pyarrow.fs.LocalFileSystem):
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        os.replace(source, destination)
        return
    pyarrow.fs.copy_files(source, destination, source_filesystem=fs,
                          destination_filesystem=fs)
    fs.delete_dir(source)


def _remove_if_no_trial(folder):
    """Removes ``folder`` (a path or a URI) if it holds no trial (no
    params.json)."""
    fs, path = storage.filesystem(folder)
    if _is_dir(fs, path) and not _holds_trial(fs, path):
        fs.delete_dir(path)


def report(run, resume=None):
    """One line per trial of a TuneRun; returns the exit code: 130 if
    Ctrl+C stopped the run, else 1 if a trial failed, else 0. The
    experiment folder (a folder or a URI) is shown without its query
    (which may hold endpoint options). A trial that did not reach its end
    (the run was interrupted) is UNFINISHED; ``resume`` says how to
    continue it (default: --restore EXPERIMENT_FOLDER)."""
    shown = run.folder.split('?')[0]
    print(f"\nResults: {shown}")
    failed = unfinished = 0
    for result in run.results:
        metrics = result.metrics or {}
        evaluation = metrics.get('evaluation', {}).get('return-mean')
        success = metrics.get('evaluation', {}).get('success-rate')
        status = ('ERROR' if result.error else
                  'OK' if metrics.get('done') else 'UNFINISHED')
        failed += bool(result.error)
        unfinished += status == 'UNFINISHED'
        trial = storage.join(shown, os.path.basename(result.path))
        line = f"  [{status}] {trial}"
        if evaluation is not None:
            line += (f"  epoch {metrics.get('epoch')}, evaluation return-mean "
                     f"{evaluation:.1f}")
            if success is not None:
                line += f", success-rate {success:.2f}"
        print(line)
        if result.error:
            print(f"    {error_line(result.error)}")
        elif (diverged := critics_warning(result)) is not None:
            print(f"    {diverged}")
    if unfinished:
        print(f"{unfinished} trial(s) unfinished; to continue them: "
              f"{resume or '--restore ' + shown}")
    if run.interrupted:
        return 130  # as a shell reports a command Ctrl+C ended
    return 1 if failed else 0


def critics_warning(result):
    """utils/critic_health's line for a trial whose critics' loss ran
    away, from its reported history; None otherwise."""
    history = getattr(result, 'metrics_dataframe', None)
    if history is None or critic_health.COLUMN not in history:
        return None
    return critic_health.warning(list(history[critic_health.COLUMN]))


def error_line(error):
    """A trial's error in one line: the trainable's own exception, not the
    Ray task traceback around it."""
    if tune_behaviour.cannot_heal(error):
        return tune_behaviour.build_error_line(error)
    cause = getattr(error, 'cause', None) or error
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[-1] if lines else ''}"
