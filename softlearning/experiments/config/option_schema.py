"""The options of an experiment, typed: one ``Option`` (option_types.py)
per option, with its type, default (per run mode where it differs), help,
group, choices, and the run modes that refuse it and why. The tables are
options_of_the_variant.py and options_of_the_run.py; the command line's
parser is generated from them (softlearning/cli/options.py), and the Python
API's keywords and sweep files are checked against them here.

Run modes: 'local' (Tune on a Ray instance started here), 'cluster' (Tune
on a running cluster) and 'debug' (one trial in this process, without
Tune). Every option is either honoured by run_example_debug (``debug``
says how) or refused there (``refused['debug']`` says why): none is
silently ignored.
"""

import types

from softlearning.experiments.config import option_types
from softlearning.experiments.config import options_of_the_run
from softlearning.experiments.config import options_of_the_variant
from softlearning.experiments.config import sweep_files
from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.config.option_types import (
    GROUP_ORDER, OptionValueError)
from softlearning.utils.registry import check_keys


def schema():
    """{name: Option} of every option, in the order --help lists them."""
    table = [*options_of_the_variant.options(),
             *options_of_the_run.options()]
    ordered = {option.name: option for option in sorted(
        table, key=lambda option: GROUP_ORDER.index(option.group))}
    return ordered


def definition_defaults(definition):
    """An experiment definition's own option defaults (e.g. the multi-goal
    example's --algorithm SQL), checked against the schema."""
    if hasattr(definition, 'get_parser'):
        # An older definition's own parser would be silently ignored.
        raise ExperimentError(
            f"{definition.__name__} defines get_parser(); an experiment's "
            "options are softlearning's (softlearning/experiments/"
            "option_schema.py): give their defaults in OPTION_DEFAULTS = "
            "{option name: value} instead.")
    defaults = dict(getattr(definition, 'OPTION_DEFAULTS', None) or {})
    check_names(defaults, f"{definition.__name__}.OPTION_DEFAULTS")
    return defaults


def defaults(definition=None):
    """{name: default} of every option, the definition's over the schema's
    (the command line's defaults)."""
    values = {name: option.default for name, option in schema().items()}
    if definition is not None:
        values.update(definition_defaults(definition))
    return values


def check_names(given, source=None):
    """Unknown option names are one error naming the valid ones."""
    check_keys(given, sorted(schema()), 'option(s)', source,
               error=ExperimentError)


def check_choices(given):
    """A keyword outside its option's choices is one error naming them."""
    options = schema()
    for name, value in given.items():
        choices = options[name].choices
        if choices is not None and value is not None and (
                value not in choices):
            raise ExperimentError(
                f"{name}={value!r} is not one of "
                f"{', '.join(map(str, choices))}.")


def check_numbers(given):
    """A number the Python API gives is held to its option's type, as the
    command line's text is (``n_epochs=0`` is refused like
    ``--n-epochs 0``)."""
    options = schema()
    for name, value in given.items():
        if options[name].type not in option_types.NUMBER_TYPES or (
                isinstance(value, (bool, str)) or value is None):
            continue
        try:
            options[name].type(value)
        except (OptionValueError, TypeError, ValueError) as error:
            raise ExperimentError(f"{name}={value!r}: {error}.") from None


def namespace(definition=None, **given):
    """The options (a namespace, one attribute per option): the defaults,
    then ``given`` (checked: unknown names, values outside the choices or
    their type's range)."""
    check_names(given)
    check_choices(given)
    check_numbers(given)
    values = defaults(definition)
    values.update(given)
    return types.SimpleNamespace(**values)


def check_refused(given, mode):
    """``given``: {option name: how the user wrote it (e.g. '--gpus 1')} of
    the options the user set. The first one ``mode`` cannot honour is an
    ExperimentError."""
    options = schema()
    for name, written in given.items():
        option = options.get(name)
        if option is not None and mode in option.refused:
            raise ExperimentError(
                f"run_example_{mode} cannot honour {written}: "
                f"{option.refused[mode]}. Leave it out, or use another "
                "run_example_* command.")


def apply_mode_defaults(options, mode):
    """Sets the options still None to their defaults in ``mode``."""
    for name, option in schema().items():
        if mode in option.mode_defaults and getattr(options, name) is None:
            setattr(options, name, option.mode_defaults[mode])


def sweep_file(path):
    """(options, config overrides) of a sweep file (sweep_files.py),
    checked against the schema; a bad file is one ExperimentError."""
    try:
        return sweep_files.read_sweep_file(path, schema())
    except sweep_files.SweepError as error:
        raise ExperimentError(str(error)) from None
