"""What an option is (``Option``), the types that read the command line's
text, and the groups --help shows; option_schema.py holds every option
and the checks of what a user gives."""

import dataclasses
import json
from typing import Any, Callable, Mapping, Optional

from softlearning.experiments.config.value_types import NotJson

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


def _integer(value):
    """int(value), refusing a number with a fraction (an API's 2.5)."""
    if isinstance(value, float) and not value.is_integer():
        raise OptionValueError(f"expected an integer, got {value}")
    return int(value)


def positive_int(value):
    number = _integer(value)
    if number < 1:
        raise OptionValueError(f"expected a positive integer, got {value}")
    return number


def non_negative_int(value):
    number = _integer(value)
    if number < 0:
        raise OptionValueError(
            f"expected a non-negative integer, got {value}")
    return number


def positive_float(value):
    number = float(value)
    if not number > 0:
        raise OptionValueError(f"expected a positive number, got {value}")
    return number


# The types whose range the Python API's numbers are held to as well.
NUMBER_TYPES = (positive_int, non_negative_int, positive_float)


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


SWEEPS_GROUP = ('sweeps (see docs/guide/sweeps.md and examples/sweeps/)')
TRACKING_GROUP = ('experiment tracking (TensorBoard: always, tensorboard '
                  '--logdir ~/ray_results)')
# The groups, in --help's order.
GROUP_ORDER = (
    'environment', 'algorithm and variant', 'experiment',
    'parallel sampling and curriculum', SWEEPS_GROUP, TRACKING_GROUP,
    'resources', 'partial observability', 'pixels')
