"""Sampler actors with K environments each, against one environment each.

    python benchmarks/vector_actors.py [--address 127.0.0.1:6379]
        [--num-samplers 2] [--k 1 8] [--steps 16000]
        [--output benchmarks/results/vector/actors.json]

The remote sampler's actors (``--num-samplers``, one CPU each) step
HalfCheetah-v5 with SAC's policy (256-256, in numpy, the learner's weights
loaded every collect call as in training) and send their transitions to
this process's replay pool, in collect calls of 1,000 steps; environment
steps per second for each K. With ``--address`` the actors run on that Ray
cluster (e.g. two nodes started on the loopback address, the actors spread
over them); without, on a local Ray instance of ``--num-samplers`` CPUs.
This process never imports TensorFlow. Writes one JSON file and prints it.
"""

import argparse
import os

from softlearning.utils.machine import cpu_model
# (benchmarks/, beside this file) The same environment, policy and collect
# calls as the in-process measurement.
from vector_collection import ENVIRONMENT, POLICY, steps_per_second, write


def measure(num_samplers, k, n_steps):
    from softlearning import environments, samplers
    environment = environments.get_environment_from_params(ENVIRONMENT)
    sampler = samplers.get_from_variant({
        'environment_params': {'training': ENVIRONMENT},
        'policy_params': POLICY,
        'sampler_params': {'class_name': 'RemoteSampler', 'config': {
            'max_path_length': 1000, 'num_samplers': num_samplers,
            'sampler_cpus': 1, 'envs_per_sampler': k,
            # Spread over the cluster's nodes.
            'actor_options': {'scheduling_strategy': 'SPREAD'}}},
    }, seed=0)
    return steps_per_second(sampler, environment, n_steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--address', default=None)
    parser.add_argument('--num-samplers', type=int, default=2)
    parser.add_argument('--k', type=int, nargs='+', default=[1, 8])
    parser.add_argument('--steps', type=int, default=16000)
    parser.add_argument('--output',
                        default='benchmarks/results/vector/actors.json')
    args = parser.parse_args()
    os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
    import ray
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runtime_env = {'env_vars': {'PYTHONPATH': here}}
    if args.address:
        ray.init(address=args.address, runtime_env=runtime_env,
                 log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_samplers, include_dashboard=False,
                 runtime_env=runtime_env, log_to_driver=False)
    try:
        result = {'cpu': cpu_model(), 'environment': 'HalfCheetah-v5',
                  'policy': '256-256 (numpy)',
                  'cluster': args.address or 'local',
                  'nodes': len([n for n in ray.nodes() if n['Alive']]),
                  'num_samplers': args.num_samplers, 'steps': args.steps,
                  'steps_per_second': {}}
        for k in args.k:
            result['steps_per_second'][str(k)] = measure(
                args.num_samplers, k, args.steps)
            print(f"{args.num_samplers} actors x K = {k:>3}: "
                  f"{result['steps_per_second'][str(k)]:>8} steps/s",
                  flush=True)
    finally:
        ray.shutdown()
    write(result, args.output)


if __name__ == '__main__':
    main()
