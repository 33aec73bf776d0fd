"""``softlearning summary``, ``softlearning plot`` and ``softlearning report``."""

import argparse
import os
import sys

from softlearning.analysis.results import ResultsError

from .options import ArgumentParser

RESULTS_HELP = ('Experiment folders, trial folders, or folders above them '
                '(e.g. ~/ray_results/gym/Pendulum/v1/<experiment>).')


def _size(value):
    try:
        width, height = (int(part) for part in value.lower().split('x'))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT in pixels, e.g. 800x500, got '{value}'"
        ) from None
    if width < 100 or height < 100:
        raise argparse.ArgumentTypeError(
            f"{value}: width and height must be at least 100 pixels")
    return width, height


def _results_parser(command, description):
    parser = ArgumentParser(prog=f'softlearning {command}',
                                     description=description)
    parser.add_argument('paths', nargs='+', metavar='DIR', help=RESULTS_HELP)
    return parser


def _summary_parser():
    parser = _results_parser(
        'summary',
        'One row per configuration of the trials found: the entries that '
        'vary between them, the number of seeds, the final and best metric '
        '(mean ± std over seeds), the steps reached and the trials\' status; '
        'for goal-conditioned tasks (an evaluation/success-rate column), '
        'also the final success rate.')
    parser.add_argument('--metric', default='evaluation/return-mean',
                        help='A progress.csv column (default: %(default)s).')
    parser.add_argument('--metric-mode', default='max', choices=('max', 'min'),
                        help='Whether the best value is the largest or the '
                             'smallest (default: %(default)s).')
    parser.add_argument('--sort', default=None, metavar='KEY',
                        help='Order rows by final, best, steps, seeds, '
                             'success (goal-conditioned tasks), or a varying '
                             'entry (default: by the entries).')
    parser.add_argument('--csv', default=None, metavar='FILE',
                        help='Also write the table (full names, separate '
                             'mean and std columns) to FILE.')
    return parser


def _plot_parser():
    parser = _results_parser(
        'plot',
        'Learning curves of the trials found: one line per configuration, '
        'the mean over its seeds with a band of ± one standard deviation. '
        'Several folders share one figure (e.g. SAC and SQL, or two sweeps).')
    parser.add_argument('-o', '--output', required=True, metavar='FILE',
                        help='Image file to write, e.g. curves.png (the '
                             'format follows the extension: png, pdf, svg).')
    parser.add_argument('-x', '--x', default='total_timestep',
                        help='progress.csv column on the x axis (default: '
                             '%(default)s; e.g. epoch, time_total_s).')
    parser.add_argument('-y', '--y', default='evaluation/return-mean',
                        help='progress.csv column on the y axis (default: '
                             '%(default)s).')
    parser.add_argument('--title', default=None,
                        help='Figure title (default: environment and y).')
    parser.add_argument('--size', type=_size, default=(800, 500),
                        metavar='WxH',
                        help='Image size in pixels of one panel (one per '
                             'environment; default: 800x500).')
    parser.add_argument('--dpi', type=int, default=100,
                        help='Dots per inch (default: %(default)s).')
    return parser


def _positive_int(value):
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number, got '{value}'") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be at least 1")
    return number


def _report_parser():
    parser = _results_parser(
        'report',
        'Learning-quality report of benchmark runs (trials whose '
        'params.json has a benchmark section), after Agarwal et al. 2021, '
        '"Deep RL at the Edge of the Statistical Precipice". Each run\'s '
        'final evaluation return is normalized per task, (return - random) '
        '/ (reference - random), by the table in '
        'softlearning/analysis/reference_scores.py. Per agent ("<library> '
        '<algorithm>"): the interquartile mean (IQM), median, mean and '
        'optimality gap of the normalized scores over all runs x tasks, '
        'each with a 95% stratified bootstrap confidence interval (runs '
        'resampled within each task); per task: the final return, mean ± '
        'std over seeds, and on goal-conditioned tasks the IQM of the final '
        'evaluation success rate with its interval; for each algorithm '
        'that two libraries ran, the '
        'probability of improvement P(softlearning X > other X) with its '
        'interval (0.5: parity), and for each --compare pair. Figures: '
        'the aggregate metrics, sample-efficiency curves (IQM against '
        'environment steps) and performance profiles, with confidence '
        'bands. Writes report.md, '
        'aggregates.csv, improvement.csv (success_rates.csv, for goal-'
        'conditioned tasks) and the PNGs, and prints the markdown. '
        'Unfinished runs are left out, with a notice.')
    parser.add_argument('--output-dir', default=None, metavar='OUT',
                        help='Folder for report.md and the figures '
                             '(default: <first DIR>/report).')
    parser.add_argument('--compare', action='append', default=None,
                        metavar='X,Y',
                        help='Also give P(X > Y) for these two agents, '
                             'named as in the report (e.g. "softlearning '
                             'FastSAC,sbx CrossQ"); repeat for more pairs.')
    parser.add_argument('--steps', type=_positive_int, default=None,
                        metavar='N',
                        help='Score each run at its last evaluation at or '
                             'before N environment steps (default: at its '
                             'planned length, benchmark.steps).')
    parser.add_argument('--reps', type=_positive_int, default=2000,
                        help='Bootstrap resamples per interval (default: '
                             '%(default)s).')
    parser.add_argument('--seed', type=int, default=0,
                        help='Seed of the bootstrap\'s random numbers '
                             '(default: %(default)s).')
    return parser


def _fail(parser, error):
    parser.exit(2, f"{parser.prog}: error: {error}\n")


def _parse(parser, argv):
    """The command line's options, its folders checked before the
    analysis modules (pandas, SciPy, Matplotlib: seconds) are imported."""
    args = parser.parse_args(argv)
    for path in args.paths:
        if not os.path.isdir(os.path.expanduser(path)):
            _fail(parser, f"no such folder: {path}")
    return args


def _load(parser, paths, include_failed=False):
    from softlearning.analysis.results import load_trials
    return load_trials([os.path.expanduser(path) for path in paths],
                       include_failed)


def summary_main(argv=None):
    parser = _summary_parser()
    args = _parse(parser, argv)
    from softlearning.analysis.summary import (format_not_finished,
                                               format_summary, sort_summary,
                                               summarize)
    try:
        trials = _load(parser, args.paths, include_failed=True)
        summary = summarize(trials, args.metric, args.metric_mode)
        if args.sort:
            summary = sort_summary(summary, args.sort, args.metric_mode)
    except (ResultsError, ValueError) as error:
        _fail(parser, error)
    print(format_summary(summary, args.metric))
    not_finished = format_not_finished(trials)
    if not_finished:
        print('\n' + not_finished)
    if args.csv:
        summary.to_csv(args.csv, index=False)
        print(f"\nWrote {args.csv}")
    return 0


def plot_main(argv=None):
    parser = _plot_parser()
    args = _parse(parser, argv)
    from softlearning.analysis.plot import plot_learning_curves, save_figure
    try:
        figure = plot_learning_curves(
            _load(parser, args.paths), x=args.x, y=args.y, title=args.title,
            size=args.size, dpi=args.dpi)
        save_figure(figure, args.output)
    except (ResultsError, ValueError) as error:
        _fail(parser, error)
    print(f"Wrote {args.output}")
    return 0


def report_main(argv=None):
    parser = _report_parser()
    args = _parse(parser, argv)
    from softlearning.analysis.benchmark_report import write_report
    output_dir = os.path.expanduser(
        args.output_dir or os.path.join(args.paths[0], 'report'))
    try:
        report = write_report(_load(parser, args.paths), output_dir,
                              steps=args.steps, reps=args.reps,
                              seed=args.seed, compare=args.compare)
    except (ResultsError, ValueError) as error:
        _fail(parser, error)
    for notice in report.notices:
        print(notice, file=sys.stderr)
    print(report.markdown)
    print(f"Wrote {report.path}")
    return 0
