"""Feedforward Q-functions Q(s, a) -> (B, 1) and their twin."""

import numpy as np
import tensorflow as tf

from softlearning.models import concat_observations, feedforward_model, flat_size


class FeedforwardQFunction:

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, name='Q', **model_options):
        self.observation_keys = tuple(observation_keys or observation_shapes)
        # What ``clone`` builds a copy from.
        self._config = dict(
            observation_shapes=observation_shapes, action_shape=action_shape,
            hidden_layer_sizes=tuple(hidden_layer_sizes),
            activation=activation, observation_keys=self.observation_keys,
            **model_options)
        self.name = name
        self.model = self._build_model(
            flat_size(observation_shapes, self.observation_keys),
            int(np.prod(action_shape)), hidden_layer_sizes, activation, name,
            **model_options)

    def _build_model(self, observation_size, action_size, hidden_layer_sizes,
                     activation, name):
        return feedforward_model(
            observation_size + action_size, hidden_layer_sizes, 1,
            activation=activation, name=name)

    def __call__(self, observations, actions):
        return self.model(tf.concat(
            [concat_observations(observations, self.observation_keys),
             actions], axis=-1))

    def clone(self, name=None):
        """A new Q-function of the same shape holding a copy of the weights
        (used for target networks)."""
        copy = type(self)(**self._config, name=name or f'{self.name}_target')
        copy.set_weights(self.get_weights())
        return copy

    @property
    def trainable_variables(self):
        return self.model.trainable_variables

    @property
    def variables(self):
        return self.model.variables

    def get_weights(self):
        return self.model.get_weights()

    def set_weights(self, weights):
        self.model.set_weights(weights)


def double_feedforward_Q_function(*args, **kwargs):
    """Twin Q-functions (clipped double Q-learning takes their minimum)."""
    return tuple(FeedforwardQFunction(*args, name=f'Q{i}', **kwargs)
                 for i in range(2))


def feedforward_Q_function(*args, **kwargs):
    """One Q-function, as a tuple like the twin's."""
    return (FeedforwardQFunction(*args, **kwargs),)


# Both take FeedforwardQFunction's arguments; __wrapped__ says so to
# inspect.signature (and to the check of variant config keys).
double_feedforward_Q_function.__wrapped__ = FeedforwardQFunction
feedforward_Q_function.__wrapped__ = FeedforwardQFunction
