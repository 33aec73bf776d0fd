"""A peer run's trial folder, as benchmarks/peers.py writes it and
softlearning's analysis reads it: params.json, progress.csv (one row per
evaluation, softlearning's column names), the checkpoint of the run's
latest evaluation, resumes.txt and a failed run's error.txt.

Standard library only: the peer worker (peer_worker.py) imports this in
the peer library's interpreter, where softlearning is not installed; the
host side (peers.py) imports it in softlearning's.
"""

import csv
import json
import math
import os
import shutil

PARAMS_FILE = 'params.json'
PROGRESS_FILE = 'progress.csv'
ERROR_FILE = 'error.txt'
STDERR_FILE = 'stderr.txt'
# A run's checkpoint: the peer's model and replay buffer at its latest
# evaluation, and CHECKPOINT_FILE saying which (written last: a checkpoint
# exists once it does). Removed when the run finishes.
CHECKPOINT_DIR = 'checkpoint'
CHECKPOINT_FILE = 'checkpoint.json'
# One line per resume: at which step a run continued from its checkpoint.
RESUMES_FILE = 'resumes.txt'

# What a complete row holds (runs written before training_seconds
# existed lack that column).
REQUIRED_COLUMNS = (
    'epoch', 'total_timestep',
    'evaluation/return-mean', 'evaluation/return-std',
    'evaluation/return-min', 'evaluation/return-max',
    'evaluation/episode-length-mean', 'evaluation/episode-length-min',
    'evaluation/episode-length-max', 'evaluation/episodes',
    'time_total_s', 'timesteps_per_second',
    'times/epoch', 'times/evaluation',
)
# Seconds spent collecting and training (evaluations and checkpoints not
# counted), as softlearning's column: the axis of per-hour reports.
# And the CPU the run's timings were measured on (softlearning's column).
PROGRESS_COLUMNS = REQUIRED_COLUMNS + ('training_seconds', 'cpu')
# Where the environment reports successes (``info['is_success']``, the
# goal-conditioned tasks): the fraction of the evaluation's episodes that
# ended in one, softlearning's column. Other runs' files are without it.
SUCCESS_COLUMN = 'evaluation/success-rate'


def write_params(folder, params):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, PARAMS_FILE), 'w') as f:
        json.dump(params, f, indent=2, sort_keys=True)


def evaluation_row(epoch, total_timestep, returns, lengths, time_total_s,
                   epoch_seconds, evaluation_seconds, epoch_steps,
                   training_seconds=None, cpu=None, successes=None):
    """One progress.csv row (softlearning's column names; standard
    deviation over the episodes with ddof 0, as softlearning's); with
    ``successes`` (each episode's, None where not reported) the success
    rate over the episodes that reported one."""
    n = len(returns)
    mean = sum(returns) / n
    reported = [float(s) for s in successes or () if s is not None]
    success = ({SUCCESS_COLUMN: sum(reported) / len(reported)}
               if reported else {})
    return {
        'epoch': epoch,
        'total_timestep': total_timestep,
        'evaluation/return-mean': mean,
        'evaluation/return-std': math.sqrt(
            sum((r - mean) ** 2 for r in returns) / n),
        'evaluation/return-min': min(returns),
        'evaluation/return-max': max(returns),
        'evaluation/episode-length-mean': sum(lengths) / n,
        'evaluation/episode-length-min': min(lengths),
        'evaluation/episode-length-max': max(lengths),
        'evaluation/episodes': n,
        'time_total_s': time_total_s,
        'timesteps_per_second': epoch_steps / epoch_seconds,
        'times/epoch': epoch_seconds,
        'times/evaluation': evaluation_seconds,
        'training_seconds': training_seconds,
        'cpu': cpu,
        **success,
    }


class ProgressWriter:
    """progress.csv, started afresh with ``columns`` (or continued,
    ``append``); each row appended and flushed as it comes, so a killed
    run leaves a readable file."""

    def __init__(self, folder, append=False, columns=PROGRESS_COLUMNS):
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, PROGRESS_FILE)
        if append and os.path.isfile(path):
            # Continued under the file's own header (an older run's lacks
            # training_seconds).
            columns = _header(path) or columns
        self._file = open(path, 'a' if append else 'w', newline='')
        self._writer = csv.DictWriter(self._file, columns,
                                      extrasaction='ignore')
        if not append:
            self._writer.writeheader()
        self._file.flush()

    def write(self, row):
        self._writer.writerow(row)
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self):
        self._file.close()


def _header(path):
    """progress.csv's columns; None if it has none."""
    with open(path, newline='') as f:
        return next(csv.reader(f), None)


def complete_rows(folder):
    """[(total_timestep, row)] of progress.csv's complete rows (not those
    cut short by a kill); [] without the file."""
    try:
        with open(os.path.join(folder, PROGRESS_FILE), newline='') as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return []
    complete = []
    for row in rows:
        if any(row.get(column) in (None, '') for column in REQUIRED_COLUMNS):
            continue
        try:
            complete.append((int(float(row['total_timestep'])), row))
        except ValueError:
            continue
    return complete


def last_timestep(folder):
    """The total_timestep of progress.csv's last row; None without one."""
    rows = complete_rows(folder)
    return rows[-1][0] if rows else None


def run_status(folder, steps, training_seconds=None):
    """'finished' (params.json, a progress.csv reaching ``steps``, or with
    a budget its ``training_seconds``, and no error.txt), 'unfinished'
    (what a run that stopped before left) or 'new'."""
    if not os.path.isdir(folder) or not os.listdir(folder):
        return 'new'
    rows = complete_rows(folder)
    last = rows[-1] if rows else None
    reached = last is not None and (last[0] >= steps or (
        training_seconds is not None
        and float(last[1].get('training_seconds') or 0) >= training_seconds))
    if (os.path.isfile(os.path.join(folder, PARAMS_FILE))
            and not os.path.exists(os.path.join(folder, ERROR_FILE))
            and reached):
        return 'finished'
    return 'unfinished'


def clear_run(folder):
    """Removes what an unfinished run left, checkpoint included: it starts
    over."""
    for name in (PROGRESS_FILE, PARAMS_FILE, ERROR_FILE, STDERR_FILE,
                 RESUMES_FILE):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            os.remove(path)
    remove_checkpoint(folder)


def read_checkpoint(folder):
    """The run's checkpoint record ({'total_timestep', 'epoch',
    'time_total_s', 'model', 'replay_buffer'}: the last two file names in
    CHECKPOINT_DIR), or None if it has no complete one."""
    directory = os.path.join(folder, CHECKPOINT_DIR)
    try:
        with open(os.path.join(directory, CHECKPOINT_FILE)) as f:
            record = json.load(f)
        files = [record['model'], record['replay_buffer']]
        int(record['total_timestep'])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(os.path.isfile(os.path.join(directory, name))
               for name in files):
        return None
    return record


def remove_checkpoint(folder):
    shutil.rmtree(os.path.join(folder, CHECKPOINT_DIR), ignore_errors=True)


def resumable(folder, params):
    """The checkpoint record if the unfinished run in ``folder`` can go on
    from it: same params.json (settings and library versions) and a
    progress.csv reaching the checkpoint's step; else None."""
    record = read_checkpoint(folder)
    if record is None:
        return None
    try:
        with open(os.path.join(folder, PARAMS_FILE)) as f:
            if json.load(f) != json.loads(json.dumps(params)):
                return None
    except (OSError, ValueError):
        return None
    timestep = last_timestep(folder)
    if timestep is None or timestep < int(record['total_timestep']):
        return None
    return record


def rewind_progress(folder, timestep):
    """Keeps progress.csv's complete rows up to ``timestep`` (the
    checkpoint's): the resumed run writes the later ones again."""
    path = os.path.join(folder, PROGRESS_FILE)
    rows = [row for step, row in complete_rows(folder) if step <= timestep]
    # Today's columns, and the file's others (a goal-conditioned run's
    # SUCCESS_COLUMN).
    header = (_header(path) if os.path.isfile(path) else None) or ()
    columns = PROGRESS_COLUMNS + tuple(column for column in header
                                       if column not in PROGRESS_COLUMNS)
    with open(path + '.tmp', 'w', newline='') as f:
        writer = csv.DictWriter(f, columns, extrasaction='ignore')
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + '.tmp', path)


def normalization_summary(normalizer):
    """What a VecNormalize has seen, in two numbers the checkpoint's record
    keeps so that a resumed run can tell it restored the same statistics:
    the observations counted and the sum of the running means (over every
    key of a Dict observation)."""
    statistics = normalizer.obs_rms
    if not isinstance(statistics, dict):
        statistics = {'': statistics}
    return {'count': float(next(iter(statistics.values())).count),
            'mean_sum': float(sum(s.mean.sum() for s in statistics.values()))}


def save_checkpoint(model, folder, record, normalizer=None):
    """The model and its replay buffer at ``record['total_timestep']``
    (and the VecNormalize ``normalizer``'s statistics, if any, with their
    summary); the record is written last, then older files are removed."""
    directory = os.path.join(folder, CHECKPOINT_DIR)
    os.makedirs(directory, exist_ok=True)
    step = record['total_timestep']
    record = {**record, 'model': f'model-{step}.zip',
              'replay_buffer': f'replay_buffer-{step}.pkl'}
    if normalizer is not None:
        record['normalization'] = f'normalization-{step}.pkl'
        normalizer.save(os.path.join(directory, record['normalization']))
        record['normalization_summary'] = normalization_summary(normalizer)
    model.save(os.path.join(directory, record['model']))
    model.save_replay_buffer(os.path.join(directory, record['replay_buffer']))
    path = os.path.join(directory, CHECKPOINT_FILE)
    with open(path + '.tmp', 'w') as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + '.tmp', path)
    for name in os.listdir(directory):
        if name not in (CHECKPOINT_FILE, record['model'],
                        record['replay_buffer'], record.get('normalization')):
            os.remove(os.path.join(directory, name))
