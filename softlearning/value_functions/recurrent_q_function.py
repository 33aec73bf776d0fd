"""Recurrent Q-functions: Q(h_t, a_t), h_t an LSTM's summary of the
observations o_0..o_t of a sequence (zero state at o_0).

Inputs are sequences: observations (B, T, ...) and actions (B, T, |A|) give
(B, T, 1). Each Q-function has its own LSTM (the policy has another), so the
critic's loss trains the critic's summarizer only.
"""

import numpy as np
import tf_keras as keras

from softlearning.models import concat_observations, flat_size

from .feedforward_q_function import FeedforwardQFunction


def recurrent_Q_model(observation_size, action_size, lstm_units,
                      hidden_layer_sizes, activation='relu', name='Q'):
    observations = keras.Input((None, observation_size))
    actions = keras.Input((None, action_size))
    summaries = keras.layers.LSTM(lstm_units, return_sequences=True)(
        observations)
    x = keras.layers.Concatenate()([summaries, actions])
    for units in hidden_layer_sizes:
        x = keras.layers.Dense(units, activation=activation)(x)
    return keras.Model([observations, actions], keras.layers.Dense(1)(x),
                       name=name)


class RecurrentQFunction(FeedforwardQFunction):

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, lstm_units=64, name='Q'):
        self.observation_keys = tuple(observation_keys or observation_shapes)
        self._config = dict(
            observation_shapes=observation_shapes, action_shape=action_shape,
            hidden_layer_sizes=tuple(hidden_layer_sizes),
            activation=activation, observation_keys=self.observation_keys,
            lstm_units=int(lstm_units))
        self.name = name
        self.model = recurrent_Q_model(
            flat_size(observation_shapes, self.observation_keys),
            int(np.prod(action_shape)), int(lstm_units), hidden_layer_sizes,
            activation=activation, name=name)

    def __call__(self, observations, actions):
        return self.model([concat_observations(observations,
                                               self.observation_keys),
                           actions])


def double_recurrent_Q_function(*args, **kwargs):
    """Twin recurrent Q-functions."""
    return tuple(RecurrentQFunction(*args, name=f'Q{i}', **kwargs)
                 for i in range(2))


def recurrent_Q_function(*args, **kwargs):
    """One recurrent Q-function, as a tuple like the twin's."""
    return (RecurrentQFunction(*args, **kwargs),)


double_recurrent_Q_function.__wrapped__ = RecurrentQFunction
recurrent_Q_function.__wrapped__ = RecurrentQFunction
