"""SimbaV2's reward scaling (Lee et al. 2025, section 4.5): the critics
learn from rewards divided by

    max(sqrt(var(G) + eps), max |G| / g_max)

where G is the running discounted return of the training episodes,
G_t = discount * G_{t-1} + r_t (G = r at an episode's first step), its
variance and largest magnitude taken over every step collected so far. The
first term scales returns to about unit spread whatever the task's reward
units; the second keeps every return seen within +-g_max, the support of a
categorical critic, so no target falls off its ends.

The statistics move with every collected transition (``observe``, with the
transitions' episode ids and steps, so the interleaved episodes of several
sampler actors each keep their own G) and are part of the algorithm's
checkpoint state, so a resumed run scales as the uninterrupted one.

``RewardScale`` is what the shared update (fused_updates.py) holds: the
factor of rewards in the critics' targets, ``reward_scale`` times the
return scale when the option is on.
"""

import collections

import numpy as np
import tensorflow as tf

# The running returns of this many most recent episodes are kept: more than
# the sampler actors that interleave episodes.
RUNNING_EPISODES = 64


class ReturnScale:

    def __init__(self, discount, g_max=5.0, epsilon=1e-8):
        if not g_max > 0:
            raise ValueError(f"reward_normalization: g_max must be positive, "
                             f"not {g_max!r}.")
        self._discount = float(discount)
        self._g_max = float(g_max)
        self._epsilon = float(epsilon)
        # Running mean and variance of G (Chan et al.'s parallel update, one
        # step at a time, from a unit variance of weight 1e-4: the first
        # returns replace it).
        self._count, self._mean, self._variance = 1e-4, 0.0, 1.0
        self._largest = 0.0
        self._returns = collections.OrderedDict()  # episode id -> G

    def observe(self, rewards, episodes, episode_steps):
        """Moves the statistics with collected transitions, in the order
        each episode took them (arrays of one entry per transition)."""
        rewards = np.asarray(rewards, np.float64).reshape(-1)
        for reward, episode, step in zip(rewards, np.asarray(episodes),
                                         np.asarray(episode_steps)):
            episode = int(episode)
            running = 0.0 if step == 0 else self._returns.get(episode, 0.0)
            value = self._discount * running + reward
            self._returns[episode] = value
            self._returns.move_to_end(episode)
            if len(self._returns) > RUNNING_EPISODES:
                self._returns.popitem(last=False)
            self._add(value)

    def _add(self, value):
        total = self._count + 1.0
        delta = value - self._mean
        self._mean += delta / total
        self._variance = (self._variance * self._count
                          + delta ** 2 * self._count / total) / total
        self._count = total
        self._largest = max(self._largest, abs(value))

    @property
    def denominator(self):
        return max(np.sqrt(self._variance + self._epsilon),
                   self._largest / self._g_max)

    @property
    def scale(self):
        """What rewards are multiplied by: 1 / the denominator."""
        return 1.0 / self.denominator

    def get_state(self):
        return {'count': self._count, 'mean': self._mean,
                'variance': self._variance, 'largest': self._largest,
                'returns': [[episode, value] for episode, value
                            in self._returns.items()]}

    def set_state(self, state):
        self._count, self._mean = state['count'], state['mean']
        self._variance, self._largest = state['variance'], state['largest']
        self._returns = collections.OrderedDict(
            (int(episode), value) for episode, value in state['returns'])


class RewardScale:
    """What the critics' targets multiply rewards by: ``reward_scale``,
    times ``ReturnScale``'s scale with ``reward_normalization``
    ({"g_max": 5.0}; None: the constant alone)."""

    def __init__(self, reward_scale, discount, reward_normalization=None):
        self._base = float(reward_scale)
        self._returns = (None if reward_normalization is None
                         else ReturnScale(discount, **reward_normalization))
        # A variable, so that the compiled update reads the scale of the
        # moment; without normalization, a constant of the graph.
        self.value = self._base
        if self._returns is not None:
            self.value = tf.Variable(self._base, trainable=False,
                                     dtype=tf.float32, name='reward_scale')
        self._assigned = self._base

    def observe(self, collected):
        """Moves the return statistics with a collect call's transitions
        (``Sampler.sample``'s rewards, episode ids and steps)."""
        if self._returns is not None:
            self._returns.observe(**collected)

    def refresh(self):
        """Sets the variable the updates read to the statistics' scale
        (an assignment only when it changed)."""
        if self._returns is None:
            return
        scale = self._base * self._returns.scale
        if scale != self._assigned:
            self.value.assign(scale)
            self._assigned = scale

    def __float__(self):
        return float(self.value)

    def diagnostics(self):
        if self._returns is None:
            return {}
        return {'reward_scale': float(self)}

    def get_state(self):
        if self._returns is None:
            return {}
        return {'return_scale': self._returns.get_state()}

    def set_state(self, state):
        if self._returns is not None:
            self._returns.set_state(state['return_scale'])
            self.refresh()
