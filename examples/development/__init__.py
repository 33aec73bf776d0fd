"""Development example: the variants and the trainable used by
``softlearning run_example_* examples.development``."""

from examples.utils import get_parser as _get_parser

from .variants import ALGORITHMS, POLICIES, get_variant_spec


def get_parser():
    parser = _get_parser(algorithms=ALGORITHMS, policies=tuple(POLICIES))
    # Without --policy, each algorithm trains its own (variants.py).
    parser.set_defaults(policy=None)
    return parser


def get_trainable_class(args=None):
    from .main import ExperimentRunner
    return ExperimentRunner


__all__ = ['get_parser', 'get_trainable_class', 'get_variant_spec']
