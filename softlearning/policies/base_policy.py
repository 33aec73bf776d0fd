"""What every policy offers.

Two ways to act:
- ``step(observation, state)`` (one step of a running episode, the way
  samplers and rollouts act: recurrent policies carry a state from step to
  step, ``None`` at an episode's start) and ``action(observation)`` /
  ``actions_np(observations)``: numpy in, numpy out, for samplers stepping
  environments (no TensorFlow dispatch per step);
- ``actions(observations)`` / ``actions_and_log_probs(...)`` /
  ``log_probs(...)``: TensorFlow tensors, for use inside compiled updates.
"""

import contextlib

import numpy as np


class BasePolicy:

    # TensorFlow policies: the Keras model (or tf.Module) holding every
    # weight, which checkpoints and SavedModel export track.
    model = None
    # Recurrent policies act on the history (see ``step``) and train on
    # sequences.
    is_recurrent = False

    def __init__(self, observation_keys, action_shape, seed=None):
        self.observation_keys = tuple(observation_keys)
        self.action_shape = tuple(action_shape)
        self._deterministic = False
        self._np_random = np.random.default_rng(seed)

    @contextlib.contextmanager
    def set_deterministic(self, deterministic=True):
        """``with policy.set_deterministic(): ...`` acts with the mode."""
        previous, self._deterministic = self._deterministic, deterministic
        try:
            yield
        finally:
            self._deterministic = previous

    @property
    def deterministic(self):
        return self._deterministic

    def step(self, observation, state=None):
        """The action for one observation (unbatched) of a running episode,
        and the state to pass with the next one (always None here)."""
        return self.action(observation), None

    def step_batch(self, observations, states):
        """``step`` for several running episodes at once (one environment
        each, samplers stepping K environments): a batch of observations
        (dict of (K, ...) arrays) and the K episodes' states -> actions (K,
        |A|) and the K states to pass with their next observations. One
        call, so the policy's cost is paid once per vector step; with K = 1
        it draws what ``step`` draws."""
        return self.actions_np(observations), [None] * len(states)

    def action(self, observation):
        """One observation dict (unbatched) -> one action (numpy)."""
        batched = {key: value[None] for key, value in observation.items()}
        return self.actions_np(batched)[0]

    def actions_np(self, observations):
        raise NotImplementedError

    def actions(self, observations, seed=None):
        raise NotImplementedError

    def actions_and_log_probs(self, observations, seed=None):
        raise NotImplementedError

    def log_probs(self, observations, actions):
        raise NotImplementedError

    @property
    def trainable_variables(self):
        return []

    def get_weights(self):
        return []

    def set_weights(self, weights):
        pass

    def get_np_random_state(self):
        return self._np_random.bit_generator.state

    def set_np_random_state(self, state):
        self._np_random.bit_generator.state = state

    def get_diagnostics(self, observations):
        return {}
