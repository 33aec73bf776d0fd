"""The ``softlearning`` command.

    softlearning run_example_local EXAMPLE [options]   a Tune experiment on local Ray
    softlearning run_example_debug EXAMPLE [options]   one trial in this process, eagerly
    softlearning run_example_cluster EXAMPLE [options] a Tune experiment on a running cluster
    softlearning launch_example_{gce,ec2,cluster} EXAMPLE [options]
                                                       start a cluster, run there, stop it
    softlearning run_example_local EXAMPLE --help      the example's options
    softlearning show-config EXAMPLE [options]         the resolved variant, each value's source
    softlearning simulate CHECKPOINT [options]         run (and film) a policy
    softlearning export CHECKPOINT OUT_DIR             policy as a SavedModel
    softlearning plot-policy CHECKPOINT [options]      sampled actions as a PNG
    softlearning benchmark SUITE_FILE [options]        a benchmark suite (resumable)
    softlearning report DIR... [options]               IQM, median, mean, optimality gap with CIs
    softlearning summary DIR... [options]              table: one row per configuration
    softlearning plot DIR... -o FILE.png [options]     learning curves, mean +- std over seeds
    softlearning --version                             the installed version
"""

import os
import sys

# (.options imports Ray Tune's names: imported by the commands that parse
# options, not by `softlearning --version`.)

DEFAULT_EXAMPLE = 'examples.development'

COMMANDS = {
    'run_example_local': 'Run an example as a Ray Tune experiment on this '
                         'machine.',
    'run_example_debug': 'Run one trial of an example in this process, with '
                         'TensorFlow eager and small epochs.',
    'run_example_cluster': 'Run an example as a Ray Tune experiment on a '
                           'running Ray cluster.',
    'launch_example_gce': 'Start a GCE cluster with the Ray autoscaler, run '
                          'an example on it, shut it down.',
    'launch_example_ec2': 'Start an EC2 cluster with the Ray autoscaler, run '
                          'an example on it, shut it down.',
    'launch_example_cluster': 'The same for any autoscaler config '
                              '(--config-file).',
}

# Commands over an example that run nothing: they parse their own options.
CONFIG_COMMANDS = {
    'show-config': "Print the variant an example's options resolve to, as "
                   'YAML, each value annotated with where it came from.',
}

# Commands over a checkpoint: they parse their own options.
CHECKPOINT_COMMANDS = {
    'simulate': 'Run a trained policy from a checkpoint (optionally write '
                'an MP4).',
    'export': 'Save the policy of a checkpoint as a TensorFlow SavedModel.',
    'plot-policy': 'Plot actions sampled by the policy of a checkpoint at '
                   'a few states (PNG).',
}

# Commands over results folders: they parse their own options too.
RESULTS_COMMANDS = {
    'benchmark': 'Run a benchmark suite file (algorithms x environments x '
                 'seeds, one evaluation protocol) as one Tune experiment; '
                 'run again to resume.',
    'summary': 'Table of a sweep\'s results: one row per configuration, '
               'mean +- std over seeds.',
    'plot': 'Learning curves of one or more experiments (mean +- std over '
            'seeds) as an image.',
    'report': 'Learning-quality report of benchmark runs: IQM, median, mean '
              'and optimality gap with bootstrap CIs, per-task returns, '
              'figures.',
}


def version():
    """'softlearning 1.0.0': the package's version (softlearning/__init__.py
    imports neither TensorFlow nor Ray)."""
    from softlearning import __version__
    return f'softlearning {__version__}'


def get_parser():
    from softlearning.algorithms import ALGORITHMS, described

    from .options import ArgumentParser
    parser = ArgumentParser(
        prog='softlearning',
        description='Train continuous-control RL agents with Ray Tune: '
                    f"{', '.join(map(described, ALGORITHMS))} "
                    "(--algorithm).",
        epilog="Run 'softlearning COMMAND EXAMPLE --help' for an example's "
               "options, e.g. 'softlearning run_example_local "
               "examples.development --help'.")
    parser.add_argument('--version', action='version', version=version())
    subparsers = parser.add_subparsers(dest='command', metavar='COMMAND')
    subparsers.required = True
    for name, help_text in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=help_text,
                                          description=help_text,
                                          add_help=False)
        subparser.add_argument('example_module_name', metavar='EXAMPLE',
                               help='Example module, e.g. examples.development')
    for name, help_text in {**CONFIG_COMMANDS, **CHECKPOINT_COMMANDS,
                            **RESULTS_COMMANDS}.items():
        subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (['--version'], ['-V']):
        print(version())
        return 0
    from .options import report_errors
    parser = get_parser()
    if not argv or argv[0] in ('-h', '--help'):
        parser.print_help()
        return 0 if argv else 2
    if argv[0] == 'show-config':
        from . import show_config
        # EXAMPLE is a module importable from here, as with `python -m`.
        sys.path.insert(0, os.getcwd())
        return show_config.main(argv[1:])
    if argv[0] == 'plot-policy':
        from . import plot_policy
        return plot_policy.main(argv[1:])
    if argv[0] in CHECKPOINT_COMMANDS:
        from . import simulate
        function = (simulate.main if argv[0] == 'simulate'
                    else simulate.export_main)
        return function(argv[1:])
    if argv[0] == 'benchmark':
        from . import benchmark
        return benchmark.main(argv[1:])
    if argv[0] in RESULTS_COMMANDS:
        from . import analysis
        function = {'summary': analysis.summary_main,
                    'plot': analysis.plot_main,
                    'report': analysis.report_main}[argv[0]]
        return function(argv[1:])
    # The example parses its own options; only COMMAND EXAMPLE are ours.
    if argv[0] in COMMANDS and (len(argv) < 2 or argv[1].startswith('-')):
        if not {'-h', '--help'} & set(argv[1:]):
            parser.error(f"'{argv[0]}' needs an EXAMPLE module, e.g. "
                         f"'softlearning {argv[0]} {DEFAULT_EXAMPLE} ...'")
        # Help without an example: the default example's options.
        print(f"usage: softlearning {argv[0]} EXAMPLE [options]; EXAMPLE "
              f"is a module such as {DEFAULT_EXAMPLE}, whose options "
              "follow.\n")
        argv = [argv[0], DEFAULT_EXAMPLE, '--help']
    namespace = parser.parse_args(argv[:2])
    example_argv = argv[2:]
    # EXAMPLE is a module importable from here, as with `python -m`.
    sys.path.insert(0, os.getcwd())
    if namespace.command.startswith('launch_example_'):
        from . import launch
        provider = namespace.command[len('launch_example_'):]
        return report_errors(launch.main, provider,
                             namespace.example_module_name, example_argv)
    from . import run
    return report_errors(getattr(run, namespace.command),
                         namespace.example_module_name, example_argv)


if __name__ == '__main__':
    sys.exit(main())
