"""The learning tests' cases, in one place: what each case trains (an
example and its CLI options), for how many epochs of 1,000 steps, the
statistic its test asserts on, and the threshold.

tests/test_learning.py (and test_multi_goal.py) run them through the real
CLI on one seed, each case in its command's own process
(``run_example_debug --mode local --run-eagerly false``, which trains a
seed exactly as a Tune trial does); tests/calibrate_learning.py runs each
on ten or more seeds and keeps every seed's evaluation curve in
tests/calibration/learning.json;
tests/test_learning_calibration.py checks, in a second, that every
threshold lies below what all the calibrated seeds reached, with a margin.
Change a case (its command, budget, statistic or threshold) and that check
fails until the case is calibrated again:

    python tests/calibrate_learning.py CASE [CASE ...]

Why a margin and a statistic over several evaluations: a fixed seed gives
the same run on one machine, but not on another CPU (oneDNN picks its
kernels by instruction set, the last bits of a sum differ, and a few
thousand updates turn that into another run; docs/guide/checkpoints.md,
"Reproducibility").
So a seed stands for a draw from the distribution the calibration
measured, and the threshold must hold for nearly every draw.
"""

import math
import os

PENDULUM = ['examples.development', '--universe', 'gym', '--domain',
            'Pendulum', '--task', 'v1']
SMALL = ['--config', 'Q_params.config.hidden_layer_sizes=[64,64]',
         '--config', 'policy_params.config.hidden_layer_sizes=[64,64]']
# REDQ and DroQ at 3 updates per environment step instead of their presets'
# 20 (the policy and temperature every 3rd update, as the presets' every
# 20th: once per step), to keep CI short. REDQ keeps its ensemble of ten.
HIGH_UTD = ['--config', 'algorithm_params.config.n_train_repeat=3',
            '--config', 'algorithm_params.config.policy_delay=3']
# Minibatches of 64 for the costlier updates (REDQ, DroQ, FastTD3, FastSAC,
# CrossQ, SimbaV2): an update costs about half of one of 256 on a CPU core,
# and these learn Pendulum within an epoch of 256's (calibrated).
SMALL_BATCH = ['--config', 'algorithm_params.config.batch_size=64']
MULTI_GOAL = ['examples.multi_goal']
FETCH_REACH = ['examples.development', '--universe', 'gym', '--domain',
               'FetchReach', '--task', 'v4']

# For scale (benchmarks/pendulum_learning.py): a uniformly random policy's
# Pendulum-v1 return is about -1200, its best of 100 episodes about -750; a
# swung-up, balanced pendulum scores above -250. On MultiGoal random actions
# score about -700, and reaching a goal scores above -250.
RANDOM_PENDULUM_BEST = -750


# A threshold must lie this far below the worst calibrated score (of a
# return; a case may set its own), and the normal fit of the calibrated
# scores must put under this probability below it (a correct build should
# fail a learning test well under 1 in 100 runs).
MIN_MARGIN = 50
MAX_FAILURE_PROBABILITY = 1e-3

# What a case's score is read from: the progress.csv column, and the key of
# a calibrated seed's curve in calibration/learning.json.
METRICS = {'return': ('evaluation/return-mean', 'returns'),
           'success': ('evaluation/success-rate', 'successes')}


def case(command, epochs, threshold, window=2, env=None, metric='return',
         margin=None):
    """A learning case: ``command`` (example module and options), trained
    for ``epochs`` epochs of 1,000 steps; its score is the best of the last
    ``window`` evaluations of ``metric`` (the return, or the success rate
    of a goal-conditioned task), and its test asserts score >= threshold,
    which lies ``margin`` (default MIN_MARGIN, for returns) below every
    calibrated seed. ``env``: environment variables its command runs with,
    in the test and in the calibration."""
    return {'command': list(command), 'epochs': epochs,
            'threshold': threshold, 'window': window, 'env': dict(env or {}),
            'metric': metric,
            'margin': MIN_MARGIN if margin is None else margin}


def column(spec):
    """The progress.csv column a case is scored on."""
    return METRICS[spec['metric']][0]


def curve(spec, run):
    """A calibrated seed's curve of the case's metric."""
    return run[METRICS[spec['metric']][1]]


CASES = {
    # SAC and SQL with 64-64 networks: SAC learns Pendulum as fast as with
    # the preset's 256-256 (calibrated both ways), at a fraction of the
    # cost. 8 epochs and the best of the last 3: with 256-256, seed 302
    # (the flake check) was at -263 after 3 epochs, then dipped to -708,
    # -555 and -453 (a policy that swings up from most start states,
    # evaluated on three) before -157: at 5 epochs, best of 2, it failed a
    # case whose ten calibrated seeds were all above -211. SQL at 64-64
    # learns an epoch later than at 256-256 (6 epochs then).
    'SAC': case([*PENDULUM, '--algorithm', 'SAC', *SMALL], 8, -400, window=3),
    # The same in bfloat16 mixed precision (--precision): learning as
    # float32's, within this calibration. The override runs the bfloat16
    # code on CPUs that would emulate it (the numbers are bfloat16's either
    # way; only the speed differs). calibrate_learning.py --as-other-isa
    # cannot run it: with ONEDNN_MAX_CPU_ISA=AVX2 on a CPU that has
    # AVX512_BF16, TensorFlow still hands bfloat16 products to oneDNN,
    # which then has no kernel for them and aborts.
    'SAC bfloat16': case([*PENDULUM, '--algorithm', 'SAC', *SMALL,
                          '--precision', 'bfloat16'], 8, -400, window=3,
                         env={'SOFTLEARNING_ALLOW_BFLOAT16': '1'}),
    'SQL': case([*PENDULUM, '--algorithm', 'SQL', *SMALL], 7, -400),
    'TD3': case([*PENDULUM, '--algorithm', 'TD3', *SMALL], 8, -400),
    'DDPG': case([*PENDULUM, '--algorithm', 'DDPG', *SMALL], 6, -400),
    # 9 epochs, best of the last 3: the flake check's seed 401 scored -477
    # at 6 epochs (best of 2); calibrated seeds dip after learning too
    # (seed 7: -154, -888, -162).
    'TQC': case([*PENDULUM, '--algorithm', 'TQC', '--config',
                 'Q_params.config.n_Q_functions=2', *SMALL], 9, -400,
                window=3),
    'SAC 3-step': case([*PENDULUM, '--algorithm', 'SAC', '--n-step', '3',
                        *SMALL], 5, -400),
    'CrossQ': case([*PENDULUM, '--algorithm', 'CrossQ', *SMALL,
                    *SMALL_BATCH], 7, -400),
    # SimbaV2 with one block of 64 in the actor and the critics (the
    # preset: 128, and two blocks of 128 in the critics): the paper's
    # network, categorical critics, reward scaling, learning-rate decay and
    # discount (0.975 on Pendulum's 200 steps), at a CI's cost: every
    # calibrated seed past -400 by the 5th epoch, -245 or better at the 6th.
    'SimbaV2': case([*PENDULUM, '--algorithm', 'SimbaV2', '--config',
                     'Q_params.config.hidden_layer_sizes=[64]', '--config',
                     'policy_params.config.hidden_layer_sizes=[64]',
                     *SMALL_BATCH], 6, -400),
    # REDQ: compiled with XLA (its preset). With minibatches of 64 both
    # learn an epoch later than with 256 on some seeds (REDQ's seed 0 at
    # -578 and -944 after 3 and 4 epochs, -118 after 5; DroQ's seed 3 at
    # -506 and -573 after 2 and 3, -97 after 4), so 6 and 5 epochs keep
    # the spare one (with 256: 5 and 4).
    'REDQ': case([*PENDULUM, '--algorithm', 'REDQ', *HIGH_UTD, *SMALL,
                  *SMALL_BATCH], 6, -400),
    'DroQ': case([*PENDULUM, '--algorithm', 'DroQ', *HIGH_UTD, *SMALL,
                  *SMALL_BATCH], 5, -400),
    # FastTD3 and FastSAC with their presets' parts (categorical critics,
    # observation normalization, 3-step returns, two updates per step,
    # AdamW; FastTD3's per-episode exploration noise) on 64-64 networks
    # and minibatches of 64 (the presets: 512, wider networks). Calibrated
    # for 7 and 5 epochs: FastTD3's slowest seed (7) scores -612 at the
    # 3rd and -212 at the 4th (so 6 epochs); FastSAC's seed 7 -591, -358
    # and -220 at the 3rd to the 5th (so 5). (With minibatches of 256,
    # FastTD3's seed 3 was at -496 and -859 before -122 at the 6th.)
    'FastTD3': case([*PENDULUM, '--algorithm', 'FastTD3', *SMALL,
                     *SMALL_BATCH], 6, -400),
    'FastSAC': case([*PENDULUM, '--algorithm', 'FastSAC', *SMALL,
                     *SMALL_BATCH], 5, -400),
    # Pendulum-v1 observing cos/sin only: one observation does not tell
    # the angular velocity, a history does. The test asserts that the
    # recurrent agent learns and beats the feedforward one on the same
    # seed by POMDP_MARGIN.
    # Both with 64-64 MLPs (the recurrent preset's on Pendulum), so that the
    # LSTM is the one difference.
    'recurrent SAC (positions)': case(
        [*PENDULUM, '--algorithm', 'SAC', '--pomdp', 'positions',
         '--policy', 'recurrent'], 6, -500),
    'feedforward SAC (positions)': case(
        [*PENDULUM, '--algorithm', 'SAC', '--pomdp', 'positions', *SMALL],
        6, None),
    # Soft Q-learning's multimodal policy (test_multi_goal.py): its return,
    # and the goals its stochastic policy reaches (reaches_several_goals).
    'SQL multi-goal': case([*MULTI_GOAL, '--algorithm', 'SQL'], 8, -400),
    # SAC with hindsight relabeling (the Fetch preset: 'future', 4 goals per
    # real one) on FetchReach-v4's sparse reward, scored on the success
    # rate of the 10 evaluation episodes. A random policy's is about 0.05.
    # With 64-64 networks: an epoch costs a third of 256-256's, and the
    # calibrated seeds solve it an epoch or two later (by the 9th; 256-256's
    # by the 7th), so 12 epochs keep the slack 256-256 had at 10.
    'SAC+HER FetchReach': case(FETCH_REACH + ['--algorithm', 'SAC', *SMALL],
                               12, 0.8, metric='success', margin=0.1),
}
POMDP_MARGIN = 300


# The seed the tests train on; tests/flake_check.py sets
# SOFTLEARNING_TEST_SEED to run them on others.
LEARNING_SEED = 1


def learning_seed():
    return os.environ.get('SOFTLEARNING_TEST_SEED', str(LEARNING_SEED))


def score(returns, window):
    """The statistic a learning test asserts on: the best of the last
    ``window`` evaluation returns (one per epoch)."""
    return max(returns[-window:])


def case_score(spec, returns):
    """A case's score from an evaluation curve as long as its budget or
    longer: a shorter run is the start of a longer one
    (test_reproducibility.py), so a calibration run for more epochs also
    calibrates a shorter budget."""
    return score(returns[:spec['epochs']], spec['window'])


def normal_tail(scores, threshold):
    """P(score < threshold) under a normal fit of ``scores``: an estimate
    of how often a correct build fails the test (ten seeds cannot count a
    rate under 1 in 100; the fit extrapolates, and says so)."""
    n = len(scores)
    mean = sum(scores) / n
    std = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    if std == 0:
        return 0.0
    return 0.5 * math.erfc((mean - threshold) / (std * math.sqrt(2)))


# The multi-goal policy's goals ---------------------------------------------

def goals_reached(policy, n_episodes=100, seed=0):
    """How many of ``n_episodes`` stochastic episodes from the start state
    end at each goal."""
    import numpy as np
    from examples.multi_goal.multi_goal_env import GOALS, MultiGoalEnv
    env = MultiGoalEnv()
    counts = np.zeros(len(GOALS), int)
    for episode in range(n_episodes):
        observation, _ = env.reset(seed=seed + episode)
        for _ in range(30):
            action = policy.actions_np({'observations': observation[None]})[0]
            observation, _, terminated, _, info = env.step(action)
            if terminated:
                counts[info['goal']] += 1
                break
    return counts


# At least GOALS_AT_LEAST goals each reached in GOAL_SHARE of the episodes,
# and REACHED_SHARE of the episodes reaching one.
GOALS_AT_LEAST, GOAL_SHARE, REACHED_SHARE = 3, 0.1, 0.7


def reaches_several_goals(counts, n_episodes=100):
    counts = sorted(counts, reverse=True)
    return (counts[GOALS_AT_LEAST - 1] >= GOAL_SHARE * n_episodes
            and sum(counts) >= REACHED_SHARE * n_episodes)


def policy_of_checkpoint(checkpoint):
    """The stochastic policy a checkpoint folder holds."""
    from softlearning.analysis import policy_plot
    checkpoint_dir, variant, env = policy_plot.load_checkpoint(checkpoint)
    policy, _ = policy_plot.load_policy_and_Q(checkpoint_dir, variant, env)
    return policy
