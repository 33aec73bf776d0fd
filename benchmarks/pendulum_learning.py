"""SQL and SAC learning Pendulum-v1 through the real CLI, three seeds each;
prints one JSON object.

Each algorithm runs its default Pendulum-v1 variant (10 epochs of 1,000
steps, 1,000 uniform warm-up steps) for seeds 1, 2 and 3, two trials at a
time on two CPUs. Reported per algorithm and seed: the mean deterministic
evaluation return (5 episodes) after every epoch, and the first environment
step count at which it reached -250 (the pendulum swung up and balanced).
For scale, a uniformly random policy's return over 100 episodes (its mean
and its best episode) is reported too: a learning test's threshold must lie
above anything a random policy reaches.

    python benchmarks/pendulum_learning.py [--algorithms SQL SAC] [--seeds 1 2 3]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)
SOLVED = -250.0


def random_policy_returns(n_episodes=100):
    from softlearning.environments import get_environment
    environment = get_environment('gym', 'Pendulum', 'v1')
    rng = np.random.default_rng(0)
    returns = []
    for episode in range(n_episodes):
        environment.reset(seed=episode)
        total = 0.0
        for _ in range(200):
            step = environment.step(rng.uniform(-1, 1, (1,)).astype(
                np.float32))
            total += float(step[1])
        returns.append(total)
    return returns


def run(algorithm, seeds, local_dir):
    import pandas as pd
    command = [
        sys.executable, '-m', 'softlearning.scripts.console_scripts',
        'run_example_local', 'examples.development', '--algorithm',
        algorithm, '--universe', 'gym', '--domain', 'Pendulum', '--task',
        'v1', '--local-dir', local_dir, '--cpus', '2', '--trial-cpus', '1',
        '--verbose', '0', '--config',
        'run_params.seed=' + json.dumps({'grid_search': list(seeds)})]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True,
                            text=True,
                            env={**os.environ, 'PYTHONPATH': REPO_ROOT})
    if result.returncode:
        raise RuntimeError(result.stderr[-3000:])
    runs = {}
    for path in glob.glob(os.path.join(local_dir, '**', 'progress.csv'),
                          recursive=True):
        progress = pd.read_csv(path)
        with open(os.path.join(os.path.dirname(path), 'params.json')) as f:
            seed = json.load(f)['run_params']['seed']
        returns = progress['evaluation/return-mean'].round(1).tolist()
        steps = progress['total_timestep'].tolist()
        solved = [s for s, r in zip(steps, returns) if r >= SOLVED]
        runs[seed] = {'steps': steps, 'eval_return': returns,
                      'first_step_at_or_above_-250': solved[0] if solved
                      else None,
                      'seconds': round(float(progress['time_total_s'].iloc[-1]), 1)}
    return dict(sorted(runs.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--algorithms', nargs='+', default=['SQL', 'SAC'])
    parser.add_argument('--seeds', nargs='+', type=int, default=[1, 2, 3])
    args = parser.parse_args()
    random_returns = random_policy_returns()
    result = {'benchmark': 'pendulum_learning',
              'random_policy_return': {
                  'mean': round(float(np.mean(random_returns)), 1),
                  'max': round(float(np.max(random_returns)), 1)}}
    for algorithm in args.algorithms:
        with tempfile.TemporaryDirectory() as local_dir:
            runs = run(algorithm, args.seeds, local_dir)
        finals = [r['eval_return'][-1] for r in runs.values()]
        result[algorithm] = {'runs': runs,
                             'final_eval_return_mean': round(
                                 float(np.mean(finals)), 1),
                             'final_eval_return_min': min(finals)}
    print(json.dumps(result))


if __name__ == '__main__':
    main()
