"""``softlearning run_example_{local,cluster,debug} EXAMPLE [options]``: the
example's options from the command line, onto the experiments API."""

from softlearning.experiments import load_definition, prepare
from softlearning.experiments import sweeps
from softlearning.experiments.errors import ExperimentError

from .options import one_line_error


def _given_options(parser, args):
    """{destination: as written} of the options whose values differ from
    the defaults."""
    return {action.dest: f"{action.option_strings[0]} "
                         f"{getattr(args, action.dest)}"
            for action in parser._actions
            if action.dest in vars(args) and action.option_strings
            and getattr(args, action.dest) != action.default}


def parse_command_line(example_module_name, argv, mode):
    """(definition, options, given options) of a command line."""
    definition = load_definition(example_module_name)
    parser = definition.get_parser()
    parser.prog = f'softlearning run_example_{mode} {example_module_name}'
    parser.error = one_line_error  # an example's own parser too
    try:
        sweep_config = sweeps.apply_sweep_file(
            parser, sweeps.sweep_file_option(argv))
    except sweeps.SweepError as error:
        raise ExperimentError(str(error)) from None
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
    from softlearning.experiments import tune_runner
    experiment = prepare_from_command_line(example_module_name, argv,
                                           'local')
    return tune_runner.report(tune_runner.run_local(experiment))


def run_example_cluster(example_module_name, argv=None):
    """The example as a Tune experiment on a running Ray cluster."""
    from softlearning.experiments import tune_runner
    experiment = prepare_from_command_line(example_module_name, argv,
                                           'cluster')
    return tune_runner.report(tune_runner.run_on_cluster(experiment))


def run_example_debug(example_module_name, argv=None):
    """One trial of the example in this process, eagerly, small epochs."""
    from softlearning.experiments import run_in_process
    run_in_process(prepare_from_command_line(example_module_name, argv,
                                             'debug'))
    return 0
