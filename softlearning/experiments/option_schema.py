"""The options of an experiment, typed: one ``Option`` per option, with its
type, default (per run mode where it differs), help, group, choices, and the
run modes that refuse it and why. The tables are options_of_the_variant.py
and options_of_the_run.py; the command line's parser is generated from them
(softlearning/cli/options.py), and the Python API's keywords and sweep files
are checked against them here.

Run modes: 'local' (Tune on a Ray instance started here), 'cluster' (Tune
on a running cluster) and 'debug' (one trial in this process, without
Tune). Every option is either honoured by run_example_debug (``debug``
says how) or refused there (``refused['debug']`` says why): none is
silently ignored.
"""

import dataclasses
import json
import types
from typing import Any, Callable, Mapping, Optional

from .errors import ExperimentError
from .value_types import NotJson

RUN_MODES = ('local', 'cluster', 'debug')


class OptionValueError(ValueError):
    """A value an option's type refuses, with the message to show."""


# Types: each reads the command line's text; the Python API passes values. --


def boolean(value):
    if isinstance(value, bool):
        return value
    lowered = value.lower()
    if lowered in ('true', 't', 'yes', 'y', '1'):
        return True
    if lowered in ('false', 'f', 'no', 'n', '0'):
        return False
    raise OptionValueError(
        f"invalid boolean value '{value}' (choose from True, False)")


def json_object(value):
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as error:
        raise OptionValueError(
            f"invalid JSON '{value}': {error.msg}") from None
    if not isinstance(parsed, dict):
        raise OptionValueError(f"expected a JSON object, got '{value}'")
    return parsed


def key_value(value):
    """(KEY, VALUE parsed as JSON); a VALUE that is not JSON is kept as a
    NotJson string, which only a string entry accepts (value_types.py)."""
    if '=' not in value:
        raise OptionValueError(
            f"expected KEY=VALUE (e.g. algorithm_params.config.discount=0.98)"
            f", got '{value}'")
    key, raw = value.split('=', 1)
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = NotJson(raw)
    return key, parsed


def positive_int(value):
    number = int(value)
    if number < 1:
        raise OptionValueError(f"expected a positive integer, got {value}")
    return number


def non_negative_int(value):
    number = int(value)
    if number < 0:
        raise OptionValueError(
            f"expected a non-negative integer, got {value}")
    return number


def positive_float(value):
    number = float(value)
    if number <= 0:
        raise OptionValueError(f"expected a positive number, got {value}")
    return number


@dataclasses.dataclass(frozen=True)
class Option:
    """One option: ``--n-epochs`` is ``Option('n_epochs', ...)``."""
    name: str
    # Reads the command line's text (str, int, float or a function above).
    type: Callable = str
    default: Any = None
    help: str = ''
    group: str = ''
    choices: Optional[tuple] = None
    metavar: Optional[str] = None
    # --config: given any number of times, a list of the values.
    repeatable: bool = False
    # {run mode: default} where it is not ``default`` (None: decided by the
    # mode); the command line's default stays ``default``, so that giving
    # the mode's value explicitly still counts as given.
    mode_defaults: Mapping = dataclasses.field(default_factory=dict)
    # How run_example_debug honours it (empty: refused there).
    debug: str = ''
    # {run mode: why it cannot honour the option}.
    refused: Mapping = dataclasses.field(default_factory=dict)

    @property
    def flag(self):
        return '--' + self.name.replace('_', '-')


def every_mode(value):
    """``mode_defaults`` of a default that no mode changes (an option left
    None on the command line until the run mode is known)."""
    return {mode: value for mode in RUN_MODES}


def schema():
    """{name: Option} of every option, in the order --help lists them."""
    from . import options_of_the_run, options_of_the_variant
    table = [*options_of_the_variant.options(),
             *options_of_the_run.options()]
    ordered = {option.name: option for option in sorted(
        table, key=lambda option: GROUP_ORDER.index(option.group))}
    return ordered


SWEEPS_GROUP = ('sweeps (see the README\'s "Sweeps" section and '
                'examples/sweeps/)')
TRACKING_GROUP = ('experiment tracking (TensorBoard: always, tensorboard '
                  '--logdir ~/ray_results)')
# The groups, in --help's order.
GROUP_ORDER = (
    'environment', 'algorithm and variant', 'experiment',
    'parallel sampling and curriculum', SWEEPS_GROUP, TRACKING_GROUP,
    'resources', 'partial observability', 'pixels')


def definition_defaults(definition):
    """An experiment definition's own option defaults (e.g. the multi-goal
    example's --algorithm SQL), checked against the schema."""
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
    valid = schema()
    unknown = sorted(set(given) - set(valid))
    if unknown:
        where = f' in {source}' if source else ''
        raise ExperimentError(
            f"Unknown option(s) {', '.join(unknown)}{where}; valid: "
            f"{', '.join(sorted(valid))}.")


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


def namespace(definition=None, **given):
    """The options (a namespace, one attribute per option): the defaults,
    then ``given`` (checked: unknown names, values outside the choices)."""
    check_names(given)
    check_choices(given)
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
    """(options, config overrides) of a sweep file (sweeps.py), checked
    against the schema; a bad file is one ExperimentError."""
    from . import sweeps
    try:
        return sweeps.read_sweep_file(path, schema())
    except sweeps.SweepError as error:
        raise ExperimentError(str(error)) from None
