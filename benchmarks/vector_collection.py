"""Collection with K environments per sampler, and evaluation episodes as
one vector, on one core.

    python benchmarks/vector_collection.py [--steps 20000] [--k 1 4 16 64]
        [--episodes 10] [--output benchmarks/results/vector/collection.json]

Collection: the in-process sampler with K HalfCheetah-v5 environments and
SAC's policy (256-256, acting in numpy, stochastic, as in training) adds
``--steps`` transitions to a replay pool, in collect calls of 1,000 steps;
environment steps per second for each K. Evaluation: ``--episodes`` episodes
of 1,000 steps from seeds 0, 1, ... with the deterministic policy, one after
another (``rollouts``) and as one vector (``parallel_rollouts``), seconds
for each, and whether the returns agree to the last digit.

The process is pinned to one core (``--core``) and never imports
TensorFlow: a sampler acts in numpy. Run it on a quiet machine; it writes
one JSON file and prints it.
"""

import argparse
import json
import os
import time

import numpy as np

from softlearning.utils.machine import cpu_model

ENVIRONMENT = {'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5'}
POLICY = {'class_name': 'FeedforwardGaussianPolicy',
          'config': {'hidden_layer_sizes': (256, 256)}}
CALL_STEPS = 1000
PATH_LENGTH = 1000


def policy_for(environment, seed=0):
    from softlearning.policies.numpy_policies import get_numpy_policy
    return get_numpy_policy(POLICY, environment, seed=seed)


def collection(k, n_steps):
    from softlearning import environments, samplers
    environment = environments.get_environment_from_params(ENVIRONMENT)
    sampler = samplers.SimpleSampler(
        max_path_length=PATH_LENGTH, seed=0, envs_per_sampler=k,
        environment_params=ENVIRONMENT)
    return steps_per_second(sampler, environment, n_steps)


def steps_per_second(sampler, environment, n_steps):
    """``sampler``'s collection rate with SAC's policy into a replay pool,
    after a first call that starts it (actors up, every environment
    reset)."""
    from softlearning import replay_pools
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': n_steps + CALL_STEPS}},
                            environment)
    sampler.initialize(environment, policy_for(environment), pool)
    sampler.sample(CALL_STEPS)
    start = time.perf_counter()
    for _ in range(n_steps // CALL_STEPS):
        sampler.sample(CALL_STEPS)
    seconds = time.perf_counter() - start
    sampler.close()
    return round(n_steps // CALL_STEPS * CALL_STEPS / seconds, 1)


def evaluation(n_episodes):
    from softlearning import environments
    from softlearning.samplers import parallel_rollouts, rollouts
    copies = [environments.get_environment_from_params(ENVIRONMENT)
              for _ in range(n_episodes)]
    policy = policy_for(copies[0])
    times, returns = {}, {}
    with policy.set_deterministic():
        for name, run in (
                ('serial', lambda: rollouts(n_episodes, copies[0], policy,
                                            PATH_LENGTH, seed=0)),
                ('parallel', lambda: parallel_rollouts(
                    copies, policy, PATH_LENGTH, np.arange(n_episodes)))):
            start = time.perf_counter()
            paths = run()
            times[name] = round(time.perf_counter() - start, 2)
            returns[name] = [path['return'] for path in paths]
    return {'episodes': n_episodes, 'steps_per_episode': PATH_LENGTH,
            'seconds': times,
            'speed-up': round(times['serial'] / times['parallel'], 2),
            'same_returns': returns['serial'] == returns['parallel']}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=20000)
    parser.add_argument('--k', type=int, nargs='+', default=[1, 4, 16, 64])
    parser.add_argument('--episodes', type=int, default=10)
    parser.add_argument('--core', type=int, default=0)
    parser.add_argument('--output',
                        default='benchmarks/results/vector/collection.json')
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.core})
    from softlearning.samplers.vector_stepper import single_threaded_blas
    single_threaded_blas()  # for every K alike, as a sampler of K > 1 does
    result = {'cpu': cpu_model(), 'cores': 1,
              'environment': 'HalfCheetah-v5', 'policy': '256-256 (numpy)',
              'collection_steps': args.steps,
              'collection_steps_per_second': {}}
    for k in args.k:
        result['collection_steps_per_second'][str(k)] = collection(
            k, args.steps)
        print(f"K = {k:>3}: "
              f"{result['collection_steps_per_second'][str(k)]:>8} steps/s",
              flush=True)
    base = result['collection_steps_per_second'][str(args.k[0])]
    result['collection_speed-up'] = {
        k: round(value / base, 2)
        for k, value in result['collection_steps_per_second'].items()}
    result['evaluation'] = evaluation(args.episodes)
    write(result, args.output)


def write(result, path):
    """The result as a JSON file (its folder made), and printed."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as file:
        json.dump(result, file, indent=1)
        file.write('\n')
    print(json.dumps(result, indent=1))


if __name__ == '__main__':
    main()
