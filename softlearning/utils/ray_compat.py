"""Every use of Ray's private code, in one place.

softlearning changes a few of Tune's and Ray's behaviours (see
experiments/tune/behaviour.py for why) and reads a few things Ray keeps
private. Each of them is named here: what it reaches, why, and the Ray
version it was written for. Importing this module checks that each
attribute is still where it was (those of the autoscaler and of W&B,
whose modules are heavy, when first used); one that moved ends the command
with one line naming the Ray version and the entry, instead of an
AttributeError deep inside a run. Nothing else in softlearning imports ``ray._private``,
``ray._common``, ``ray.air._internal``, ``ray.autoscaler._private`` or a
name-mangled attribute (tests/test_ray_compat.py checks it).

Checked on Ray 2.60.
"""

import contextlib
import importlib

import ray

CHECKED_ON = '2.60'

# (module, attribute, what softlearning does with it), checked when this
# module is imported: Tune's trials, usage statistics, authentication.
PRIVATE = (
    ('ray.tune.experiment.trial', 'Trial.handle_error',
     'errors that cannot heal are not retried (tune/behaviour.py)'),
    ('ray.tune.experiment.trial', 'Trial.should_recover',
     'errors that cannot heal are not retried (tune/behaviour.py)'),
    ('ray.tune.experiment.trial', 'Trial.from_json_state',
     'a resumed experiment trains on to a new --n-epochs'),
    ('ray.tune.experiment.trial', 'Trial.reset',
     "a restarted trial keeps its config's placeholders (tune/runner.py)"),
    ('ray.air._internal.usage', 'tag_callbacks',
     'no usage tag is counted while usage statistics are off'),
    ('ray._common.usage.usage_lib', 'usage_stats_enabled',
     'no usage tag is counted while usage statistics are off'),
    ('ray._private.authentication.authentication_token_setup',
     'maybe_enable_token_auth_if_token_available',
     "a driver joining a cluster authenticates as ray.init('auto') does"),
    ('ray._private.authentication.authentication_token_setup',
     'generate_and_save_token', 'the token a launched cluster starts with'),
    ('ray._private.utils', 'read_ray_address',
     "the cluster of this machine, where address='auto' looks"),
    ('ray.tune.impl.tuner_internal', 'TunerInternal.get_run_config',
     'a resumed run prints the console of a fresh one'),
    # With its instances' _trial_files, _trial_csv and _trial_continue
    # (ProgressFile checks those when made).
    ('ray.tune.logger.csv', 'CSVLoggerCallback._setup_trial',
     "a resumed trial whose result keys changed leaves a progress.csv "
     "that parses (tune/progress_file.py)"),
)
# Checked when first used (their modules are heavy, or import the
# trackers themselves): the autoscaler's, and W&B's.
AUTOSCALER = (
    ('ray._private.ray_constants', 'DEBUG_AUTOSCALING_STATUS',
     "the autoscaler's status (trials that no longer fit a cluster)"),
    ('ray.experimental.internal_kv', '_internal_kv_get',
     "the autoscaler's status (trials that no longer fit a cluster)"),
    ('ray.autoscaler._private.util', 'format_readonly_node_type',
     'the node types of a cluster that no autoscaler grows'),
    ('ray.autoscaler._private.util', 'prepare_config',
     'a launched cluster YAML, filled in as `ray up` does'),
    ('ray.autoscaler._private.util', 'validate_config',
     'a launched cluster YAML, checked as `ray up` does'),
)
WANDB = (
    ('ray.air.util.node', '_force_on_current_node',
     "W&B's logging actors on the driver's node, without restarts"),
    ('ray.air.integrations.wandb', 'WandbLoggerCallback._start_logging_actor',
     "W&B's logging actors started without restarts"),
    ('ray.air.integrations.wandb', 'WandbLoggerCallback._logger_actor_cls',
     "W&B's logging actors writing all of a run before they end"),
    ('ray.air.integrations.wandb', '_WandbLoggingActor.run',
     "W&B's logging actors writing all of a run before they end"),
)

# The loggers whose records softlearning filters or quiets, by name, and
# the start of the messages it leaves out.
TOKEN_SETUP_LOGGER = 'ray._private.authentication.authentication_token_setup'
TOKEN_NOTICE = 'Token authentication is enabled'
TRIAL_LOGGERS = ('ray.tune.trainable.trainable',
                 'ray.train._internal.storage')
TUNE_RESUME_HINT = 'Tuner.restore('
TUNE_UNFINISHED_NOTE = 'Trials did not complete'
UNSTARTED_TRIALS_LOGGER = 'ray.tune.analysis.experiment_analysis'
UNSTARTED_TRIALS_NOTE = 'Failed to fetch metrics for'


class RayVersionError(RuntimeError):
    """A private part of Ray that softlearning uses has moved."""


def _resolve(module, attribute):
    value = importlib.import_module(module)
    for part in attribute.split('.'):
        value = getattr(value, part)
    return value


_checked = set()


def check(entries=PRIVATE):
    """Raises RayVersionError (one line) for the first entry that this
    Ray lacks."""
    for module, attribute, purpose in entries:
        if (module, attribute) in _checked:
            continue
        try:
            _resolve(module, attribute)
        except (ImportError, AttributeError):
            raise RayVersionError(
                f"Ray {ray.__version__} has no {module}.{attribute}, which "
                f"softlearning uses so that {purpose} (written for Ray "
                f"{CHECKED_ON}); install the Ray version of "
                "requirements.txt.") from None
        _checked.add((module, attribute))


# Tune's trials ---------------------------------------------------------------

def trial_class():
    from ray.tune.experiment.trial import Trial
    return Trial


def unresolved_config(trial):
    """The config a trial was made with, its placeholders unresolved
    (Tune keeps it name-mangled)."""
    return getattr(trial, '_Trial__unresolved_config', None)


def set_unresolved_config(trial, config):
    trial._Trial__unresolved_config = config


@contextlib.contextmanager
def patched(owner, name, replacement):
    """``owner.name`` is ``replacement`` in the block (a classmethod's
    replacement is wrapped as one)."""
    original = owner.__dict__[name]
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, original)


def restored_run_config(tuner):
    """The RunConfig a restored Tuner will run with."""
    return tuner._local_tuner.get_run_config()


# Usage statistics ------------------------------------------------------------

def usage_stats_enabled():
    from ray._common.usage import usage_lib
    return usage_lib.usage_stats_enabled()


@contextlib.contextmanager
def callbacks_not_tagged():
    """Tune counts the run's callbacks for its usage tag (importing every
    tracker it knows); not in the block."""
    from ray.air._internal import usage
    with patched(usage, 'tag_callbacks', lambda callbacks: False):
        yield


# Clusters --------------------------------------------------------------------

def enable_token_auth_if_available():
    from ray._private.authentication import authentication_token_setup
    authentication_token_setup.maybe_enable_token_auth_if_token_available(
        warn_if_disabled=False)


def generate_and_save_token():
    from ray._private.authentication.authentication_token_setup import (
        generate_and_save_token as generate)
    generate()


def read_ray_address():
    from ray._private.utils import read_ray_address as read
    return read()


def autoscaling_status():
    """What Ray's monitor last published of the autoscaler (the JSON that
    `ray status` prints), or None."""
    check(AUTOSCALER)
    from ray._private import ray_constants
    from ray.experimental.internal_kv import _internal_kv_get
    return _internal_kv_get(ray_constants.DEBUG_AUTOSCALING_STATUS)


def format_readonly_node_type(node_id):
    check(AUTOSCALER)
    from ray.autoscaler._private.util import format_readonly_node_type as name
    return name(node_id)


def prepared_cluster_config(config):
    """A cluster YAML filled in and validated as `ray up` does (raises
    Ray's own errors)."""
    check(AUTOSCALER)
    from ray.autoscaler._private.util import prepare_config, validate_config
    config = prepare_config(config)
    validate_config(config)
    return config


# W&B -------------------------------------------------------------------------

def wandb_callback_without_restarts():
    """Tune's W&B callback, its logging actors started without restarts:
    Ray 2.60 prints an error line (core_worker.cc, ray-project/ray#53727)
    for every actor that may restart and takes arguments from the object
    store, as Tune's logging actors do. One that dies ends its trial's W&B
    logging, not the trial. Each actor waits for W&B to have written its
    run before it ends."""
    import os
    check(WANDB)

    from ray.air.integrations.wandb import (WandbLoggerCallback,
                                            _WandbLoggingActor)
    from ray.air.util.node import _force_on_current_node

    class LoggingActorThatFlushes(_WandbLoggingActor):
        # wandb.finish() can return before W&B's service process has
        # written the whole run: it is told to end by wandb's atexit hook,
        # which an actor that Tune kills never runs (a full suite's offline
        # run once held only its file header). teardown() tells it and
        # waits, before Tune's callback ends the actor.
        def run(self):
            try:
                super().run()
            finally:
                self._wandb.teardown()

    class WandbWithoutRestarts(WandbLoggerCallback):
        _logger_actor_cls = LoggingActorThatFlushes

        def _start_logging_actor(self, trial, exclude_results, **kwargs):
            if not self._remote_logger_class:
                key = {name: os.environ[name] for name in ('WANDB_API_KEY',)
                       if name in os.environ}
                self._remote_logger_class = ray.remote(
                    num_cpus=0, **_force_on_current_node(),
                    runtime_env={'env_vars': key})(self._logger_actor_cls)
            super()._start_logging_actor(trial, exclude_results, **kwargs)

    return WandbWithoutRestarts


check()
