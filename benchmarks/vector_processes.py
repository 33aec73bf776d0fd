"""Collection with K environments per sampler stepped in the sampler's
process (``--vector-mode sync``) against all but the first in processes of
their own (``async``), on a cheap simulation and an expensive one.

    python benchmarks/vector_processes.py [--steps 5000] [--k 1 2 4]
        [--output benchmarks/results/vector/processes.json]

For each environment (HalfCheetah-v5; dm_control's dog-run with the hard
suite's action repeat of 2) and each K, the in-process sampler with SAC's
policy (256-256, acting in numpy) adds ``--steps`` transitions to a replay
pool, as ``vector_collection.py`` times it; environment steps per second
for each mode. The process may use the cores in ``--cores`` (default: all
of this machine's); a child process of ``async`` runs where the operating
system puts it within them. Run it on a quiet machine.
"""

import argparse
import os

from softlearning.utils.machine import cpu_model

from vector_collection import steps_per_second, write

ENVIRONMENTS = {
    'HalfCheetah-v5': {'universe': 'gym', 'domain': 'HalfCheetah',
                       'task': 'v5'},
    'dog-run (action repeat 2)': {'universe': 'dm_control', 'domain': 'dog',
                                  'task': 'run',
                                  'kwargs': {'action_repeat': 2}},
}


def collection(params, k, mode, n_steps):
    from softlearning import environments, samplers
    environment = environments.get_environment_from_params(params)
    sampler = samplers.SimpleSampler(
        max_path_length=1000, seed=0, envs_per_sampler=k,
        environment_params=params, vector_mode=mode)
    return steps_per_second(sampler, environment, n_steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=5000)
    parser.add_argument('--k', type=int, nargs='+', default=[1, 2, 4])
    parser.add_argument('--cores', type=int, nargs='+', default=None)
    parser.add_argument('--output',
                        default='benchmarks/results/vector/processes.json')
    args = parser.parse_args()
    cores = set(args.cores or range(os.cpu_count()))
    os.sched_setaffinity(0, cores)  # (children inherit it)
    from softlearning.samplers.vector_stepper import single_threaded_blas
    single_threaded_blas()
    result = {'cpu': cpu_model(), 'cores': len(cores),
              'policy': '256-256 (numpy)', 'collection_steps': args.steps,
              'steps_per_second': {}}
    for name, params in ENVIRONMENTS.items():
        rates = result['steps_per_second'][name] = {}
        for k in args.k:
            for mode in ('sync', 'async') if k > 1 else ('sync',):
                rates[f'K={k} {mode}'] = collection(params, k, mode,
                                                     args.steps)
                print(f"{name}: K = {k} {mode:>5}: "
                      f"{rates[f'K={k} {mode}']:>8} steps/s", flush=True)
    write(result, args.output)


if __name__ == '__main__':
    main()
