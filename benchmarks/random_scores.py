"""The return of a uniform random policy on the benchmark tasks, under the
benchmark's evaluation protocol; prints one JSON object.

These are the ``random`` figures of softlearning/analysis/reference_scores.py
(a normalized score of 0). The protocol: for each task, 10 episodes whose
resets are seeded 1000, 1001, ..., 1009; every action is drawn uniformly
from the action space's box by one numpy Generator seeded 0 (shared by the
task's episodes, in order); each episode runs until it terminates or the
environment's TimeLimit truncates it (dm_control: its 1,000 frames,
each action repeated twice as in the frontier_hard suite). The figure is
the mean of the 10 undiscounted returns.

    python benchmarks/random_scores.py [--episodes 10] [--first-seed 1000]
"""

import argparse
import json

import numpy as np

TASKS = {
    'gym/HalfCheetah/v5': 'HalfCheetah-v5',
    'gym/Hopper/v5': 'Hopper-v5',
    'gym/Walker2d/v5': 'Walker2d-v5',
    'gym/Pendulum/v1': 'Pendulum-v1',
    # gymnasium-robotics (pip install softlearning[robotics]).
    'gym/FetchReach/v4': 'FetchReach-v4',
    'gym/FetchPush/v4': 'FetchPush-v4',
    'gym/Humanoid/v5': 'Humanoid-v5',
    # dm_control, each action repeated twice (the frontier_hard suite's).
    'dm_control/dog/run': 'dm_control/dog-run',
    'dm_control/humanoid/run': 'dm_control/humanoid-run',
}
DM_CONTROL_ACTION_REPEAT = 2


def episode_return(environment, rng, seed):
    environment.reset(seed=seed)
    space = environment.action_space
    total = 0.0
    while True:
        # Drawn by our Generator, not action_space.sample(), so that the
        # actions depend on the stated seed alone.
        action = rng.uniform(space.low, space.high).astype(space.dtype)
        _, reward, terminated, truncated, _ = environment.step(action)
        total += float(reward)
        if terminated or truncated:
            return total


def random_score(gym_id, episodes, first_seed, action_seed):
    import gymnasium as gym
    if gym_id.startswith('dm_control/'):
        from softlearning.environments.adapters.dm_control_gymnasium import (
            gymnasium_environment, parse_id)
        return returns_of(gymnasium_environment(
            *parse_id(gym_id), action_repeat=DM_CONTROL_ACTION_REPEAT),
            episodes, first_seed, action_seed)
    if gym_id.startswith('Fetch'):
        from softlearning.environments.adapters.robotics import (
            register_robotics_environments)
        register_robotics_environments()
    return returns_of(gym.make(gym_id), episodes, first_seed, action_seed)


def returns_of(environment, episodes, first_seed, action_seed):
    rng = np.random.default_rng(action_seed)
    try:
        returns = [episode_return(environment, rng, first_seed + i)
                   for i in range(episodes)]
    finally:
        environment.close()
    return {'mean': float(np.mean(returns)), 'std': float(np.std(returns)),
            'returns': returns}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--episodes', type=int, default=10)
    parser.add_argument('--first-seed', type=int, default=1000)
    parser.add_argument('--action-seed', type=int, default=0)
    parser.add_argument('--tasks', nargs='+', default=list(TASKS),
                        choices=list(TASKS))
    args = parser.parse_args()
    scores = {task: random_score(TASKS[task], args.episodes,
                                 args.first_seed, args.action_seed)
              for task in args.tasks}
    print(json.dumps({
        'benchmark': 'random_scores', 'episodes': args.episodes,
        'first_seed': args.first_seed, 'action_seed': args.action_seed,
        'scores': scores}, indent=2))


if __name__ == '__main__':
    main()
