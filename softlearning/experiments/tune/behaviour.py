"""Where softlearning's runs differ from Tune's defaults, each while one
``tuner.fit()`` runs (Ray 2.60):

- ``no_retries_of_bad_input``: a trial that fails while it is being built
  (a bad variant, environment or checkpoint: ``TrialBuildError``) or whose
  numbers went non-finite (``NonFiniteError``) ends at once, with one line
  in the driver's output; ``--max-failures`` retries
  stay for crashes (a killed process, a lost node), which can heal.
- ``watching_interrupts``: whether Ctrl+C ended the run (Tune catches the
  first one itself, saves the experiment and returns as if it had ended),
  so that the command exits with 130 and a script can tell.
- ``quiet_tune_logs``: Tune's ``Tuner.restore(...)`` hint (the command
  prints its own ``--restore`` one) and its trial tracebacks of bad input
  (the trial's one line is printed instead) are left out.
- ``quiet_unstarted_trials`` (around ``Tuner.restore``): resuming an
  experiment whose later trials had not started, Tune warns that it found
  no results of each; that warning is left out (one about a result file
  it could not read stays).
- ``quiet_token_notice``: a Ray instance started here has token
  authentication on (Ray's default); Ray's warning that says so at every
  start is left out.
- ``set_restored_callbacks``: a resumed experiment prints the console of a
  fresh one (the epoch lines of this softlearning, Tune's own output as
  ``--verbose`` says) and writes progress.csv as a fresh one does,
  whatever the run that started it pickled.
- ``resume_config`` and ``restored_trials_train_to``: resuming with
  ``--n-epochs``, finished trials continue from their last checkpoints
  too, and every restored trial's config (resolved and unresolved, as
  Tune keeps it) trains to the new epoch count.
- ``no_untold_usage_tags``: with Ray's usage statistics off
  (``RAY_USAGE_STATS_ENABLED=0``), Tune does not tag the run's callbacks:
  the tag is never sent, and counting them imports every tracker Tune
  knows (MLflow, W&B, Comet, Aim), where installed: about 1.8 s of every
  run's start.
"""

import contextlib
import logging
import os
import signal
import sys
import threading

from softlearning.utils.imports import LazyModule
from softlearning.utils.non_finite import NonFiniteError

from softlearning.experiments.errors import TrialBuildError

# (Imported on first use: it imports Tune, which a bad input never needs.)
ray_compat = LazyModule('softlearning.utils.ray_compat')


# Errors a retry would raise again: a trial that cannot be built, and one
# whose numbers went non-finite (its checkpoint would diverge again).
CANNOT_HEAL = (TrialBuildError, NonFiniteError)


def _cannot_heal_error(exception):
    """The error among CANNOT_HEAL that a trial's error (as Tune holds it:
    Ray's error around the trainable's) carries, or None."""
    seen = set()
    while exception is not None and id(exception) not in seen:
        seen.add(id(exception))
        cause = getattr(exception, 'cause', None)
        if not isinstance(cause, BaseException):
            cause = None
        # Ray's RayTaskError poses as its cause's class too: the cause
        # itself holds the message.
        if isinstance(exception, CANNOT_HEAL) and cause is None:
            return exception
        exception = cause or exception.__cause__
    return None


def cannot_heal(exception):
    """Whether a trial's error is one that a retry would raise again."""
    return _cannot_heal_error(exception) is not None


def build_error_line(exception):
    """The one line of the error that cannot heal inside ``exception``."""
    error = _cannot_heal_error(exception)
    return str(error).splitlines()[0] if error is not None else ''


def _cannot_heal_notice(trial_id, exception):
    error = _cannot_heal_error(exception)
    verb = ('stopped' if isinstance(error, NonFiniteError)
            else 'cannot start')
    return f"Trial {trial_id} {verb}: {build_error_line(exception)}"


@contextlib.contextmanager
def no_retries_of_bad_input():
    """A trial whose error cannot heal is not recovered, whatever its
    ``max_failures``; its error line is printed once, in the driver."""
    Trial = ray_compat.trial_class()
    handle_error, should_recover = Trial.handle_error, Trial.should_recover

    def handle(trial, exc=None, *args, **kwargs):
        handle_error(trial, exc, *args, **kwargs)
        if cannot_heal(exc):
            trial.__dict__['_softlearning_cannot_heal'] = True
            print(_cannot_heal_notice(trial.trial_id, exc), file=sys.stderr,
                  flush=True)

    def recover(trial):
        return (not trial.__dict__.pop('_softlearning_cannot_heal', False)
                and should_recover(trial))

    with ray_compat.patched(Trial, 'handle_error', handle), \
            ray_compat.patched(Trial, 'should_recover', recover):
        yield


def resume_config(restart_errored=False, resume_finished=False):
    """Tune's ResumeConfig: unfinished trials resume from their last
    checkpoints, errored ones resume (or restart: ``restart_errored``),
    finished ones resume only with ``resume_finished``."""
    from ray.tune import ResumeConfig
    kinds = ResumeConfig.ResumeType
    return ResumeConfig(
        unfinished=kinds.RESUME,
        errored=kinds.RESTART if restart_errored else kinds.RESUME,
        finished=kinds.RESUME if resume_finished else kinds.SKIP)


def _set_n_epochs(config, n_epochs):
    algorithm = (config or {}).get('algorithm_params')
    if isinstance(algorithm, dict) and isinstance(
            algorithm.get('config'), dict):
        algorithm['config']['n_epochs'] = n_epochs


@contextlib.contextmanager
def restored_trials_train_to(n_epochs):
    """Trials Tune restores in the block train to ``n_epochs`` (None: as
    they were)."""
    if n_epochs is None:
        yield
        return
    Trial = ray_compat.trial_class()
    from_json_state = Trial.from_json_state.__func__

    def restored(cls, json_state, stub=False):
        trial = from_json_state(cls, json_state, stub=stub)
        _set_n_epochs(trial.config, n_epochs)
        _set_n_epochs(ray_compat.unresolved_config(trial), n_epochs)
        return trial

    with ray_compat.patched(Trial, 'from_json_state', classmethod(restored)):
        yield


@contextlib.contextmanager
def no_untold_usage_tags():
    """Tune's callback usage tag is skipped while usage statistics are
    off: nothing would report it."""
    if ray_compat.usage_stats_enabled():
        yield
        return
    with ray_compat.callbacks_not_tagged():
        yield


class _Interrupts:
    """A SIGINT handler that records a Ctrl+C Tune did not catch."""

    def __init__(self):
        self.seen = False

    def __call__(self, signum, frame):
        self.seen = True
        raise KeyboardInterrupt


class _Watch:
    def __init__(self, handler, tune_catches):
        self._handler, self._tune_catches = handler, tune_catches

    def interrupted(self):
        """Whether a Ctrl+C came. Tune's own handler, on its first one,
        puts back the handler it found (ours) and stops the run."""
        return self._handler.seen or (
            self._tune_catches
            and signal.getsignal(signal.SIGINT) is self._handler)


@contextlib.contextmanager
def watching_interrupts():
    """Yields a watch whose ``interrupted()`` says if Ctrl+C stopped the
    run (call it before the block ends)."""
    if threading.current_thread() is not threading.main_thread():
        yield _Watch(_Interrupts(), tune_catches=False)
        return
    previous = signal.getsignal(signal.SIGINT)
    handler = _Interrupts()
    signal.signal(signal.SIGINT, handler)
    tune_catches = not int(os.getenv('TUNE_DISABLE_SIGINT_HANDLER', '0'))
    try:
        yield _Watch(handler, tune_catches)
    finally:
        signal.signal(signal.SIGINT, previous)


class _DropTuneHints(logging.Filter):
    """Tune's resume hint (``Tuner.restore(...)``: the command prints its
    own) and its log of a trial error that cannot heal (printed as one
    line by ``no_retries_of_bad_input``)."""

    def filter(self, record):
        message = record.getMessage()
        if ray_compat.TUNE_RESUME_HINT in message or message.startswith(
                ray_compat.TUNE_UNFINISHED_NOTE):  # each trial's line says so
            return False
        return not (record.exc_info and cannot_heal(record.exc_info[1]))


@contextlib.contextmanager
def quiet_tune_logs(verbose=1):
    """Below ``verbose`` 2, Tune's notes on its own workings (INFO: state
    files written, trials restored) are left out too."""
    drop = _DropTuneHints()
    loggers = [logging.getLogger(name) for name in (
        'ray.tune.tune', 'ray.tune.execution.tune_controller')]
    for logger in loggers:
        logger.addFilter(drop)
    tune_logger = logging.getLogger('ray.tune')
    level = tune_logger.level
    if verbose < 2:
        tune_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        tune_logger.setLevel(level)
        for logger in loggers:
            logger.removeFilter(drop)


@contextlib.contextmanager
def _dropping(logger_name, drop):
    """``drop(message)`` records of this logger are left out in the
    block."""
    class Drop(logging.Filter):
        def filter(self, record):
            return not drop(record.getMessage())

    logger, log_filter = logging.getLogger(logger_name), Drop()
    logger.addFilter(log_filter)
    try:
        yield
    finally:
        logger.removeFilter(log_filter)


def quiet_token_notice():
    return _dropping(
        ray_compat.TOKEN_SETUP_LOGGER,
        lambda message: message.startswith(ray_compat.TOKEN_NOTICE))


def _only_unstarted_trials(message):
    """Tune's warning, as it restores an experiment, about trials it found
    no results of, when every one of them simply had not started yet."""
    lines = message.splitlines()
    return (lines[0].startswith(ray_compat.UNSTARTED_TRIALS_NOTE)
            and all('FileNotFoundError(' in line for line in lines[1:]))


def quiet_unstarted_trials():
    return _dropping(ray_compat.UNSTARTED_TRIALS_LOGGER,
                     _only_unstarted_trials)


def set_restored_callbacks(tuner, callbacks, tune_verbosity):
    """The callbacks of a ``Tuner.restore``-d experiment: Tune restores the
    RunConfig it pickled (its callbacks, its verbosity) and takes no new
    one, so the restored config is changed in place: each of
    ``callbacks`` (the console, the progress file) replaces any earlier
    one of its type, the other callbacks (trackers, pending trials) stay.
    Ray keeps that config in a private part of the Tuner
    (ray_compat.restored_run_config)."""
    run_config = ray_compat.restored_run_config(tuner)
    replaced = {type(callback) for callback in callbacks}
    run_config.callbacks = list(callbacks) + [
        callback for callback in (run_config.callbacks or [])
        if type(callback) not in replaced]
    run_config.verbose = tune_verbosity
