"""``softlearning show-config EXAMPLE [options]``: the variant an experiment
resolves to, as YAML, each value annotated with where it came from
(softlearning/experiments/config/provenance.py). The options are checked as
run_example_* checks them (the same one-line errors); nothing runs: Ray
does not start and TensorFlow is not imported."""

import argparse

from softlearning.experiments import RUNS, prepare
from softlearning.experiments.config.provenance import (
    Provenance, annotated_yaml)

from .options import one_line_error
from .run import parse_command_line

USAGE = """\
usage: softlearning show-config EXAMPLE [--run {local,cluster,debug}] [options]

Prints the variant EXAMPLE (e.g. examples.development) resolves to with the
options of run_example_RUN (default: local), as YAML, each value annotated
with where it came from: preset, domain override, option, example default,
debug mode, sweep, --config, derived or constructor default. Nothing runs.
"""


def resolved_config(example_module_name, argv, run='local'):
    """(the Experiment, {dotted key: source}) of a command line."""
    definition, options, given = parse_command_line(
        example_module_name, argv, run,
        prog=f'softlearning show-config {example_module_name}')
    provenance = Provenance()
    experiment = prepare(definition, options, run, given,
                         provenance=provenance)
    return experiment, provenance.sources


def show(example_module_name, argv, run='local'):
    experiment, sources = resolved_config(example_module_name, argv, run)
    command = ' '.join([f'run_example_{run}', example_module_name, *argv])
    print(f'# softlearning {command}')
    print('\n'.join(annotated_yaml(experiment.variant_spec, sources)))
    return 0


def main(argv):
    from .options import report_errors
    if not argv or argv[0] in ('-h', '--help'):
        print(USAGE)
        if not argv:
            return 2
        print("The options (here examples.development's) follow.\n")
        argv = ['examples.development', '--help']
    if argv[0].startswith('-'):
        one_line_error("'show-config' needs an EXAMPLE module, e.g. "
                       "'softlearning show-config examples.development "
                       "...'")
    # --run is this command's; every other option is the example's.
    pre_parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre_parser.error = one_line_error
    pre_parser.add_argument('--run', choices=RUNS, default='local')
    known, example_argv = pre_parser.parse_known_args(argv[1:])
    return report_errors(show, argv[0], example_argv, known.run)
