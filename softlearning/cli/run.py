"""``softlearning run_example_{local,cluster,debug} EXAMPLE [options]``: the
example's options from the command line, onto the experiments API."""

import argparse

from softlearning.experiments import load_definition, prepare
from softlearning.experiments.config import option_schema

from .options import get_parser


def sweep_file_option(argv):
    """The ``--sweep`` option's value in a command line, or None."""
    pre_parser = argparse.ArgumentParser(add_help=False)
    pre_parser.add_argument('--sweep', default=None)
    known, _ = pre_parser.parse_known_args(argv)
    return known.sweep


def _given_options(parser, args):
    """{name: as written} of the options whose values differ from the
    defaults (the sweep file's included)."""
    return {name: f"{option.flag} {getattr(args, name)}"
            for name, option in option_schema.schema().items()
            if getattr(args, name) != parser.get_default(name)}


def parse_command_line(example_module_name, argv, mode, prog=None):
    """(definition, options, given options) of a command line: the
    definition's defaults, the sweep file's options over them, the command
    line's over those."""
    definition = load_definition(example_module_name)
    parser = get_parser(definition)
    parser.prog = prog or (
        f'softlearning run_example_{mode} {example_module_name}')
    sweep_options, sweep_config = option_schema.sweep_file(
        sweep_file_option(argv))
    parser.set_defaults(**sweep_options)
    args = parser.parse_args(argv)
    args.sweep_config = sweep_config
    return definition, args, _given_options(parser, args)


def prepare_from_command_line(example_module_name, argv, mode,
                              check_storage=True):
    definition, args, given = parse_command_line(example_module_name,
                                                 list(argv or []), mode)
    return prepare(definition, args, mode, given,
                   check_storage=check_storage)


def run_example_local(example_module_name, argv=None):
    """The example as a Tune experiment on a Ray instance started here."""
    experiment = prepare_from_command_line(example_module_name, argv,
                                           'local')
    # Ray Tune's import (over a second) after the options are checked.
    from softlearning.experiments.tune import runner as tune_runner
    return tune_runner.report(tune_runner.run_local(experiment))


def run_example_cluster(example_module_name, argv=None):
    """The example as a Tune experiment on a running Ray cluster."""
    experiment = prepare_from_command_line(example_module_name, argv,
                                           'cluster')
    # Ray Tune's import (over a second) after the options are checked.
    from softlearning.experiments.tune import runner as tune_runner
    return tune_runner.report(tune_runner.run_on_cluster(experiment))


def run_example_debug(example_module_name, argv=None):
    """One trial of the example in this process, eagerly, small epochs."""
    from softlearning.experiments import run_in_process
    run_in_process(prepare_from_command_line(example_module_name, argv,
                                             'debug'))
    return 0
