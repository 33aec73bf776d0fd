"""Trials on disk, and the groups they form by configuration.

A trial is a folder holding ``params.json`` (its variant) and
``progress.csv`` (one row per epoch), as Tune and ``run_example_debug``
write them (or, for a trial that failed before its first epoch,
``error.txt`` instead of ``progress.csv``). Trials whose variants differ only in the seed (and other
bookkeeping) form one group; the entries that differ between groups name
them, e.g. ``algorithm_params.config.policy_lr=0.001``.
"""

import dataclasses
import glob
import json
import os

import pandas as pd

from softlearning.experiments.tune.state import tune_statuses

PARAMS_FILE = 'params.json'
PROGRESS_FILE = 'progress.csv'
ERROR_FILE = 'error.txt'
# Variant entries that do not change what is learned: trials that differ
# only in these are seeds of one configuration.
BOOKKEEPING_KEYS = ('run_params.seed', 'run_params.restore',
                    'run_params.tf_num_threads', 'run_params.run_eagerly',
                    'run_params.deterministic_ops',
                    'run_params.checkpoint_frequency',
                    'run_params.checkpoint_at_end',
                    'run_params.checkpoint_replay_pool')
# A pseudo-entry naming the folder a trial was found under, when trials
# from several folders are compared.
EXPERIMENT_KEY = 'experiment'


class ResultsError(ValueError):
    """No trials, or a column the trials do not have (one clear line)."""


@dataclasses.dataclass
class Trial:
    path: str
    params: dict        # flattened variant: {'a.b.c': value}
    progress: pd.DataFrame
    status: str         # done, stopped, error, running, paused, pending,
    #                     unfinished
    error: str = ''     # the last line of its error.txt (status 'error')


def flatten(nested, prefix=''):
    flat = {}
    for key, value in nested.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict) and value:
            flat.update(flatten(value, f'{name}.'))
        else:
            flat[name] = value
    return flat


def _trial_folders(root, include_failed=False):
    """Trial folders under ``root``; with ``include_failed`` also those of
    trials that failed before their first result (no progress.csv)."""
    pattern = os.path.join(glob.escape(root), '**', PARAMS_FILE)
    folders = (os.path.dirname(path)
               for path in glob.glob(pattern, recursive=True))
    return sorted(folder for folder in folders if os.path.isfile(
        os.path.join(folder, PROGRESS_FILE)) or (include_failed and (
            os.path.isfile(os.path.join(folder, ERROR_FILE)))))


def _error_line(folder):
    """The last line of a trial's error.txt (Tune writes the error there,
    its traceback first), or ''."""
    try:
        with open(os.path.join(folder, ERROR_FILE)) as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return ''
    return lines[-1] if lines else ''


def _reached_its_end(params, progress):
    """Whether the trial ran all its epochs (Tune also marks the last
    result of a trial its scheduler stopped as done)."""
    if progress.empty:
        return False
    n_epochs = params.get('algorithm_params.config.n_epochs')
    if isinstance(n_epochs, int) and 'epoch' in progress:
        return progress['epoch'].iloc[-1] >= n_epochs
    return 'done' in progress and bool(progress['done'].iloc[-1])


def _ended(progress):
    return (not progress.empty and 'done' in progress
            and bool(progress['done'].iloc[-1]))


def _status(folder, params, progress, tune_statuses):
    tune_status = tune_statuses.get(os.path.basename(folder))
    if tune_status == 'ERROR' or (
            tune_status is None and os.path.exists(
                os.path.join(folder, ERROR_FILE))):
        return 'error'
    if _reached_its_end(params, progress):
        return 'done'
    if tune_status == 'TERMINATED' or (tune_status is None
                                       and _ended(progress)):
        return 'stopped'  # by the scheduler, before its end
    if tune_status in ('RUNNING', 'PAUSED', 'PENDING'):
        return tune_status.lower()
    return 'unfinished'


def _read_progress(folder):
    try:
        return pd.read_csv(os.path.join(folder, PROGRESS_FILE))
    except (pd.errors.EmptyDataError, FileNotFoundError):
        return pd.DataFrame()  # a trial that has not finished an epoch


def load_trials(paths, include_failed=False):
    """Every trial under each of ``paths`` (a trial folder, an experiment
    folder, or any folder above them); with ``include_failed`` also trials
    that failed before their first epoch. When trials come from several
    paths, their ``experiment`` entry is the path's name."""
    trials = []
    for path in map(os.path.expanduser, paths):
        folders = _trial_folders(path, include_failed)
        if not folders:
            raise ResultsError(
                f"No trials under {path}: a trial is a folder with "
                f"{PARAMS_FILE} and {PROGRESS_FILE} (e.g. ~/ray_results/gym/"
                "Pendulum/v1/<experiment>).")
        name = os.path.basename(os.path.normpath(path))
        statuses = {}
        for folder in folders:
            with open(os.path.join(folder, PARAMS_FILE)) as f:
                params = flatten(json.load(f))
            if len(paths) > 1:
                params[EXPERIMENT_KEY] = name
            experiment = os.path.dirname(folder)
            if experiment not in statuses:
                statuses[experiment] = tune_statuses(experiment)
            progress = _read_progress(folder)
            status = _status(folder, params, progress, statuses[experiment])
            trials.append(Trial(folder, params, progress, status,
                                _error_line(folder) if status == 'error'
                                else ''))
    return trials


def _hashable(value):
    return json.dumps(value, sort_keys=True, default=str)


def _partition(trials, keys):
    return sorted(
        {tuple(_hashable(t.params.get(k)) for k in keys) for t in trials})


def varying_keys(trials):
    """The entries whose values differ between trials (a missing entry
    counts as a value), minus bookkeeping."""
    keys = sorted(set().union(*(t.params for t in trials)))
    return [key for key in keys if key not in BOOKKEEPING_KEYS
            and len({_hashable(t.params.get(key)) for t in trials}) > 1]


def naming_keys(trials, keys):
    """``keys`` without those that add nothing to the groups' names: an
    entry missing from some trials (e.g. one algorithm's own settings when
    two algorithms are compared: the class name tells them apart), an
    entry that always goes with another one (the evaluation environment
    with the training one), and the experiment name, each only when the
    remaining entries still tell all groups apart."""
    groups = len(_partition(trials, keys))

    def droppable(key, kept):
        if key == EXPERIMENT_KEY or any(key not in t.params for t in trials):
            return True
        alone = _partition(trials, [key])
        return any(len(_partition(trials, [key, other])) == len(alone)
                   == len(_partition(trials, [other]))
                   for other in kept if other != key)

    def drop_order(key):
        missing = any(key not in t.params for t in trials)
        return (key != EXPERIMENT_KEY, not missing, -len(key), key)

    kept = list(keys)
    for key in sorted(keys, key=drop_order):
        candidate = [k for k in kept if k != key]
        if droppable(key, kept) and (
                len(_partition(trials, candidate)) == groups):
            kept = candidate
    return kept


def format_value(value):
    if isinstance(value, float):
        return f'{value:g}'
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(map(format_value, value)) + ']'
    return str(value)


def short_names(keys):
    """'algorithm_params.config.policy_lr' -> 'policy_lr' where that is
    unambiguous."""
    last = [key.split('.')[-1] for key in keys]
    return {key: (name if last.count(name) == 1 else key)
            for key, name in zip(keys, last)}


@dataclasses.dataclass
class Group:
    values: dict        # {varying key: value}
    trials: list

    def label(self, names=None):
        names = names or {key: key for key in self.values}
        if not self.values:
            return 'all trials'
        return ', '.join(f'{names[key]}={format_value(value)}'
                         for key, value in self.values.items())


def group_trials(trials):
    """(groups, the varying keys that name them): one group per distinct
    configuration, seeds pooled, in order of their values."""
    keys = naming_keys(trials, varying_keys(trials))
    groups = {}
    for trial in trials:
        signature = tuple(_hashable(trial.params.get(k)) for k in keys)
        if signature not in groups:
            groups[signature] = Group(
                {key: trial.params.get(key) for key in keys}, [])
        groups[signature].trials.append(trial)
    ordered = sorted(groups.values(), key=lambda group: tuple(
        _sort_key(group.values[key]) for key in keys))
    return ordered, keys


def _sort_key(value):
    """Numbers in numeric order, before everything else (as text)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, '')
    return (1, 0, _hashable(value))


def check_columns(trials, *columns):
    """One clear error for a column no trial's progress.csv has (trials
    without one yet do not count)."""
    trials = [t for t in trials if not t.progress.empty]
    if not trials:
        return
    available = set().union(*(t.progress.columns for t in trials))
    for column in columns:
        if column not in available:
            examples = ', '.join(sorted(c for c in available
                                        if '/' in c or c in (
                                            'total_timestep', 'epoch'))[:12])
            raise ResultsError(
                f"No trial has a '{column}' column in its {PROGRESS_FILE}; "
                f"some that exist: {examples}.")
