"""Copies the small files of benchmark trials (params.json, progress.csv)
into a folder kept in the repository, one folder per trial, so that
``softlearning report`` reads them without the checkpoints.

    python benchmarks/collect_results.py ~/ray_results/benchmarks/mujoco_100k \
        benchmarks/results/mujoco_100k/softlearning

Only finished trials (at their steps, or a per-hour suite's with their
budget spent) are copied unless ``--unfinished``; the trial folder
names lose Tune's trial id (SAC-Hopper-v5-seed0_e1e9d_00001 ->
SAC-Hopper-v5-seed0). A trial resumed from a checkpoint older than its last
row (its run was stopped between two of Tune's state saves) repeats the
epochs since that checkpoint in progress.csv; the copy keeps each epoch's
last row, once. Prints one JSON line per trial copied.
"""

import argparse
import csv
import json
import os
import shutil

from softlearning.analysis.benchmark_runs import final_score
from softlearning.analysis.results import ResultsError, load_trials


def copy_progress(source, destination):
    """Copies progress.csv with one row per epoch (its last), in order;
    returns the number of rows dropped."""
    with open(source, newline='') as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    last = {row['epoch']: row for row in rows}
    with open(destination, 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(sorted(last.values(),
                                key=lambda row: float(row['epoch'])))
    return len(rows) - len(last)


def collect(source, destination, unfinished=False):
    copied = []
    for trial in load_trials([source]):
        # Finished: it has its final score as ``softlearning report``
        # reads it (an evaluation at its steps or, in a per-hour suite, its
        # budget of training time spent).
        if not unfinished and final_score(trial)[0] is None:
            continue
        name = os.path.basename(trial.path).split('_')[0]
        target = os.path.join(destination, name)
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(os.path.join(trial.path, 'params.json'),
                        os.path.join(target, 'params.json'))
        repeated = copy_progress(os.path.join(trial.path, 'progress.csv'),
                                 os.path.join(target, 'progress.csv'))
        copied.append({'trial': name, 'from': trial.path,
                       **({'repeated_rows_dropped': repeated}
                          if repeated else {})})
    return copied


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('source', help='A benchmark experiment folder.')
    parser.add_argument('destination', help='Where the trial folders go.')
    parser.add_argument('--unfinished', action='store_true',
                        help='Also copy trials that have not finished.')
    args = parser.parse_args()
    try:
        copied = collect(os.path.expanduser(args.source), args.destination,
                         args.unfinished)
    except ResultsError as error:  # no trials there: one line
        parser.error(str(error))
    for line in copied:
        print(json.dumps(line))


if __name__ == '__main__':
    main()
