"""Recurrent Q-functions: Q(h_t, a_t), h_t an LSTM's summary of the
observations o_0..o_t of a sequence (zero state at o_0).

Inputs are sequences: observations (B, T, ...) and actions (B, T, |A|) give
(B, T, 1). Each Q-function has its own LSTM (the policy has another), so the
critic's loss trains the critic's summarizer only.
"""

from softlearning.models.networks import refuse_kernel_initializer
from softlearning.models.precision import DEFAULT_PRECISION
from softlearning.models.recurrent import recurrent_model

from .feedforward_q_function import FeedforwardQFunction


class RecurrentQFunction(FeedforwardQFunction):

    def __init__(self, *args, lstm_units=64, **kwargs):
        refuse_kernel_initializer(kwargs, 'A recurrent Q-function')
        super().__init__(*args, lstm_units=int(lstm_units), **kwargs)

    def _build_model(self, observation_size, action_size, hidden_layer_sizes,
                     activation, name, lstm_units,
                     precision=DEFAULT_PRECISION):
        return recurrent_model(observation_size, lstm_units,
                               hidden_layer_sizes, 1, activation=activation,
                               name=name, extra_input_size=action_size,
                               precision=precision)

    def head(self, inputs, actions):
        return self.model([inputs, actions])


def double_recurrent_Q_function(*args, **kwargs):
    """Twin recurrent Q-functions."""
    return tuple(RecurrentQFunction(*args, name=f'Q{i}', **kwargs)
                 for i in range(2))


def recurrent_Q_function(*args, **kwargs):
    """One recurrent Q-function, as a tuple like the twin's."""
    return (RecurrentQFunction(*args, **kwargs),)


double_recurrent_Q_function.__wrapped__ = RecurrentQFunction
recurrent_Q_function.__wrapped__ = RecurrentQFunction
