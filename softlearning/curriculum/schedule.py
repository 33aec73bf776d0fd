"""The environment-parameter curriculum: per parameter, values that take
effect at given training iterations.

    {"mass":     {"iters": [0, 20, 30, 40, 50],    "range": [0.0, 10.0]},
     "friction": {"iters": [50, 60, 70, 90, 120],  "range": [0.1, 0.5]}}

``values = linspace(range[0], range[1], len(iters))``. At the start of
iteration ``i`` every pending entry with ``i >= iters[0]`` is consumed and the
last consumed value applies. Before a parameter's first entry the
environment keeps its constructor value (the parameter is reported as NaN).

An *iteration* is one epoch of the training loop: collect experience with
all samplers -> add it to the replay pool -> train -> push the policy to the
samplers (RLAlgorithm runs ``epoch_length`` environment steps per epoch).

With ``"randomize": true`` the scheduled value is a half-width ``w``: each
sampler draws the parameter uniformly from ``[center - w, center + w]``
(``center`` defaults to 1.0, the constructor's value for the built-in
multiplier parameters) at the start of every episode; widening ``range``
widens the randomization as training goes on. The evaluation environment
uses ``center``.
"""

import json
import math
import numbers

import numpy as np

from softlearning.utils.registry import check_keys

SPEC_KEYS = ('iters', 'range', 'randomize', 'center')


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def validate_parameter_spec(name, spec):
    """Raises ValueError naming the bad value and what is expected."""
    where = f"curriculum parameter '{name}'"
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected an object with 'iters' and "
                         f"'range', got {spec!r}")
    check_keys(spec, SPEC_KEYS, 'key(s)', where)
    for key in ('iters', 'range'):
        if key not in spec:
            raise ValueError(f"{where}: missing '{key}'")
    iters = spec['iters']
    if (not isinstance(iters, (list, tuple)) or not iters
            or not all(isinstance(i, numbers.Integral)
                       and not isinstance(i, bool) and i >= 0
                       for i in iters)):
        raise ValueError(f"{where}: 'iters' must be a non-empty list of "
                         f"non-negative integers, got {iters!r}")
    if any(b <= a for a, b in zip(iters, iters[1:])):
        raise ValueError(f"{where}: 'iters' must be strictly increasing, "
                         f"got {list(iters)}")
    value_range = spec['range']
    if (not isinstance(value_range, (list, tuple)) or len(value_range) != 2
            or not all(_is_number(v) and math.isfinite(v)
                       for v in value_range)):
        raise ValueError(f"{where}: 'range' must be two numbers "
                         f"[range_min, range_max], got {value_range!r}")
    if not isinstance(spec.get('randomize', False), bool):
        raise ValueError(f"{where}: 'randomize' must be true or false, got "
                         f"{spec['randomize']!r}")
    if not _is_number(spec.get('center', 1.0)):
        raise ValueError(f"{where}: 'center' must be a number, got "
                         f"{spec['center']!r}")


def validate_curriculum_spec(spec):
    if not isinstance(spec, dict) or not spec:
        raise ValueError("curriculum: expected a non-empty object "
                         "{parameter: {'iters': [...], 'range': [min, max]}}"
                         f", got {spec!r}")
    for name, parameter_spec in spec.items():
        validate_parameter_spec(name, parameter_spec)
    return spec


def load_curriculum_file(path):
    """Reads and validates a curriculum JSON file. The file may hold the
    curriculum itself or an object with a 'curriculum' key."""
    try:
        with open(path) as f:
            spec = json.load(f)
    except OSError as error:
        raise ValueError(f"cannot read curriculum file '{path}': "
                         f"{error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"curriculum file '{path}' is not valid JSON: "
                         f"{error.msg} (line {error.lineno})") from None
    if isinstance(spec, dict) and set(spec) == {'curriculum'}:
        spec = spec['curriculum']
    return validate_curriculum_spec(spec)


class ParameterSchedule:
    """One parameter's entries, consumed as iterations pass."""

    def __init__(self, name, iters, range, randomize=False, center=1.0):
        validate_parameter_spec(name, {'iters': iters, 'range': range})
        self.name = name
        self.iters = [int(i) for i in iters]
        self.values = [float(v) for v in
                       np.linspace(range[0], range[1], len(iters))]
        self.randomize = bool(randomize)
        self.center = float(center)
        self.consumed = 0  # entries applied so far

    @property
    def value(self):
        """The scheduled value now, or None before the first entry."""
        return self.values[self.consumed - 1] if self.consumed else None

    def advance(self, iteration):
        """Consumes the entries due at ``iteration``; True if any was."""
        start = self.consumed
        while (self.consumed < len(self.iters)
               and iteration >= self.iters[self.consumed]):
            self.consumed += 1
        return self.consumed > start

    def environment_value(self):
        """What samplers receive: a number, or a {'low', 'high'} range to
        draw from per episode."""
        value = self.value
        if not self.randomize:
            return value
        return {'low': self.center - value, 'high': self.center + value}

    def evaluation_value(self):
        return self.center if self.randomize else self.value


class Curriculum:
    """All parameters' schedules; ``advance(i)`` at the start of iteration
    ``i`` returns the physical parameters that changed."""

    def __init__(self, spec):
        validate_curriculum_spec(spec)
        self.schedules = {name: ParameterSchedule(name, **parameter_spec)
                          for name, parameter_spec in spec.items()}

    @property
    def parameter_names(self):
        return tuple(self.schedules)

    def advance(self, iteration):
        changed = [name for name, schedule in self.schedules.items()
                   if schedule.advance(iteration)]
        return self._physical_parameters(changed)

    def _physical_parameters(self, names):
        return {name: self.schedules[name].environment_value()
                for name in names}

    def physical_parameters(self):
        """Every parameter that has a value now (for newly built envs)."""
        return self._physical_parameters(
            [name for name, schedule in self.schedules.items()
             if schedule.value is not None])

    def evaluation_physical_parameters(self, names):
        """The evaluation environment's values of the parameters ``names``
        (a randomized parameter's center)."""
        return {name: self.schedules[name].evaluation_value()
                for name in names}

    def values(self):
        """{name: scheduled value}, NaN before a parameter's first entry."""
        return {name: (float('nan') if schedule.value is None
                       else schedule.value)
                for name, schedule in self.schedules.items()}

    # Checkpoints ---------------------------------------------------------

    def get_state(self):
        return {name: schedule.consumed
                for name, schedule in self.schedules.items()}

    def set_state(self, state):
        if set(state) != set(self.schedules):
            raise ValueError(
                f"curriculum state has parameters {sorted(state)}, but this "
                f"curriculum has {sorted(self.schedules)}")
        for name, consumed in state.items():
            self.schedules[name].consumed = int(consumed)
