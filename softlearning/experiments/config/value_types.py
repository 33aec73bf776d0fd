"""What a user sets (``--config KEY=VALUE``, a sweep file's ``config``)
against the type of what it replaces, before Ray starts: a discount of
``"abc"`` or ``{0.9`` is one error line, not a trial that fails four times.

The expected type is the value the entry held before the user's settings:
a preset's, or else the constructor's literal default. An entry with
neither (None, or a default that is not a literal) takes any JSON value.
Entries whose meaning bounds them (``RANGES``: a discount of 1.5, a
negative learning rate) are checked against their bounds too, search
spaces at their ends.
"""

import json
import numbers

from softlearning.algorithms.temperature import TEMPERATURE_LOSSES
from softlearning.environments.observation_transform import TRANSFORMS

MISSING = object()
# Switches that also take 'auto' (the machine decides at start-up:
# algorithms/compilation.py), whatever the entry held before.
AUTO_SWITCHES = ('jit_compile',)
SWITCH = ("true, false or 'auto'",
          lambda value: isinstance(value, bool) or value == 'auto')
# Switches that also take an object: the options of what they switch on
# (batch_renorm: models/batch_renorm.py's, e.g. {"warmup_steps": 200000}).
OPTION_SWITCHES = ('batch_renorm',)
OPTION_SWITCH = ('true, false or an object of its options',
                 lambda value: isinstance(value, (bool, dict)))
# Entries that take one of a few strings: {entry: the valid ones}.
CHOICES = {'temperature_loss': TEMPERATURE_LOSSES,
           'observation_transform': TRANSFORMS}


def _between(low, high, low_open=False):
    def holds(value):
        return (value > low if low_open else value >= low) and value <= high
    return holds


_AT_LEAST_1 = ('at least 1', lambda value: value >= 1)
_AT_LEAST_0 = ('at least 0', lambda value: value >= 0)
# Entries whose meaning bounds their values: {entry: (the bounds in words,
# test of one number)}; a list (layer sizes) is tested number by number.
RANGES = {
    'discount': ('in [0, 1]', _between(0, 1)),
    'tau': ('in (0, 1]', _between(0, 1, low_open=True)),
    'batch_size': _AT_LEAST_1,
    'n_epochs': _AT_LEAST_1,
    'epoch_length': _AT_LEAST_1,
    'max_path_length': _AT_LEAST_1,
    'max_size': _AT_LEAST_1,
    'n_train_repeat': _AT_LEAST_1,
    'train_every_n_steps': _AT_LEAST_1,
    'target_update_interval': _AT_LEAST_1,
    'hidden_layer_sizes': _AT_LEAST_1,
    'eval_n_episodes': _AT_LEAST_0,
    'n_initial_exploration_steps': _AT_LEAST_0,
    'relabeled_goals': _AT_LEAST_0,
    'random_action_probability': ('in [0, 1]', _between(0, 1)),
}
_POSITIVE = ('above 0', lambda value: value > 0)


def _range(name):
    """(bounds in words, test) of an entry's values, or None."""
    if name in RANGES:
        return RANGES[name]
    if name.endswith('_lr') or name == 'learning_rate':
        return _POSITIVE
    return None


def _in_range(bounds, value):
    numbers = value if isinstance(value, (list, tuple)) else [value]
    return all(bounds[1](number) for number in numbers if _is_number(number))


class NotJson(str):
    """A ``--config`` value that did not parse as JSON. It is taken as a
    string only where the entry it sets holds a string."""


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _kind(expected):
    """(name of the expected kind, test of a value), or None: anything."""
    if isinstance(expected, bool):
        return 'true or false', lambda value: isinstance(value, bool)
    if _is_integer(expected):
        return 'an integer', _is_integer
    if _is_number(expected):
        return 'a number', _is_number
    if isinstance(expected, str):
        if expected == 'auto':  # 'auto' stands for a computed number
            return "'auto' or a number", lambda value: (
                value == 'auto' or _is_number(value))
        return 'a string', lambda value: isinstance(value, str)
    if isinstance(expected, (list, tuple)):
        if expected and all(map(_is_integer, expected)):
            return 'a list of integers', lambda value: isinstance(
                value, (list, tuple)) and all(map(_is_integer, value))
        if expected and all(map(_is_number, expected)):
            return 'a list of numbers', lambda value: isinstance(
                value, (list, tuple)) and all(map(_is_number, value))
        return 'a list', lambda value: isinstance(value, (list, tuple))
    if isinstance(expected, dict):
        return 'an object', lambda value: isinstance(value, dict)
    return None


def _candidates(value):
    """The values a (JSON) search space can give (a range's ends), or
    [value]."""
    if isinstance(value, dict) and len(value) == 1:
        (form, argument), = value.items()
        if form in ('grid_search', 'choice') and isinstance(argument, list):
            return argument
        ends = (isinstance(argument, list) and len(argument) == 2
                and all(map(_is_number, argument)))
        if form in ('uniform', 'loguniform'):
            return [float(end) for end in argument] if ends else [0.5]
        if form == 'randint':  # [low, high)
            return [int(argument[0]), int(argument[1]) - 1] if ends else [1]
    return [value]


def _shown(value):
    if isinstance(value, NotJson):
        return str(value)
    return json.dumps(value, default=str)


def check_value(key, value, expected, source='--config'):
    """Raises ValueError if ``value`` cannot replace ``expected`` (the
    entry's value before the user's settings, or MISSING)."""
    if isinstance(expected, dict) and 'grid_search' in expected:
        expected = (expected['grid_search'] or [None])[0]  # a preset's grid
    name = key.rsplit('.', 1)[-1]
    if name in AUTO_SWITCHES:
        kind = SWITCH
    elif name in OPTION_SWITCHES:
        kind = OPTION_SWITCH
    elif name in CHOICES:
        kind = (f"one of {', '.join(CHOICES[name])}",
                lambda value: value in CHOICES[name])
    else:
        kind = None if expected in (MISSING, None) else _kind(expected)
    for candidate in _candidates(value):
        if isinstance(candidate, NotJson):
            if kind is not None and (isinstance(expected, str)
                                     or kind is SWITCH or name in CHOICES):
                candidate = str(candidate)  # a bare word for a string entry
            else:
                raise ValueError(
                    f"{source} {key}={candidate}: the value is not JSON; "
                    "write a number (0.9), true/false, a list ([64, 64]), "
                    "an object, or a string in quotes "
                    f"({key}='\"{candidate}\"').")
        if kind is not None and not kind[1](candidate):
            raise ValueError(
                f"{source} {key}={_shown(value)}: {key} takes {kind[0]} "
                f"(its default is {_shown(expected)}).")
        bounds = _range(name)
        if bounds is not None and not _in_range(bounds, candidate):
            raise ValueError(
                f"{source} {key}={_shown(value)}: {name} must be "
                f"{bounds[0]} (its default is {_shown(expected)}).")


def plain(value):
    """``value`` as the variant stores it (a NotJson as a plain string)."""
    return str(value) if isinstance(value, NotJson) else value


def lookup(variant_spec, dotted_key):
    """The value at ``dotted_key`` in the variant, or MISSING."""
    node = variant_spec
    for key in dotted_key.split('.'):
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]
    return node


def check_settings(settings, before, constructor_defaults):
    """Each (dotted key, value, source) of the user's settings against the
    variant ``before`` them, or else the constructors' defaults
    ({dotted key: default})."""
    for key, value, source in settings:
        expected = lookup(before, key)
        if expected is MISSING:
            expected = constructor_defaults.get(key, MISSING)
        check_value(key, value, expected, source)
