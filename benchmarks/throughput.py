"""Training throughput on gymnasium HalfCheetah-v5; prints one JSON object.

Setting: one gradient update per environment step (UTD 1), the algorithm's
default networks and batch (SAC, TD3, DDPG: 256-256, batch 256; SQL:
128-128, batch 128, 16 value and 16 kernel particles per state; recurrent
agents, --policy recurrent: an LSTM of 64 then 128-128, batch 32 windows of
8 burn-in + 16 trained steps), a 1e6 replay pool, 1,000 uniform warm-up
steps. The components are built from the development example's variant
exactly as a training run builds them.

- env_steps_per_s: end to end over --steps environment steps after warm-up
  and compilation: acting, env stepping, pool writes, minibatch sampling,
  updates and per-epoch diagnostics (evaluation episodes are off).
- updates_per_s: the same compiled update code on random minibatches from
  the same pool, without environment steps. The two are measured in
  alternation, an epoch of each at a time, so drift in the machine's speed
  (shared virtual CPUs) affects both alike.
- act_latency_us: one observation -> one action, as the sampler acts
  (carrying a recurrent policy's state).

    python benchmarks/throughput.py [--algorithm SQL] [--steps 5000] [--fused-steps 50] [--jit-compile True]
    python benchmarks/throughput.py --algorithm SAC --policy recurrent --pomdp positions
    python benchmarks/throughput.py --algorithm TQC --config Q_params.config.n_Q_functions=2
    python benchmarks/throughput.py --algorithm SAC --envs-per-sampler 8
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from softlearning.cli.options import key_value  # noqa: E402
from softlearning.algorithms import ALGORITHMS  # noqa: E402
from softlearning.algorithms.compilation import (  # noqa: E402,E501
    resolve_jit_compile)
from softlearning.utils.machine import cpu_model  # noqa: E402

EPOCH_LENGTH = 1000
WARMUP_STEPS = 1000


def build_runner(args):
    from softlearning import experiments
    from softlearning.experiments.trial.trainable import (
        ExperimentRunner, build_outside_tune)

    n_epochs = 2 + args.steps // EPOCH_LENGTH  # warm-up, compile, measured
    variant = experiments.sample_variant(experiments.variant_spec(
        algorithm=args.algorithm, universe='gym', domain='HalfCheetah',
        task='v5', policy=args.policy, pomdp=args.pomdp, n_epochs=n_epochs,
        epoch_length=EPOCH_LENGTH, seed=args.seed,
        envs_per_sampler=args.envs_per_sampler, config=dict(args.config)))
    config = variant['algorithm_params']['config']
    config.update({
        'n_initial_exploration_steps': WARMUP_STEPS,
        'n_train_repeat': 1,
        'train_every_n_steps': 1,
        'fused_steps': args.fused_steps,
        'eval_n_episodes': 0,
    })
    if args.jit_compile is not None:  # else the preset's (TQC: on)
        config['jit_compile'] = args.jit_compile
    variant['replay_pool_params']['config']['max_size'] = int(1e6)
    variant['run_params']['tf_num_threads'] = args.threads
    return build_outside_tune(ExperimentRunner, variant)


def measure(runner, fused_steps, batch_size):
    """End-to-end and update-only rates, measured in alternation (one
    epoch, then as many updates alone) so that drift in the machine's speed
    affects both alike."""
    algorithm, pool = runner.algorithm, runner.pool
    epochs = algorithm.train()
    next(epochs)  # warm-up with the uniform policy
    next(epochs)  # first updates: traces and compiles the update
    end_to_end_seconds = update_seconds = 0.0
    steps = updates = 0
    while True:
        start_steps = algorithm.total_timestep
        start = time.perf_counter()
        if next(epochs, None) is None:
            break
        end_to_end_seconds += time.perf_counter() - start
        epoch_steps = algorithm.total_timestep - start_steps
        steps += epoch_steps

        start = time.perf_counter()
        for _ in range(epoch_steps // fused_steps):
            algorithm._do_training(pool.random_batches(fused_steps,
                                                       batch_size))
        update_seconds += time.perf_counter() - start
        updates += epoch_steps // fused_steps * fused_steps
    return steps / end_to_end_seconds, updates / update_seconds


def measure_act_latency(runner, n=2000):
    policy = runner.policy
    observation = runner.training_environment.reset(seed=0)
    state = None
    for _ in range(100):
        _, state = policy.step(observation, state)
    start = time.perf_counter()
    for _ in range(n):
        _, state = policy.step(observation, state)
    return (time.perf_counter() - start) / n * 1e6


def str2bool(value):
    return value.lower() in ('1', 'true', 'yes', 'y', 't')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--algorithm', choices=tuple(ALGORITHMS),
                        default='SAC')
    parser.add_argument('--config', type=key_value, action='append',
                        default=[], metavar='KEY=VALUE',
                        help='A variant entry, as run_example_* takes it '
                             '(e.g. Q_params.config.n_Q_functions=2).')
    parser.add_argument('--policy', choices=('recurrent',), default=None,
                        help="The algorithm's recurrent form.")
    parser.add_argument('--pomdp', choices=('positions', 'velocities'),
                        default=None, help='Observe part of the state.')
    parser.add_argument('--steps', type=int, default=5000,
                        help='Measured environment steps (multiple of 1000).')
    parser.add_argument('--fused-steps', type=int, default=50)
    parser.add_argument('--envs-per-sampler', type=int, default=1)
    parser.add_argument('--jit-compile', type=str2bool, default=None,
                        help="XLA for the update (default: the algorithm's "
                             'preset: on for TQC, off otherwise).')
    parser.add_argument('--threads', type=int, default=os.cpu_count(),
                        help='TensorFlow intra/inter-op threads.')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    if args.steps < EPOCH_LENGTH or args.steps % EPOCH_LENGTH:
        parser.error(f'--steps must be a positive multiple of {EPOCH_LENGTH} '
                     f'(measured a whole epoch at a time), got {args.steps}.')

    runner = build_runner(args)
    config = runner._variant['algorithm_params']['config']
    env_steps_per_s, updates_per_s = measure(runner, args.fused_steps,
                                             config['batch_size'])
    result = {
        'benchmark': (f"{'recurrent_' if args.policy else ''}"
                      f"{args.algorithm.lower()}_throughput"),
        'environment': 'gym/HalfCheetah-v5' + (
            f' ({args.pomdp} only)' if args.pomdp else ''),
        'env_steps_per_s': round(env_steps_per_s, 1),
        'updates_per_s': round(updates_per_s, 1),
        'end_to_end_over_update_only': round(env_steps_per_s / updates_per_s, 3),
        'act_latency_us': round(measure_act_latency(runner), 1),
        'measured_env_steps': args.steps,
        'fused_steps': args.fused_steps,
        'envs_per_sampler': args.envs_per_sampler,
        'jit_compile': resolve_jit_compile(config.get('jit_compile', False)),
        'batch_size': config['batch_size'],
        'hidden_layer_sizes': list(
            runner._variant['policy_params']['config']['hidden_layer_sizes']),
        'lstm_units': runner._variant['policy_params']['config'].get(
            'lstm_units'),
        'sequence_steps': getattr(runner.pool, 'window', None),
        'tf_threads': args.threads,
        'cpu_count': os.cpu_count(),
        'cpu': cpu_model(),
    }
    print(json.dumps(result))


if __name__ == '__main__':
    main()
