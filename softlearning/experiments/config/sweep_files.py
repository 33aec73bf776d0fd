"""Sweep files, and the sweep options' choices: what a sweep is, before
Tune (tune/sweeps.py builds Tune's objects from it).

A sweep file (JSON, or YAML with a .yaml / .yml name) holds ``--config``
overrides under "config" and any other option of the example by its name:

    {"domain": "Pendulum", "task": "v1", "num_samples": 4,
     "scheduler": "asha", "metric": "evaluation/return-mean",
     "config": {"algorithm_params.config.policy_lr": {"loguniform": [1e-4, 3e-3]}}}

Options given on the command line win over the file's.
"""

import json
import os

from softlearning.utils.one_line import yaml_problem

from softlearning.experiments.config.option_types import (
    NUMBER_TYPES, OptionValueError)

SCHEDULERS = ('fifo', 'asha', 'pbt')
SEARCH_ALGORITHMS = ('random', 'optuna')
DEFAULT_METRIC = 'evaluation/return-mean'
DEFAULT_MODE = 'max'


class SweepError(ValueError):
    """A bad sweep file or Tune setting (reported in one line)."""


def load_sweep_file(path):
    """The sweep file's object; one clear error if it is missing or not
    valid JSON / YAML."""
    if not os.path.isfile(path):
        raise SweepError(f"--sweep {path}: no such file.")
    with open(path) as f:
        text = f.read()
    if path.endswith(('.yaml', '.yml')):
        import yaml
        try:
            sweep = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise SweepError(f"--sweep {path} is not valid YAML: "
                             f"{yaml_problem(error)}.") from None
    else:
        try:
            sweep = json.loads(text)
        except json.JSONDecodeError as error:
            raise SweepError(
                f"--sweep {path} is not valid JSON: {error.msg} at line "
                f"{error.lineno}, column {error.colno}.") from None
    if not isinstance(sweep, dict):
        raise SweepError(f"--sweep {path}: expected an object of options, "
                         f"got {type(sweep).__name__}.")
    return sweep


def read_sweep_file(path, options):
    """(the sweep file's options by name, its ``config`` overrides as a
    list of (dotted key, value)); ``options``: {name: Option} of the
    schema, which the file's options are checked against."""
    if not path:
        return {}, []
    sweep = load_sweep_file(path)
    valid = {name: option for name, option in options.items()
             if name not in ('sweep', 'config')}
    config = sweep.pop('config', {}) or {}
    if not isinstance(config, dict):
        raise SweepError(f'--sweep {path}: "config" must be an object '
                         '{"dotted.key": value, ...}.')
    values = {}
    for name, value in sweep.items():
        option = valid.get(name.replace('-', '_'))
        if option is None:
            raise SweepError(
                f"--sweep {path}: unknown option '{name}'. Valid: "
                f"config, {', '.join(sorted(valid))}.")
        if option.choices is not None and value not in option.choices:
            raise SweepError(
                f"--sweep {path}: {name} '{value}' is not one of "
                f"{', '.join(map(str, option.choices))}.")
        values[option.name] = _typed(path, name, option, value)
    return values, list(config.items())


def _typed(path, name, option, value):
    """A sweep file's value as its option's type reads it (text as the
    command line's, numbers held to the type's range); a value the type
    refuses is an error naming the file."""
    if option.type is None or value is None or isinstance(
            value, (dict, list)) or (isinstance(value, bool)
                                     and option.type is not str):
        return value
    if not isinstance(value, str) and option.type not in NUMBER_TYPES:
        return value
    try:
        return option.type(value)
    except (OptionValueError, TypeError, ValueError) as error:
        raise SweepError(f"--sweep {path}: {name} {value!r}: {error}.") \
            from None
