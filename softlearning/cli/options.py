"""The options of an experiment (``softlearning run_example_* EXAMPLE``) as
an argparse parser, generated from the experiments' option schema
(softlearning/experiments/config/option_schema.py), and the argparse
helpers the commands share. What an option means is the experiments API's."""

import argparse
import functools
import sys

from softlearning.experiments.config import option_schema
from softlearning.experiments.config import option_types
from softlearning.experiments.errors import ExperimentError
from softlearning.utils.non_finite import NonFiniteError

EPILOG = (
    'examples:\n'
    '  softlearning run_example_local examples.development '
    '--algorithm SAC --universe gym --domain Pendulum --task v1\n'
    '  softlearning run_example_local examples.development '
    '--universe dm_control --domain cheetah --task run\n'
    '  softlearning run_example_debug examples.development '
    '--universe gym --domain HalfCheetah --task v5\n')


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line, ``softlearning: error:
    ...`` (the usage block is what --help shows)."""

    def error(self, message):
        one_line_error(message)


def one_line_error(message):
    """A bad command line: one line on stderr, exit status 2."""
    print(f"softlearning: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def argparse_type(read):
    """The schema's type ``read`` for argparse: its own messages as they
    are; Python's (int('x')) as argparse words them ('invalid
    positive_int value')."""
    if read in (str, int, float):
        return read

    @functools.wraps(read)
    def parse(value):
        try:
            return read(value)
        except option_types.OptionValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


str2bool = argparse_type(option_types.boolean)
json_dict = argparse_type(option_types.json_object)
key_value = argparse_type(option_types.key_value)
positive_int = argparse_type(option_types.positive_int)


def add_option(group, option, default):
    keywords = {'type': argparse_type(option.type), 'default': default,
                'help': option.help or None}
    if option.choices is not None:
        keywords['choices'] = option.choices
    if option.metavar is not None:
        keywords['metavar'] = option.metavar
    if option.repeatable:
        keywords['action'] = 'append'
    group.add_argument(option.flag, **keywords)


def get_parser(definition=None):
    """The parser of the options of an experiment definition (default:
    softlearning's own, ``examples.development``), with its own defaults."""
    parser = ArgumentParser(
        description='Train a maximum-entropy RL agent as a Ray Tune '
                    'experiment.',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG)
    defaults = option_schema.defaults(definition)
    groups = {}
    for option in option_schema.schema().values():
        if option.group not in groups:
            groups[option.group] = parser.add_argument_group(option.group)
        add_option(groups[option.group], option, defaults[option.name])
    return parser


def report_errors(function, *args, **kwargs):
    """``function(...)``'s exit code (0 unless it returns an int); a bad
    input (ExperimentError) is one line on stderr and exit code 2, numbers
    gone non-finite in a trial run here one line and exit code 1, Ctrl+C
    exit code 130."""
    try:
        result = function(*args, **kwargs)
        return result if isinstance(result, int) else 0
    except ExperimentError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
    except NonFiniteError as error:
        # (run_example_debug: the trial runs in this process.)
        print(f"softlearning: stopped: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # A second Ctrl+C (the first one stops the run, which reports).
        print("softlearning: interrupted", file=sys.stderr)
        return 130
