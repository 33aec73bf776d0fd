"""What a trial's agent observed, chunk by chunk of its saved replay pool:
for each observation entry (key), the largest magnitude any of its numbers
reached, and the 99.9th percentile over the chunk's steps of each step's
largest magnitude (what all but one step in a thousand stay below); the
chunk's mean reward and the share of its action entries at the bounds
(|a| > 0.99). Writes a small CSV to commit beside the trial's results.

    python benchmarks/observation_ranges.py TRIAL_DIR/replay_pool \
        benchmarks/results/frontier_hard/observations/CrossQ-dog-run-seed0.csv

A trial saves its pool with ``--checkpoint-replay-pool True`` (a benchmark
suite's trials do), in chunks of the steps collected between checkpoints.
"""

import argparse
import csv
import glob
import os
import pickle

import numpy as np


def chunk_rows(path):
    """One row per observation key of the pool chunk at ``path``."""
    with open(path, 'rb') as f:
        chunk = pickle.load(f)
    samples = chunk['samples']
    common = {
        'first_step': chunk['start_total'] + 1,
        'last_step': chunk['end_total'],
        'reward_mean': float(np.mean(samples['rewards'])),
        'actions_at_bounds': float(np.mean(np.abs(samples['actions']) > 0.99)),
    }
    rows = []
    for key, values in sorted(samples['observations'].items()):
        magnitudes = np.abs(np.asarray(values, np.float64))
        per_step = magnitudes.reshape(len(magnitudes), -1).max(axis=1)
        rows.append({**common, 'key': key,
                     'max_abs': float(magnitudes.max()),
                     'p99.9_step_max_abs': float(np.percentile(per_step,
                                                               99.9))})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('pool', help="a trial's replay_pool folder")
    parser.add_argument('output', help='the CSV file to write')
    args = parser.parse_args(argv)
    chunks = sorted(glob.glob(os.path.join(args.pool, '*.pkl')))
    if not chunks:
        parser.exit(2, f"error: no replay pool chunks (*.pkl) in "
                       f"{args.pool}\n")
    rows = [row for path in chunks for row in chunk_rows(path)]
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: (f'{value:.6g}' if isinstance(value, float)
                                   else value) for key, value in row.items()})
    print(f"{len(chunks)} chunks, {len(rows)} rows -> {args.output}")


if __name__ == '__main__':
    main()
