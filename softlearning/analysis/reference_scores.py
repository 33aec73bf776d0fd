"""The reference scores that normalize each task's returns:

    normalized = (return - random) / (reference - random)

so that 0 is a uniform random policy and 1 the reference. Aggregates over
tasks (IQM, optimality gap, performance profiles) need scores on one scale;
compare reports only when they were normalized by the same table.

``random``: the mean undiscounted return of a uniform random policy under
the benchmark's evaluation protocol, measured with benchmarks/random_scores.py
(gymnasium 1.4.0, MuJoCo 3.17.0): 10 episodes whose resets are seeded
1000..1009, every action drawn uniformly from the action box by one numpy
Generator seeded 0, each episode run to termination or the environment's
TimeLimit (1,000 steps for the MuJoCo tasks, 200 for Pendulum).

``reference``: for HalfCheetah, Hopper and Walker2d, SAC's score after 1M
environment steps in Tianshou's MuJoCo benchmark (the SAC table of
examples/mujoco/README.md in github.com/thu-ml/tianshou): the maximum over
evaluations of the return averaged over 10 seeds, within the first 1M
steps, on the v3 versions of the tasks (gym 0.17.3, mujoco-py 2.0). It is
an optimistic figure for a single run's final return, on older versions
of the tasks (v5 runs on the MuJoCo bindings instead of mujoco-py); for
comparison, the same table reads about 10,400 / 3,370 / 3,740 off the SAC
paper's (Haarnoja et al. 2018) figures. Pendulum has no such published
1M-step figure: its reference is a round expert-level return, what a
well-trained policy reaches over random start states, not a published
number. FetchReach and FetchPush (gymnasium-robotics 1.4.2, 50-step
episodes, sparse rewards in [-50, 0]): rl-baselines3-zoo's benchmark table
(benchmark.md of github.com/DLR-RM/rl-baselines3-zoo), the mean episode
return of its SAC+HER after 20,000 steps and of its TQC+HER after 1,000,000,
on the v1 versions (mujoco-py). Humanoid and the dm_control dog-run and
humanoid-run (the frontier_hard suite; dm_control with each action
repeated twice, so 500 agent steps per 1,000-frame episode): MR.Q's
(Fujimoto et al. 2025) mean over 10 seeds at its last step count, from its
authors' result files (github.com/facebookresearch/MRQ, results/; read by
benchmarks/published_curves.py): Humanoid-v4 at 1M steps; dog-run and
humanoid-run at 500,000 agent steps (1M frames, action repeat 2).

Add a task here (its key is the benchmark's ``environment``, e.g.
'gym/Ant/v5') before reporting on it.
"""

import os

import numpy as np

from .results import ResultsError

REFERENCE_SCORES = {
    'gym/HalfCheetah/v5': {
        'random': -262.5,
        'reference': 12138.8,
        'source': 'SAC, 1M steps, Tianshou MuJoCo benchmark (HalfCheetah-v3)',
    },
    'gym/Hopper/v5': {
        'random': 30.1,
        'reference': 3542.2,
        'source': 'SAC, 1M steps, Tianshou MuJoCo benchmark (Hopper-v3)',
    },
    'gym/Walker2d/v5': {
        'random': 5.4,
        'reference': 5007.0,
        'source': 'SAC, 1M steps, Tianshou MuJoCo benchmark (Walker2d-v3)',
    },
    'gym/Pendulum/v1': {
        'random': -1326.8,
        'reference': -150.0,
        'source': 'round expert-level return (no published figure)',
    },
    # gymnasium-robotics' sparse Fetch tasks: -1 per step until the goal is
    # reached (50 steps). The random policy's FetchPush figure holds one
    # episode whose block starts at its goal (0).
    'gym/FetchReach/v4': {
        'random': -49.4,
        'reference': -1.66,
        'source': 'SAC+HER, 20k steps, rl-baselines3-zoo benchmark '
                  '(FetchReach-v1)',
    },
    'gym/FetchPush/v4': {
        'random': -44.8,
        'reference': -8.8,
        'source': 'TQC+HER, 1M steps, rl-baselines3-zoo benchmark '
                  '(FetchPush-v1)',
    },
    'gym/Humanoid/v5': {
        'random': 91.4,
        'reference': 10223.7,
        'source': 'MR.Q, 1M steps, its result files (Humanoid-v4)',
    },
    'dm_control/dog/run': {
        'random': 6.7,
        'reference': 569.3,
        'source': 'MR.Q, 500k agent steps (action repeat 2), its result '
                  'files',
    },
    'dm_control/humanoid/run': {
        'random': 1.2,
        'reference': 200.4,
        'source': 'MR.Q, 500k agent steps (action repeat 2), its result '
                  'files',
    },
}


def reference_scores(task, table=None):
    """The task's entry of the table; one clear error for a task it lacks."""
    table = REFERENCE_SCORES if table is None else table
    if task not in table:
        raise ResultsError(
            f"No reference scores for task '{task}': add its random and "
            f"reference returns to REFERENCE_SCORES in "
            f"{os.path.abspath(__file__)} (known: "
            f"{', '.join(sorted(table))}).")
    return table[task]


def normalize(task, returns, table=None):
    """Returns of ``task`` as normalized scores (0 random, 1 reference)."""
    entry = reference_scores(task, table)
    random, reference = entry['random'], entry['reference']
    return (np.asarray(returns, dtype=float) - random) / (reference - random)
