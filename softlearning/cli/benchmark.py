"""``softlearning benchmark SUITE_FILE``: a benchmark suite as one Tune
experiment (softlearning/experiments/benchmark/), resumed by running the
same command again."""


from softlearning.experiments.config.options_of_the_run import VERBOSE_HELP

from .options import ArgumentParser, positive_int, report_errors


def get_parser():
    parser = ArgumentParser(
        prog='softlearning benchmark',
        description=(
            'Run a benchmark suite: every algorithm x environment x seed of '
            'SUITE_FILE for the same number of steps, evaluated every '
            'interval steps on the same reset seeds (deterministic actions, '
            'raw reward), as one Ray Tune experiment in '
            '<local dir>/benchmarks/<suite name>. Run the same command again '
            'to resume it: finished trials are kept, unfinished ones go on '
            'from their last checkpoints. Then: softlearning report '
            '<that folder>.'),
        epilog='Suite files: examples/benchmarks/*.yaml.')
    parser.add_argument('suite', metavar='SUITE_FILE',
                        help='The suite (YAML, or JSON for a .json name).')
    parser.add_argument('--name', default=None,
                        help="Results folder name (default: the suite's "
                             'name, else the file name).')
    parser.add_argument('--local-dir', default=None,
                        help='Results root (default: ~/ray_results).')
    parser.add_argument('--address', default=None,
                        help='Run on this running Ray cluster (HOST:PORT, '
                             "or 'auto'); default: a Ray instance started "
                             'here.')
    parser.add_argument('--cpus', type=positive_int, default=None,
                        help='CPUs of the Ray instance started here '
                             '(default: all).')
    parser.add_argument('--max-concurrent-trials', type=positive_int,
                        default=None,
                        help='At most this many trials at once (default: as '
                             'many as the CPUs hold).')
    parser.add_argument('--verbose', type=int, default=None,
                        choices=(0, 1, 2), help=VERBOSE_HELP)
    parser.add_argument('--restart-errored', action='store_true',
                        help='Resuming: trials that ended in an error start '
                             'over from scratch instead of continuing from '
                             'their last checkpoints (e.g. checkpoints '
                             'written by a version that cannot restore '
                             'them).')
    parser.add_argument('--algorithms', nargs='+', default=None,
                        help="Run only these of the suite's algorithms, "
                             'e.g. CrossQ or SAC,TD3 (default: all).')
    parser.add_argument('--environments', nargs='+', default=None,
                        help="Run only these of the suite's environments, "
                             'e.g. gym/Hopper/v5 (default: all).')
    parser.add_argument('--seeds', nargs='+', default=None,
                        help="Run only these of the suite's seeds, e.g. 1,2 "
                             '(default: all). A part of a suite is a grid of '
                             'its own for Tune: resume it with the same '
                             'choices, and give each part its own '
                             '--local-dir.')
    parser.add_argument('--dry-run', action='store_true',
                        help='Check the suite and print its trials and '
                             'results folder; run nothing.')
    return parser


def run(argv=None):
    from softlearning.experiments.benchmark import suite_experiment, suites
    from softlearning.experiments.benchmark.suite_part import part_of_suite
    parser = get_parser()
    args = parser.parse_args(argv)
    suite = part_of_suite(suites.load_suite(args.suite, name=args.name),
                          args.algorithms, args.environments, args.seeds)
    given = {name: value for name, value in (
        ('local_dir', args.local_dir), ('address', args.address),
        ('cpus', args.cpus), ('verbose', args.verbose),
        ('max_concurrent_trials', args.max_concurrent_trials))
        if value is not None}
    mode = 'cluster' if args.address else 'local'
    experiment = suite_experiment.prepare_suite(suite, mode, **given)
    experiment.restart_errored = args.restart_errored
    print(suite_experiment.describe(suite, experiment), flush=True)
    if args.dry_run:
        return 0
    suite_experiment.write_suite_copy(suite, experiment)
    # Ray Tune's import (over a second) once the suite is checked.
    from softlearning.experiments.tune import runner as tune_runner
    runner = (tune_runner.run_on_cluster if mode == 'cluster'
              else tune_runner.run_local)
    code = tune_runner.report(runner(experiment),
                              resume='run the same command again')
    print(f"\nReport: softlearning report "
          f"{suite_experiment.results_folder(experiment)}")
    return code


def main(argv=None):
    return report_errors(run, argv)
