"""The options that shape the variant: the environment, the algorithm and
its networks, partial observability, pixels, parallel sampling and the
curriculum (see option_types.py for what an Option holds; ``%(default)s``
in a help text is the default shown by --help)."""

from softlearning.environments import UNIVERSES
from softlearning.environments.partial_observation import PARTS

from softlearning.algorithms import ALGORITHMS
from softlearning.models.precision import DEFAULT_PRECISION, PRECISIONS
from softlearning.experiments.config import presets
from softlearning.experiments.config.option_types import (
    Option, boolean, key_value, non_negative_int, positive_float, positive_int)
from softlearning.experiments.config.presets import common as common_preset

ENVIRONMENT = 'environment'
VARIANT = 'algorithm and variant'
SAMPLING = 'parallel sampling and curriculum'
POMDP = 'partial observability'
PIXELS = 'pixels'


def environment_options():
    return [
        Option('universe', default='gym', choices=UNIVERSES,
               group=ENVIRONMENT, debug='the environment',
               help='Which environment suite (default: %(default)s).'),
        Option('domain', default='Pendulum', group=ENVIRONMENT,
               debug='the environment',
               help="Environment family, e.g. Pendulum, HalfCheetah (gym), "
                    "cheetah (dm_control), HalfCheetahBulletEnv (pybullet). "
                    "Default: %(default)s."),
        Option('task', default='v1', group=ENVIRONMENT,
               debug='the environment',
               help="Task within the domain, e.g. v1, v5 (gym), run "
                    "(dm_control), v0 (pybullet). Default: %(default)s."),
    ]


def variant_options():
    base = common_preset.VARIANT['algorithm_params']['config']
    return [
        Option('algorithm', default='SAC', choices=tuple(ALGORITHMS),
               group=VARIANT, debug='the variant'),
        # Without --policy, each algorithm trains its own (its preset's).
        Option('policy', choices=tuple(presets.POLICY_CLASSES),
               group=VARIANT, debug='the variant'),
        Option('n_epochs', type=positive_int, group=VARIANT,
               debug='the variant',
               help="Override the number of epochs (default: the domain's "
                    "preset, e.g. 10 for gym Pendulum; "
                    f"{base['n_epochs']} of 1000 steps for a domain without "
                    "one, the first "
                    f"{base['n_initial_exploration_steps']} steps random "
                    "warm-up, --config algorithm_params.config."
                    "n_initial_exploration_steps=N)."),
        Option('epoch_length', type=positive_int, group=VARIANT,
               debug='the variant',
               help='Override the environment steps per epoch.'),
        Option('max_path_length', type=positive_int, group=VARIANT,
               debug='the variant',
               help='Override the maximum episode length.'),
        Option('seed', type=int, group=VARIANT, debug='the variant',
               help='Fix the seed (default: each trial draws one).'),
        Option('n_step', type=positive_int, default=1, group=VARIANT,
               debug='the variant',
               help='n-step returns: targets sum N discounted rewards (cut '
                    'at terminations and truncations) before bootstrapping '
                    "(default: 1, or the preset's n: FastTD3's and "
                    "FastSAC's)."),
        Option('her', choices=('future', 'final', 'episode', 'off'),
               group=VARIANT, debug='the variant',
               help='Hindsight experience replay on goal-conditioned tasks '
                    '(observations with achieved_goal and desired_goal, '
                    'and compute_reward): minibatches relabel goals with '
                    'achieved ones of the same episode, 4 per real one '
                    '(--config replay_pool_params.config.relabeled_goals=K)'
                    ". Default: 'future' on gymnasium-robotics' Fetch "
                    "tasks, 'off' elsewhere."),
        Option('network', choices=('mlp', 'simba', 'simbav2'), group=VARIANT,
               debug='the variant',
               help="The actor's and critics' networks: 'simba' for SimBa's "
                    "residual blocks with running observation normalization, "
                    "'simbav2' for SimbaV2's hyperspherical ones; either "
                    "compiles the update with XLA where that is faster "
                    "(jit_compile 'auto': CPUs with AVX-512, GPUs) unless "
                    "the preset decides (default: the preset's, 'mlp')."),
        Option('precision', default=DEFAULT_PRECISION, choices=PRECISIONS,
               group=VARIANT, debug='the variant',
               help="What the learner's update computes in: float32, or "
                    "bfloat16 mixed precision (bfloat16 matrix products; "
                    "float32 weights, losses and optimizer state; acting "
                    "stays float32). It pays for wide networks (1024 "
                    "units) on CPUs with AVX512_BF16 or AMX-BF16, and is "
                    "refused where it would be emulated; see "
                    "docs/guide/precision.md (default: %(default)s)."),
        Option('config', type=key_value, default=[], repeatable=True,
               metavar='KEY=VALUE', group=VARIANT, debug='the variant',
               help='Override any variant entry by its dotted path, e.g. '
                    'algorithm_params.config.discount=0.98. VALUE is JSON; '
                    'a search space makes a sweep: {"grid_search": [...]}, '
                    '{"choice": [...]}, {"uniform": [low, high]}, '
                    '{"loguniform": [low, high]}, {"randint": [low, high]}.'
                    ' Repeatable.'),
        Option('mode', choices=('local', 'debug'), group=VARIANT,
               mode_defaults={'local': 'local', 'cluster': 'local',
                              'debug': 'debug'},
               debug="debug-sized epochs unless '--mode local'",
               help="'debug' shrinks epochs so bugs show in seconds "
                    "(default: 'debug' for run_example_debug, else "
                    "'local')."),
        Option('run_eagerly', type=boolean, group=VARIANT,
               debug='eager TensorFlow (default in debug mode)',
               help='Run TensorFlow functions eagerly (default: True in '
                    'debug mode, False otherwise).'),
        Option('deterministic_ops', type=boolean, group=VARIANT,
               debug="TensorFlow's op determinism",
               help="TensorFlow's op determinism "
                    '(tf.config.experimental.enable_op_determinism): for GPU'
                    ' trials, whose kernels otherwise sum in any order. On '
                    'CPUs a fixed seed already gives the same run on one '
                    'machine (default: False).'),
    ]


def sampling_options():
    return [
        Option('num_samplers', type=non_negative_int, default=0,
               group=SAMPLING, debug='sampler actors on a local Ray instance',
               help='Collect experience with N Ray actors, each with its '
                    'own environment (default: 0, collect in the trial\'s '
                    'own process).'),
        Option('envs_per_sampler', type=positive_int,
               group=SAMPLING, debug='the sampler',
               help='Environments each sampler steps as one vector, with '
                    'one batched policy call per step: the trial\'s own '
                    'sampler, or every sampler actor with --num-samplers '
                    '(default: the preset\'s; 1 but for FastTD3 and '
                    'FastSAC on MuJoCo, 8).'),
        Option('vector_mode', choices=('sync', 'async'), default='sync',
               group=SAMPLING, debug='the sampler',
               help='How a sampler steps its --envs-per-sampler '
                    'environments: \'sync\', one after the other in its '
                    'process; \'async\', all but the first in processes of '
                    'their own, stepping at once: for simulations that cost '
                    'more than a process round trip, with a core per '
                    'environment (default: %(default)s).'),
        Option('sampler_cpus', type=positive_float, group=SAMPLING,
               debug="the sampler actors' CPUs",
               help='CPUs reserved per sampler actor; counted in the '
                    'trial\'s resources (default: 1, or an equal share of '
                    'the CPUs the trainer leaves when 1 each does not '
                    'fit).'),
        Option('async_sampling', type=boolean, default=False, group=SAMPLING,
               debug='the sampler actors',
               help='Let sampler actors keep collecting while the learner '
                    'trains (policy lag of one collect call; default: '
                    '%(default)s).'),
        Option('curriculum', metavar='FILE', group=SAMPLING,
               debug='the variant',
               help='JSON file with an environment-parameter curriculum, '
                    'e.g. {"mass": {"iters": [0, 10], "range": [1.0, '
                    '1.5]}}; see docs/guide/curriculum.md and '
                    'examples/curriculum/.'),
    ]


def observation_options():
    return [
        Option('pomdp', choices=PARTS, group=POMDP, debug='the environment',
               help="Observe only the positions (a pendulum's angle, not "
                    "its angular velocity) or only the velocities of the "
                    "environment's state, in training and evaluation; for "
                    "recurrent agents (--policy recurrent). Known for gym "
                    "Pendulum and the MuJoCo locomotion tasks, dm_control "
                    "cartpole, pendulum, cheetah, walker, ... and the Bullet"
                    " locomotion tasks."),
        Option('pomdp_previous_action', type=boolean, default=False,
               group=POMDP, debug='the environment',
               help="With --pomdp: also observe the previous action "
                    "(default: %(default)s)."),
        Option('observation', default='state', choices=('state', 'pixels'),
               group=PIXELS, debug='the environment',
               help="What the agent observes: the simulator's state, or "
                    "rendered frames (SAC with a convolutional encoder; "
                    "dm_control or gymnasium MuJoCo tasks). Pixels: 64x64 "
                    "frames, 3 stacked, the action repeated per domain "
                    "(cartpole 8, cheetah 4, walker 2, finger 2, others 4), "
                    "random-shift augmentation; change them with --config "
                    "environment_params.training.pixels.<image_size|"
                    "frame_stack|action_repeat>=N. Frames are rendered by "
                    "sampler actors (at least one: --num-samplers defaults "
                    "to 1), with MUJOCO_GL=osmesa (libosmesa6) without a "
                    "screen (default: %(default)s)."),
    ]


def options():
    return [*environment_options(), *variant_options(), *sampling_options(),
            *observation_options()]
