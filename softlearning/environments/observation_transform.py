"""Observations transformed on their way to the agent.

``observation_transform: symlog`` among an environment's kwargs (e.g.
``--config environment_params.training.kwargs.observation_transform=symlog``,
which evaluation follows) gives the agent sign(x) * log(1 + |x|) of every
real-valued observation entry instead of x, as DreamerV3 feeds vector
observations: the identity's slope near zero, a logarithm's growth far from
it. Sensors with heavy tails then stay within a few units: dm_control dog's
touch sensors read up to about 2,000 in most steps and past 40,000 in a few,
and one such reading in a minibatch moves a batch-normalized network's
running statistics far from where every other observation sits (CrossQ's
preset sets it on dog; ``observation_transform: none`` turns it off).

Goal entries (``achieved_goal``, ``desired_goal``) stay as they are: the
environment's ``compute_reward`` reads them when hindsight replay relabels.
Integer observations (pixels) stay as they are too. The transform is the
agent's, not the task's: the adapter underneath gets its other kwargs, and
rewards, actions and episode state are its own.
"""

import numpy as np

from softlearning.utils.registry import check_choice

from .observation_wrapper import ObservationWrapper

KWARG = 'observation_transform'
# 'none' turns off a transform a preset chose (CrossQ's for dm_control dog).
TRANSFORMS = ('none', 'symlog')
UNTRANSFORMED_KEYS = ('achieved_goal', 'desired_goal')


def symlog(x):
    return np.sign(x) * np.log1p(np.abs(x))


def check_transform(transform):
    """``transform``, or one ValueError naming the valid ones."""
    return check_choice(transform, TRANSFORMS, KWARG)


def _transformed(key, space):
    from gymnasium import spaces
    return (key not in UNTRANSFORMED_KEYS and isinstance(space, spaces.Box)
            and np.issubdtype(space.dtype, np.floating))


def transformed(environment, transform):
    """``environment`` as the agent observes it under ``transform`` (None
    or 'none': as it is)."""
    if transform in (None, 'none'):
        return environment
    return TransformedObservations(environment, transform)


class TransformedObservations(ObservationWrapper):
    """An environment adapter whose real-valued observation entries are
    transformed (``TRANSFORMS``); everything else is the wrapped one's."""

    def __init__(self, environment, transform):
        from gymnasium import spaces
        super().__init__(environment)
        if check_transform(transform) == 'none':
            raise ValueError("TransformedObservations needs a transform other "
                             "than 'none' (transformed() leaves the "
                             "environment as it is for 'none').")
        self.transform = transform
        full = environment.observation_space.spaces
        self._keys = tuple(key for key, space in full.items()
                           if _transformed(key, space))
        self._observation_space = spaces.Dict({
            key: (spaces.Box(symlog(space.low), symlog(space.high),
                             space.shape, space.dtype)
                  if key in self._keys else space)
            for key, space in full.items()})

    def _observation(self, observation):
        return {key: (symlog(value).astype(value.dtype, copy=False)
                      if key in self._keys else value)
                for key, value in observation.items()}

    def reset(self, seed=None):
        return self._observation(self._environment.reset(seed=seed))

    def step(self, action):
        observation, reward, terminated, truncated, info = (
            self._environment.step(action))
        return (self._observation(observation), reward, terminated, truncated,
                info)

    def __repr__(self):
        return (f"TransformedObservations({self._environment!r}, "
                f"{self.transform})")
