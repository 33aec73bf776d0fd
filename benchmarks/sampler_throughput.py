"""Collection throughput (environment steps per second) of the in-process
sampler versus the remote sampler with 1 and 2 Ray actors, on a cheap
state-based environment and an expensive pixel-rendering one.

    python benchmarks/sampler_throughput.py [--state-steps 4000]
        [--pixel-steps 400] [--cpus 2]

Prints one JSON object. Actors start before timing (their start-up is
reported separately). Both samplers act with the uniform policy and add
every transition to a replay pool, as in the warm-up.

This process never imports TensorFlow: with MUJOCO_GL=osmesa, rendering and
TensorFlow cannot share a process (see softlearning/environments/rendering.py).
The in-process sampler therefore acts with the numpy uniform policy, and the
actors, which are TensorFlow-free anyway, with their numpy policies. The
result reports ``tensorflow_imported`` to show it. In training the learner
does import TensorFlow, so there pixel observations must come from actors.
"""

import argparse
import json
import os
import sys
import time

ENVIRONMENTS = {
    'HalfCheetah-v5 (state)': {
        'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5',
        'kwargs': {}},
    'dm_control cheetah-run (84x84 pixels rendered every step)': {
        'universe': 'dm_control', 'domain': 'cheetah', 'task': 'run',
        'kwargs': {'render_observations': True,
                   'render_kwargs': {'width': 84, 'height': 84}}},
}
POLICY_PARAMS = {'class_name': 'FeedforwardGaussianPolicy',
                 'config': {'hidden_layer_sizes': (8,),
                            'observation_keys': None}}
EXPLORATION_PARAMS = {'class_name': 'UniformPolicy', 'config': {}}
CALL_STEPS = 100  # steps per sample() call, as fused_steps in training


def build(environment_params, num_samplers, max_size, seed=0):
    from softlearning import environments, replay_pools, samplers
    from softlearning.policies.numpy_policies import get_numpy_policy
    environment = environments.get_environment_from_params(environment_params)
    exploration = get_numpy_policy(EXPLORATION_PARAMS, environment, seed=seed)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': max_size}}, environment)
    if num_samplers == 0:
        sampler = samplers.SimpleSampler(max_path_length=1000, seed=seed)
    else:
        sampler = samplers.get_from_variant({
            'environment_params': {'training': environment_params},
            'policy_params': POLICY_PARAMS,
            'exploration_policy_params': EXPLORATION_PARAMS,
            'sampler_params': {'class_name': 'RemoteSampler', 'config': {
                'max_path_length': 1000, 'num_samplers': num_samplers,
                'sampler_cpus': 0.5}},
        }, seed=seed)
    sampler.initialize(environment, None, pool)
    return sampler, exploration


def measure(environment_params, num_samplers, n_steps):
    start = time.perf_counter()
    sampler, exploration = build(environment_params, num_samplers,
                                 max_size=n_steps + CALL_STEPS)
    sampler.sample(CALL_STEPS, exploration)  # actors up, first reset done
    startup = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(n_steps // CALL_STEPS):
        sampler.sample(CALL_STEPS, exploration)
    seconds = time.perf_counter() - start
    if num_samplers:
        sampler.close()
    return {'steps_per_second': round(n_steps / seconds, 1),
            'steps': n_steps, 'startup_seconds': round(startup, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--state-steps', type=int, default=4000)
    parser.add_argument('--pixel-steps', type=int, default=400)
    parser.add_argument('--cpus', type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
    backend = None
    if args.pixel_steps:
        # Before MuJoCo is imported here and before Ray starts the actors,
        # which inherit the backend.
        from softlearning.environments.rendering import (
            configure_offscreen_rendering)
        backend = configure_offscreen_rendering()
    import ray
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             runtime_env={'env_vars': {'PYTHONPATH': here,
                                       'TF_CPP_MIN_LOG_LEVEL': '2'}})
    results = {'cpus': args.cpus, 'steps_per_call': CALL_STEPS,
               'mujoco_gl': backend}
    try:
        for (name, params), n_steps in zip(
                ENVIRONMENTS.items(), (args.state_steps, args.pixel_steps)):
            if n_steps == 0:
                continue
            results[name] = {
                label: measure(params, num_samplers, n_steps)
                for label, num_samplers in (('in-process', 0),
                                            ('remote, 1 actor', 1),
                                            ('remote, 2 actors', 2))}
    finally:
        ray.shutdown()
    results['tensorflow_imported'] = 'tensorflow' in sys.modules
    print(json.dumps(results))


if __name__ == '__main__':
    main()
