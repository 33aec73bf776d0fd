"""Agents learning Pendulum-v1 through the real CLI, three seeds each; prints
one JSON object.

Each agent (an algorithm, or ALGORITHM+recurrent for its recurrent form)
runs its default Pendulum-v1 variant (10 epochs of 1,000 steps unless
--n-epochs, 1,000 uniform warm-up steps) for seeds 1, 2 and 3, two trials at
a time on two CPUs; with --pomdp every agent sees only the positions (cos,
sin) or only the angular velocity. Reported per algorithm and seed: the mean deterministic
evaluation return (5 episodes) after every epoch, and the first environment
step count at which it reached -250 (the pendulum swung up and balanced).
For scale, a uniformly random policy's return over 100 episodes (its mean
and its best episode) is reported too: a learning test's threshold must lie
above anything a random policy reaches.

    python benchmarks/pendulum_learning.py [--agents SQL SAC TD3 DDPG] [--seeds 1 2 3]
    python benchmarks/pendulum_learning.py --agents SAC SAC+recurrent --pomdp positions --n-epochs 15
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


def agent_options(agent, pomdp=None, n_epochs=None):
    """CLI options of 'SAC' or 'SAC+recurrent' (and of --pomdp/--n-epochs)."""
    algorithm, _, policy = agent.partition('+')
    options = ['--algorithm', algorithm]
    if policy:
        options += ['--policy', policy]
    if pomdp:
        options += ['--pomdp', pomdp]
    if n_epochs:
        options += ['--n-epochs', str(n_epochs)]
    return options


def run(agent, seeds, local_dir, pomdp=None, n_epochs=None):
    import pandas as pd
    command = [
        sys.executable, '-m', 'softlearning.cli',
        'run_example_local', 'examples.development',
        *agent_options(agent, pomdp, n_epochs),
        '--universe', 'gym', '--domain', 'Pendulum', '--task',
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
    parser.add_argument('--agents', nargs='+', default=['SQL', 'SAC'],
                        help='Algorithms, or ALGORITHM+recurrent.')
    parser.add_argument('--seeds', nargs='+', type=int, default=[1, 2, 3])
    parser.add_argument('--pomdp', choices=('positions', 'velocities'))
    parser.add_argument('--n-epochs', type=int, default=None)
    args = parser.parse_args()
    random_returns = random_policy_returns()
    result = {'benchmark': 'pendulum_learning', 'pomdp': args.pomdp,
              'random_policy_return': {
                  'mean': round(float(np.mean(random_returns)), 1),
                  'max': round(float(np.max(random_returns)), 1)}}
    for agent in args.agents:
        with tempfile.TemporaryDirectory() as local_dir:
            runs = run(agent, args.seeds, local_dir, args.pomdp,
                       args.n_epochs)
        finals = [r['eval_return'][-1] for r in runs.values()]
        result[agent] = {'runs': runs,
                             'final_eval_return_mean': round(
                                 float(np.mean(finals)), 1),
                             'final_eval_return_min': min(finals)}
    print(json.dumps(result))


if __name__ == '__main__':
    main()
