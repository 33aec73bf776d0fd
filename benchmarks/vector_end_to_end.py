"""Training steps per second of every registered agent with one environment
per sampler and with K, end to end (benchmarks/throughput.py: HalfCheetah-v5,
one update per environment step, the agent's preset networks and batch).

    python benchmarks/vector_end_to_end.py [--k 1 8] [--steps 3000]
        [--cores 0 1] [--output benchmarks/results/vector/end_to_end.jsonl]

Each run is one process pinned to one core (``taskset``) with one
TensorFlow thread; ``--cores`` runs as many at once, one per core, so a
two-core machine measures two runs side by side (nothing else may run
meanwhile). Each finished run appends its JSON line to ``--output``; a run
already there is not run again, so an interrupted sweep resumes. The docs'
table (docs/vector_figures.py, ``vector-end-to-end``) reads that file.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(HERE)
sys.path.insert(0, REPOSITORY)

from softlearning.algorithms import ALGORITHMS  # noqa: E402

OUTPUT = os.path.join(HERE, 'results', 'vector', 'end_to_end.jsonl')


def done(output):
    """The (benchmark, K) pairs already measured in ``output``."""
    if not os.path.exists(output):
        return set()
    with open(output) as f:
        records = [json.loads(line) for line in f if line.strip()]
    return {(r['benchmark'], r['envs_per_sampler']) for r in records}


def command(algorithm, k, steps, core):
    return ['taskset', '-c', str(core), sys.executable,
            os.path.join(HERE, 'throughput.py'), '--algorithm', algorithm,
            '--envs-per-sampler', str(k), '--steps', str(steps),
            '--threads', '1']


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--algorithms', nargs='+', choices=tuple(ALGORITHMS),
                        default=tuple(ALGORITHMS))
    parser.add_argument('--k', type=int, nargs='+', default=(1, 8))
    parser.add_argument('--steps', type=int, default=3000)
    parser.add_argument('--cores', type=int, nargs='+', default=(0, 1))
    parser.add_argument('--output', default=OUTPUT)
    args = parser.parse_args()
    if any(k < 1 for k in args.k):
        parser.error(f'--k must be at least 1, got {args.k}.')

    finished = done(args.output)
    queue = [(a, k) for a in args.algorithms for k in args.k
             if (f'{a.lower()}_throughput', k) not in finished]
    print(f'{len(queue)} runs to measure, {len(args.cores)} at a time',
          flush=True)
    running = {}  # core -> (algorithm, k, process)
    failed = 0
    while queue or running:
        for core in args.cores:
            if core not in running and queue:
                algorithm, k = queue.pop(0)
                running[core] = (algorithm, k, subprocess.Popen(
                    command(algorithm, k, args.steps, core), cwd=REPOSITORY,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    text=True))
        for core, (algorithm, k, process) in list(running.items()):
            if process.poll() is None:
                continue
            del running[core]
            lines = process.stdout.read().strip().splitlines()
            if process.returncode or not lines:
                print(f'{algorithm} K={k}: failed (exit {process.returncode})',
                      file=sys.stderr, flush=True)
                failed += 1
                continue
            record = json.loads(lines[-1])
            with open(args.output, 'a') as f:
                f.write(json.dumps(record) + '\n')
            print(f"{algorithm} K={k}: {record['env_steps_per_s']:,.1f} "
                  'steps/s', flush=True)
        if running:
            time.sleep(1)
    if failed:
        sys.exit(f'{failed} runs failed; run the command again to retry them.')


if __name__ == '__main__':
    main()
