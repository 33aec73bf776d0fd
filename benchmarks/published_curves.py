"""Published learning curves that the hard-task suite (frontier_hard) is
read against: MR.Q's (Fujimoto et al. 2025) mean evaluation return over its
10 seeds at every step count it reports, from the result files of its
authors' repository (github.com/facebookresearch/MRQ, results/*.txt).

    git clone https://github.com/facebookresearch/MRQ /tmp/MRQ
    python benchmarks/published_curves.py /tmp/MRQ \\
        > benchmarks/results/published_curves/mrq.csv

MR.Q's tasks: Humanoid-v4 (gymnasium; 1M steps) and the dm_control suite
with an action repeat of 2 (its steps are agent steps: 500,000 are 1M
frames). Our suite's tasks map to them in TASKS.
"""

import argparse
import csv
import os
import sys

import numpy as np

# softlearning's benchmark environment -> (MR.Q's result file, its name).
TASKS = {
    'gym/Humanoid/v5': ('gym_results.txt', 'Gym-Humanoid-v4'),
    'dm_control/dog/run': ('dmc_results.txt', 'Dmc-dog-run'),
    'dm_control/humanoid/run': ('dmc_results.txt', 'Dmc-humanoid-run'),
}
COLUMNS = ('environment', 'source_task', 'steps', 'mean', 'std', 'seeds')


def read_blocks(path):
    """{task name: [[step, return of seed 0, seed 1, ...], ...]} of one of
    MR.Q's result files (blocks of 'Env: NAME', a header, then rows)."""
    with open(path) as f:
        text = f.read()
    blocks = {}
    for block in text.split('-' * 20):
        lines = [line for line in block.strip().splitlines() if line.strip()]
        if not lines or not lines[0].startswith('Env: '):
            continue
        name = lines[0][len('Env: '):].strip()
        blocks[name] = [[float(value) for value in line.split()]
                        for line in lines[2:]]
    return blocks


def curve_rows(repository):
    rows = []
    for environment, (filename, name) in TASKS.items():
        blocks = read_blocks(os.path.join(repository, 'results', filename))
        if name not in blocks:
            raise SystemExit(f"{filename}: no task '{name}' (it has "
                             f"{', '.join(sorted(blocks))})")
        for step, *returns in blocks[name]:
            rows.append({'environment': environment, 'source_task': name,
                         'steps': int(step),
                         'mean': round(float(np.mean(returns)), 1),
                         'std': round(float(np.std(returns)), 1),
                         'seeds': len(returns)})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('repository', help="a clone of facebookresearch/MRQ")
    args = parser.parse_args(argv)
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS,
                            lineterminator='\n')
    writer.writeheader()
    writer.writerows(curve_rows(args.repository))


if __name__ == '__main__':
    main()
