"""The options of an experiment (``softlearning run_example_* EXAMPLE``)
and the argparse types the commands share. argparse only: what an option
means is the experiments API's (softlearning/experiments/)."""

import argparse
import json
import os
import sys

from softlearning.environments import UNIVERSES
from softlearning.environments.partial_observation import PARTS
from softlearning.experiments import presets
from softlearning.experiments.presets import common as common_preset
from softlearning.experiments import sweeps as tune_settings
from softlearning.experiments import tracking
from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.value_types import NotJson

DEFAULT_TRIAL_NAME_TEMPLATE = 'id={trial.trial_id}-seed={trial.config[run_params][seed]}'


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line, ``softlearning: error:
    ...`` (the usage block is what --help shows)."""

    def error(self, message):
        one_line_error(message)


def one_line_error(message):
    """A bad command line: one line on stderr, exit status 2."""
    print(f"softlearning: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def str2bool(value):
    if isinstance(value, bool):
        return value
    lowered = value.lower()
    if lowered in ('true', 't', 'yes', 'y', '1'):
        return True
    if lowered in ('false', 'f', 'no', 'n', '0'):
        return False
    raise argparse.ArgumentTypeError(
        f"invalid boolean value '{value}' (choose from True, False)")


def json_dict(value):
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(
            f"invalid JSON '{value}': {error.msg}") from None
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError(
            f"expected a JSON object, got '{value}'")
    return parsed


def key_value(value):
    """(KEY, VALUE parsed as JSON); a VALUE that is not JSON is kept as a
    NotJson string, which only a string entry accepts (value_types.py)."""
    if '=' not in value:
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE (e.g. algorithm_params.config.discount=0.98)"
            f", got '{value}'")
    key, raw = value.split('=', 1)
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = NotJson(raw)
    return key, parsed


def positive_int(value):
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return number


def add_environment_options(parser):
    group = parser.add_argument_group('environment')
    group.add_argument('--universe', type=str, default='gym', choices=UNIVERSES,
                       help='Which environment suite (default: %(default)s).')
    group.add_argument('--domain', type=str, default='Pendulum',
                       help="Environment family, e.g. Pendulum, HalfCheetah "
                            "(gym), cheetah (dm_control), HalfCheetahBulletEnv "
                            "(pybullet). Default: %(default)s.")
    group.add_argument('--task', type=str, default='v1',
                       help="Task within the domain, e.g. v1, v5 (gym), run "
                            "(dm_control), v0 (pybullet). Default: %(default)s.")


def non_negative_int(value):
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-negative integer, got {value}")
    return number


def positive_float(value):
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive number, got {value}")
    return number


def add_sampling_options(parser):
    group = parser.add_argument_group('parallel sampling and curriculum')
    group.add_argument('--num-samplers', type=non_negative_int, default=0,
                       help='Collect experience with N Ray actors, each with '
                            'its own environment (default: 0, collect in the '
                            'trial\'s own process).')
    group.add_argument('--sampler-cpus', type=positive_float, default=None,
                       help='CPUs reserved per sampler actor; counted in the '
                            'trial\'s resources (default: 1, or an equal '
                            'share of the CPUs the trainer leaves when 1 '
                            'each does not fit).')
    group.add_argument('--async-sampling', type=str2bool, default=False,
                       help='Let sampler actors keep collecting while the '
                            'learner trains (policy lag of one collect call; '
                            'default: %(default)s).')
    group.add_argument('--curriculum', type=str, default=None, metavar='FILE',
                       help='JSON file with an environment-parameter '
                            'curriculum, e.g. {"mass": {"iters": [0, 10], '
                            '"range": [1.0, 1.5]}}; see the README\'s '
                            '"Environment-parameter curriculum" section and '
                            'examples/curriculum/.')


def add_sweep_options(parser):
    group = parser.add_argument_group(
        'sweeps (see the README\'s "Sweeps" section and examples/sweeps/)')
    group.add_argument('--sweep', type=str, default=None, metavar='FILE',
                       help='JSON (or YAML) file with --config overrides '
                            'under "config" and other options by name, e.g. '
                            '"num_samples", "scheduler"; command-line '
                            'options win over it.')
    group.add_argument('--scheduler', type=str, default='fifo',
                       choices=tune_settings.SCHEDULERS,
                       help='Trial scheduler on --metric: fifo runs every '
                            'trial to its end, asha stops poor trials early, '
                            'pbt (population-based training) copies good '
                            'trials into poor ones and perturbs their '
                            'hyperparameters (default: %(default)s).')
    group.add_argument('--scheduler-config', type=json_dict,
                       default=None, metavar='JSON',
                       help='Keyword arguments of the scheduler, e.g. '
                            '\'{"grace_period": 2000}\' (asha) or '
                            '\'{"perturbation_interval": 5000}\' (pbt); '
                            'times count environment steps.')
    group.add_argument('--search-algorithm', type=str, default='random',
                       choices=tune_settings.SEARCH_ALGORITHMS,
                       help="How configurations are drawn: random (and "
                            "grids), or optuna's model-based search (pip "
                            "install -e '.[sweeps]'). Default: %(default)s.")
    group.add_argument('--metric', type=str,
                       default=tune_settings.DEFAULT_METRIC,
                       help='Result that schedulers and search algorithms '
                            'optimize (default: %(default)s).')
    group.add_argument('--metric-mode', type=str,
                       default=tune_settings.DEFAULT_MODE,
                       choices=('max', 'min'),
                       help='Maximize or minimize --metric (default: '
                            '%(default)s).')
    group.add_argument('--max-concurrent-trials', type=positive_int,
                       default=None, metavar='N',
                       help='Run at most N trials at a time (default: as '
                            'many as the CPUs allow).')


VERBOSE_HELP = ("Console output: 1 (default) one line per trial and epoch, "
                "then each trial's result; 2 also Tune's status tables; 0 "
                "Tune says nothing but errors.")


def report_errors(function, *args, **kwargs):
    """``function(...)``'s exit code (0 unless it returns an int); a bad
    input (ExperimentError) is one line on stderr and exit code 2, Ctrl+C
    exit code 130."""
    try:
        result = function(*args, **kwargs)
        return result if isinstance(result, int) else 0
    except ExperimentError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # A second Ctrl+C (the first one stops the run, which reports).
        print("softlearning: interrupted", file=sys.stderr)
        return 130


def add_tracking_options(parser):
    group = parser.add_argument_group(
        'experiment tracking (TensorBoard: always, tensorboard --logdir '
        '~/ray_results)')
    group.add_argument('--mlflow', type=str, default=None, metavar='URI',
                       help='Log every trial to MLflow: a tracking server '
                            '(http://127.0.0.1:5000), a database URI, or a '
                            "folder (an SQLite store there). Needs "
                            f"{tracking.EXTRA}.")
    group.add_argument('--mlflow-experiment', type=str, default=None,
                       metavar='NAME',
                       help="MLflow experiment name (default: the results "
                            "folder's name).")
    group.add_argument('--wandb-project', type=str, default=None,
                       metavar='NAME',
                       help='Log every trial to this Weights & Biases '
                            f'project. Needs {tracking.EXTRA}.')
    group.add_argument('--wandb-mode', type=str, default=None,
                       choices=tracking.WANDB_MODES,
                       help="offline: write runs under ./wandb to 'wandb "
                            "sync' later (default: WANDB_MODE, else "
                            'online).')


def get_parser(algorithms=tuple(presets.ALGORITHMS),
               policies=tuple(presets.POLICY_CLASSES)):
    """The options of the experiments softlearning runs (and of
    ``examples.development``, which is this)."""
    parser = ArgumentParser(
        description='Train a maximum-entropy RL agent as a Ray Tune experiment.',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            'examples:\n'
            '  softlearning run_example_local examples.development '
            '--algorithm SAC --universe gym --domain Pendulum --task v1\n'
            '  softlearning run_example_local examples.development '
            '--universe dm_control --domain cheetah --task run\n'
            '  softlearning run_example_debug examples.development '
            '--universe gym --domain HalfCheetah --task v5\n'))
    add_environment_options(parser)

    group = parser.add_argument_group('algorithm and variant')
    group.add_argument('--algorithm', type=str, default='SAC',
                       choices=algorithms)
    # Without --policy, each algorithm trains its own (its preset's).
    group.add_argument('--policy', type=str, default=None,
                       choices=policies)
    base = common_preset.VARIANT['algorithm_params']['config']
    group.add_argument('--n-epochs', type=positive_int, default=None,
                       help="Override the number of epochs (default: the "
                            "domain's preset, e.g. 10 for gym Pendulum; "
                            f"{base['n_epochs']} of 1000 steps for a "
                            "domain without one, the first "
                            f"{base['n_initial_exploration_steps']} steps "
                            "random warm-up, --config algorithm_params."
                            "config.n_initial_exploration_steps=N).")
    group.add_argument('--epoch-length', type=positive_int, default=None,
                       help='Override the environment steps per epoch.')
    group.add_argument('--max-path-length', type=positive_int, default=None,
                       help='Override the maximum episode length.')
    group.add_argument('--seed', type=int, default=None,
                       help='Fix the seed (default: each trial draws one).')
    group.add_argument('--n-step', type=positive_int, default=1,
                       help='n-step returns: targets sum N discounted '
                            'rewards (cut at terminations and truncations) '
                            'before bootstrapping (default: 1).')
    group.add_argument('--network', type=str, default=None,
                       choices=('mlp', 'simba', 'simbav2'),
                       help="The actor's and critics' networks: 'simba' for "
                            "SimBa's residual blocks with running "
                            "observation normalization, 'simbav2' for "
                            "SimbaV2's hyperspherical ones (default: the "
                            "preset's, 'mlp').")
    group.add_argument('--config', type=key_value, action='append',
                       default=[], metavar='KEY=VALUE',
                       help='Override any variant entry by its dotted path, '
                            'e.g. algorithm_params.config.discount=0.98. '
                            'VALUE is JSON; a search space makes a sweep: '
                            '{"grid_search": [...]}, {"choice": [...]}, '
                            '{"uniform": [low, high]}, {"loguniform": [low, '
                            'high]}, {"randint": [low, high]}. Repeatable.')
    group.add_argument('--mode', type=str, default=None,
                       choices=('local', 'debug'),
                       help="'debug' shrinks epochs so bugs show in seconds "
                            "(default: 'debug' for run_example_debug, else "
                            "'local').")
    group.add_argument('--run-eagerly', type=str2bool, default=None,
                       help='Run TensorFlow functions eagerly (default: True '
                            'in debug mode, False otherwise).')
    group.add_argument('--deterministic-ops', type=str2bool, default=None,
                       help="TensorFlow's op determinism "
                            '(tf.config.experimental.enable_op_determinism): '
                            'for GPU trials, whose kernels otherwise sum in '
                            'any order. On CPUs a fixed seed already gives '
                            'the same run on one machine (default: False).')

    group = parser.add_argument_group('experiment')
    group.add_argument('--exp-name', type=str, default='experiment',
                       help='Name of the experiment (default: %(default)s).')
    group.add_argument('--local-dir', type=str, default='~/ray_results',
                       help='Root folder of the results (default: '
                            '%(default)s); results go to LOCAL_DIR/'
                            '<universe>/<domain>/<task>/<timestamp>-<exp-name>.')
    group.add_argument('--upload-dir', type=str, default=None,
                       metavar='URI',
                       help='Results root instead of --local-dir: a URI '
                            '(s3://bucket/path, gs://..., anything pyarrow '
                            'understands) or a folder every node of a '
                            'cluster shares.')
    group.add_argument('--address', type=str, default=None,
                       help='run_example_cluster: the Ray cluster to join, '
                            'HOST:PORT (default: RAY_ADDRESS, else the '
                            'cluster of this machine).')
    group.add_argument('--num-samples', type=positive_int, default=1,
                       help='Trials per grid point (each with its own seed, '
                            'and its own draw of random search spaces).')
    group.add_argument('--trial-name-template', type=str,
                       default=DEFAULT_TRIAL_NAME_TEMPLATE,
                       help='Python format string of a trial name '
                            '(default: %(default)s).')
    group.add_argument('--checkpoint-frequency', type=int, default=None,
                       help='Save a checkpoint every N epochs (0: never).')
    group.add_argument('--checkpoint-at-end', type=str2bool, default=None,
                       help='Save a checkpoint when a trial ends.')
    group.add_argument('--checkpoint-replay-pool', type=str2bool,
                       default=None,
                       help='Also checkpoint the replay pool, incrementally '
                            '(each checkpoint stores only the experience '
                            'added since the previous one).')
    group.add_argument('--max-failures', type=int, default=None,
                       help='Restarts of a failed trial from its last '
                            'checkpoint (default: 3).')
    group.add_argument('--restore', type=str, default=None,
                       help='An experiment folder: resume its unfinished '
                            'trials from their last checkpoints. A checkpoint '
                            '(or trial) folder: start a new trial from it.')
    group.add_argument('--verbose', type=int, default=None, choices=(0, 1, 2),
                       help=VERBOSE_HELP)

    add_sampling_options(parser)
    add_sweep_options(parser)
    add_tracking_options(parser)

    group = parser.add_argument_group('resources')
    group.add_argument('--cpus', type=int, default=None,
                       help='CPUs for ray.init (default: all).')
    group.add_argument('--gpus', type=int, default=None,
                       help='GPUs for ray.init (default: all).')
    group.add_argument('--resources', type=json_dict, default=None,
                       help='Custom resources for ray.init, as JSON.')
    group.add_argument('--trial-cpus', type=float, default=None,
                       help='CPUs per trial; TensorFlow uses as many threads, '
                            "plus the trial's sampler actors' CPUs when "
                            'sampling is synchronous (they take turns) '
                            '(default: all CPUs given to Ray, here '
                            f'{os.cpu_count()}). Lower it to run trials side '
                            'by side.')
    group.add_argument('--trial-gpus', type=float, default=0,
                       help='GPUs per trial (default: %(default)s).')
    group.add_argument('--resources-per-trial', type=json_dict, default=None,
                       help='Tune resources per trial as JSON, e.g. '
                            '\'{"cpu": 2, "gpu": 0}\'; overrides '
                            '--trial-cpus/--trial-gpus.')
    add_observation_options(parser)
    return parser


def add_observation_options(parser):
    group = parser.add_argument_group('partial observability')
    group.add_argument(
        '--pomdp', type=str, default=None, choices=PARTS,
        help="Observe only the positions (a pendulum's angle, not its "
             "angular velocity) or only the velocities of the environment's "
             "state, in training and evaluation; for recurrent agents "
             "(--policy recurrent). Known for gym Pendulum and the MuJoCo "
             "locomotion tasks, dm_control cartpole, pendulum, cheetah, "
             "walker, ... and the Bullet locomotion tasks.")
    group.add_argument(
        '--pomdp-previous-action', type=str2bool, default=False,
        help="With --pomdp: also observe the previous action (default: "
             "%(default)s).")
    group = parser.add_argument_group('pixels')
    group.add_argument(
        '--observation', type=str, default='state',
        choices=('state', 'pixels'),
        help="What the agent observes: the simulator's state, or rendered "
             "frames (SAC with a convolutional encoder; dm_control or "
             "gymnasium MuJoCo tasks). Pixels: 64x64 frames, 3 stacked, the "
             "action repeated per domain (cartpole 8, cheetah 4, walker 2, "
             "finger 2, others 4), random-shift augmentation; change them "
             "with --config environment_params.training.pixels.<image_size|"
             "frame_stack|action_repeat>=N. Frames are rendered by sampler "
             "actors (at least one: --num-samplers defaults to 1), with "
             "MUJOCO_GL=osmesa (libosmesa6) without a screen (default: "
             "%(default)s).")
