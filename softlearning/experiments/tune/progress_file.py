"""progress.csv that stays readable when a trial's result keys change.

Tune's own CSV logger appends a resumed trial's rows under the header the
file already has, with the columns of the resumed trial's first result: a
trial paused under one softlearning version and resumed under one that
reports a key more (or in another order) leaves rows that do not match
their header, and the file no longer parses. ``ProgressFile`` writes the
same file; when a continued file's header differs from the new result's
keys, it rewrites the file once under the union of both (old rows keep
their values, new columns start empty in them), atomically, so a kill
during the rewrite leaves the old file whole.
"""

import csv
import os

from ray.tune.logger import CSVLoggerCallback
from ray.tune.utils import flatten_dict

from softlearning.utils import ray_compat

# Tune's CSV logger keeps these per trial; ProgressFile opens the file of
# a continued trial itself.
_TUNE_STATE = ('_trial_files', '_trial_csv', '_trial_continue')


def _header(path):
    with open(path, newline='') as f:
        return next(csv.reader(f), [])


def rewrite_with_columns(path, columns):
    """The file at ``path`` under the header ``columns`` (a superset of its
    own), its rows' values kept under their column names."""
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    temporary = f'{path}.rewrite'
    with open(temporary, 'w', newline='') as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(rows)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def columns_for(header, keys):
    """The columns a continued file writes ``keys`` under: its own header
    with any new key added at the end (None when the header already is
    the right one)."""
    added = [key for key in keys if key not in header]
    if not added:
        return None
    return list(header) + added


class ProgressFile(CSVLoggerCallback):
    """Tune's CSV logger, but a continued file's header always fits."""

    def __init__(self):
        super().__init__()
        for name in _TUNE_STATE:
            if not hasattr(self, name):
                raise ray_compat.RayVersionError(
                    f"Ray {ray_compat.ray.__version__}'s CSVLoggerCallback "
                    f"keeps no {name}, which softlearning uses so that a "
                    "resumed trial's progress.csv parses (written for Ray "
                    f"{ray_compat.CHECKED_ON}); install the Ray version of "
                    "requirements.txt.")

    def log_trial_result(self, iteration, trial, result):
        if trial not in self._trial_files:
            self._setup_trial(trial)
        if self._trial_csv[trial] is None and self._trial_continue[trial]:
            self._open_continued(trial, result)
        super().log_trial_result(iteration, trial, result)

    def _open_continued(self, trial, result):
        path = self._trial_files[trial].name
        self._trial_files[trial].close()
        header = _header(path)
        flat = dict(result)
        flat.pop('config', None)
        keys = list(flatten_dict(flat, delimiter='/'))
        columns = columns_for(header, keys)
        if columns is not None:
            rewrite_with_columns(path, columns)
            header = columns
        self._trial_files[trial] = open(path, 'a', newline='')
        # Rows are written under the file's header, in its order; a key the
        # result no longer has leaves its column empty.
        self._trial_csv[trial] = csv.DictWriter(
            self._trial_files[trial], header)
