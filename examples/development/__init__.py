"""Development example: the variants and the trainable used by
``softlearning run_example_* examples.development``."""

from examples.utils import get_parser as _get_parser
from examples.utils import str2bool
from softlearning.environments.partial_observation import PARTS

from .variants import ALGORITHMS, POLICIES, get_variant_spec


def get_parser():
    parser = _get_parser(algorithms=ALGORITHMS, policies=tuple(POLICIES))
    # Without --policy, each algorithm trains its own (variants.py).
    parser.set_defaults(policy=None)
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
    return parser


def prepare_args(args):
    """Pixels are rendered by sampler actors (the learner imports
    TensorFlow, which cannot share a process with OSMesa): at least one."""
    if getattr(args, 'observation', 'state') == 'pixels' and not (
            args.num_samplers):
        args.num_samplers = 1
        args.notices.append("--observation pixels: frames are rendered by "
                            "sampler actors; using --num-samplers 1.")


def get_trainable_class(args=None):
    from .main import ExperimentRunner
    return ExperimentRunner


__all__ = ['get_parser', 'get_trainable_class', 'get_variant_spec',
           'prepare_args']
