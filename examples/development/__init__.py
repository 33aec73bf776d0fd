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
    return parser


def get_trainable_class(args=None):
    from .main import ExperimentRunner
    return ExperimentRunner


__all__ = ['get_parser', 'get_trainable_class', 'get_variant_spec']
