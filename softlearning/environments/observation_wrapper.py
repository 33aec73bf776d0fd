"""The base of adapters that change what an environment observes
(``PartiallyObserved`` in partial_observation.py, ``Pixels`` in pixels.py).

A subclass sets ``self._observation_space`` and implements ``reset``,
``step`` and the episode state; everything else (actions, rendering,
the physical parameters the curriculum sets) is the wrapped adapter's.
"""


class ObservationWrapper:

    def __init__(self, environment):
        self._environment = environment

    @property
    def observation_space(self):
        return self._observation_space

    @property
    def observation_keys(self):
        return tuple(self._observation_space.spaces)

    @property
    def observation_shapes(self):
        return {key: space.shape
                for key, space in self._observation_space.spaces.items()}

    @property
    def wrapped(self):
        return self._environment

    def __getattr__(self, name):
        if name == '_environment':  # not set yet (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self._environment, name)
