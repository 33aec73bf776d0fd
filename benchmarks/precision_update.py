"""SAC's update in float32 and in bfloat16 mixed precision (--precision),
updates per second at several network widths; prints a table and writes
it (CSV and JSON) under --output-dir.

Setting: gymnasium HalfCheetah-v5's spaces, SAC's twin critics and its
policy all of two hidden layers of WIDTH units, the real fused update
(FusedUpdateAlgorithm: --fused-steps updates per compiled call) on
minibatches drawn beforehand from a pool of uniform warm-up steps, without
XLA (the default; --jit-compile true for it). The components are built
from the development example's variant as a training run builds them. The
two precisions are timed in alternation, one round of each at a time, so
drift in the machine's speed (shared virtual CPUs) affects both alike; each
figure is the median over --rounds rounds.

bfloat16 pays only where the hardware multiplies it (AVX512_BF16,
AMX-BF16, a GPU): elsewhere the script refuses, as --precision does
(algorithms/precision.py), unless SOFTLEARNING_ALLOW_BFLOAT16=1, and then
the rows say 'emulated' (they measure the conversions, not bfloat16).

    python benchmarks/precision_update.py [--widths 256 512 1024] \
        [--batch-sizes 256 1024]
"""

import argparse
import csv
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from softlearning.algorithms.precision import (  # noqa: E402
    machine_refusal, native_bfloat16)
from softlearning.models.precision import PRECISIONS  # noqa: E402
from softlearning.utils import machine  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT_DIR = os.path.join(REPOSITORY, 'benchmarks', 'results', 'precision')
WARMUP_STEPS = 2000
COLUMNS = ('width', 'batch_size', 'float32_updates_per_s',
           'bfloat16_updates_per_s', 'bfloat16_over_float32', 'bfloat16')


def build_runner(precision, width, batch_size, args):
    """An ExperimentRunner of SAC on HalfCheetah-v5 at ``width``, its pool
    holding WARMUP_STEPS uniform steps."""
    from softlearning import experiments
    from softlearning.experiments.trial.trainable import (
        ExperimentRunner, build_outside_tune)
    variant = experiments.sample_variant(experiments.variant_spec(
        algorithm='SAC', universe='gym', domain='HalfCheetah', task='v5',
        precision=precision, n_epochs=3, seed=args.seed, config={
            'algorithm_params.config.n_initial_exploration_steps':
                WARMUP_STEPS,
            'policy_params.config.hidden_layer_sizes': [width, width],
            'Q_params.config.hidden_layer_sizes': [width, width],
            'algorithm_params.config.batch_size': batch_size,
            'algorithm_params.config.jit_compile': args.jit_compile,
            'replay_pool_params.config.max_size': WARMUP_STEPS}))
    variant['run_params']['tf_num_threads'] = args.threads
    runner = build_outside_tune(ExperimentRunner, variant)
    runner.sampler.sample(WARMUP_STEPS, runner.initial_exploration_policy)
    return runner


def time_updates(runner, batches, calls):
    """Updates per second over ``calls`` fused calls, one per minibatch
    stack of ``batches`` (reused in turn)."""
    algorithm = runner.algorithm
    start = time.perf_counter()
    for i in range(calls):
        algorithm._do_training(batches[i % len(batches)])
    elapsed = time.perf_counter() - start
    return calls * len(batches[0]['actions']) / elapsed


def measure(width, batch_size, args):
    """{precision: median updates/s} at ``width`` and ``batch_size``."""
    runners = {precision: build_runner(precision, width, batch_size, args)
               for precision in PRECISIONS}
    pool = runners[PRECISIONS[0]].pool
    batches = [pool.random_batches(args.fused_steps, batch_size)
               for _ in range(4)]
    for runner in runners.values():
        time_updates(runner, batches, 1)  # traces the update
    rates = {precision: [] for precision in PRECISIONS}
    for _ in range(args.rounds):
        for precision, runner in runners.items():
            rates[precision].append(time_updates(runner, batches, args.calls))
    for runner in runners.values():
        runner.cleanup()
    return {precision: statistics.median(values)
            for precision, values in rates.items()}


def table(rows):
    lines = [f"{'width':>6} {'batch':>6} {'float32/s':>10} {'bfloat16/s':>11}"
             f" {'ratio':>6}  bfloat16"]
    lines += [f"{row['width']:>6} {row['batch_size']:>6} "
              f"{row['float32_updates_per_s']:>10.1f} "
              f"{row['bfloat16_updates_per_s']:>11.1f} "
              f"{row['bfloat16_over_float32']:>6.2f}  {row['bfloat16']}"
              for row in rows]
    return '\n'.join(lines)


def write(rows, info, output_dir):
    """benchmarks/results/precision/<cpu>.csv and .json (the rows, and what
    they were measured on)."""
    os.makedirs(output_dir, exist_ok=True)
    name = ''.join(c if c.isalnum() else '-' for c in info['cpu']).strip('-')
    path = os.path.join(output_dir, name.lower())
    with open(f'{path}.csv', 'w', newline='') as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    with open(f'{path}.json', 'w') as f:
        json.dump({**info, 'rows': rows}, f, indent=1)
    return path


def main():
    parser = argparse.ArgumentParser(
        prog='precision_update.py', description=__doc__.split('\n\n')[0])
    parser.add_argument('--widths', type=int, nargs='+',
                        default=[256, 512, 1024])
    parser.add_argument('--batch-sizes', type=int, nargs='+', default=[256])
    parser.add_argument('--fused-steps', type=int, default=50)
    parser.add_argument('--calls', type=int, default=10,
                        help='Fused calls per round (default: %(default)s).')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--jit-compile', choices=('false', 'true'),
                        default='false')
    parser.add_argument('--threads', type=int, default=os.cpu_count())
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--output-dir', default=OUTPUT_DIR)
    args = parser.parse_args()
    args.jit_compile = args.jit_compile == 'true'
    # Before TensorFlow, as the commands refuse it.
    refusal = machine_refusal('bfloat16 updates')
    if refusal:
        parser.exit(2, f'{parser.prog}: error: {refusal}\n')
    native = native_bfloat16(machine.read_cpuinfo(),
                             machine.nvidia_gpu_visible())
    rows = []
    for width in args.widths:
        for batch_size in args.batch_sizes:
            rates = measure(width, batch_size, args)
            rows.append({
                'width': width, 'batch_size': batch_size,
                'float32_updates_per_s': round(rates['float32'], 1),
                'bfloat16_updates_per_s': round(rates['bfloat16'], 1),
                'bfloat16_over_float32': round(
                    rates['bfloat16'] / rates['float32'], 3),
                'bfloat16': 'native' if native else 'emulated'})
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    info = {'benchmark': 'precision_update', 'algorithm': 'SAC',
            'environment': 'gym/HalfCheetah-v5',
            'fused_steps': args.fused_steps, 'calls': args.calls,
            'rounds': args.rounds, 'jit_compile': args.jit_compile,
            'tf_threads': args.threads, 'cpu': machine.cpu_model(),
            'native_bfloat16': native}
    path = write(rows, info, args.output_dir)
    print(table(rows))
    print(f'{path}.csv, {path}.json')


if __name__ == '__main__':
    main()
