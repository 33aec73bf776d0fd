"""``softlearning plot-policy CHECKPOINT``: its options (the picture:
softlearning/analysis/policy_plot.py)."""

import json
import sys

from .options import ArgumentParser


def get_parser():
    parser = ArgumentParser(
        prog='softlearning plot-policy',
        description="Plot actions sampled by a checkpoint's policy at given "
                    "states (and Q(s, a) contours for 2-D actions) as a PNG.")
    parser.add_argument('checkpoint_path', metavar='CHECKPOINT_DIR',
                        help='A checkpoint folder (or a trial folder: its '
                             'latest checkpoint).')
    parser.add_argument('--states', type=json.loads, default=None,
                        help='JSON list of flat observations, e.g. '
                             "'[[0, 0], [2.5, 2.5]]' (default: three reset "
                             'states of the environment).')
    parser.add_argument('--num-samples', type=int, default=200,
                        help='Actions sampled per state (default: '
                             '%(default)s).')
    parser.add_argument('--action-dims', type=int, nargs=2, default=(0, 1),
                        metavar=('I', 'J'),
                        help='Action dimensions on the axes (default: 0 1).')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--output', type=str, default='policy.png',
                        help='PNG file to write (default: %(default)s).')
    return parser


def main(argv=None):
    from softlearning.analysis.policy_plot import PlotError, plot_policy
    args = get_parser().parse_args(argv)
    try:
        plot_policy(args)
    except PlotError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
    return 0
