"""Applies the physical parameters pushed by the curriculum inside a sampler.

A value is either a number (set now, kept until changed) or a
``{'low': a, 'high': b}`` range, from which a value is drawn at the start of
every episode (domain randomization). Samplers call ``before_reset()``
before each ``environment.reset``.
"""

import numpy as np


def is_range(value):
    return isinstance(value, dict)


class PhysicalParameterSetter:

    def __init__(self, environment, seed=None):
        self._environment = environment
        self._ranges = {}
        self._np_random = np.random.default_rng(seed)
        self._values = {}

    def set(self, values):
        fixed = {key: value for key, value in values.items()
                 if not is_range(value)}
        for key in fixed:
            self._ranges.pop(key, None)
        self._ranges.update({key: (float(value['low']), float(value['high']))
                             for key, value in values.items()
                             if is_range(value)})
        self._values.update(values)
        if fixed:
            self._environment.set_physical_parameters(fixed)

    def before_reset(self):
        if self._ranges:
            self._environment.set_physical_parameters({
                key: float(self._np_random.uniform(low, high))
                for key, (low, high) in self._ranges.items()})

    @property
    def values(self):
        """Everything set so far (ranges as ranges)."""
        return dict(self._values)
