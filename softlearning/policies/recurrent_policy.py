"""Recurrent policies: an LSTM summarizes the observation history, the
feedforward policy's Dense stack acts on the summary.

``RecurrentGaussianPolicy`` (recurrent SAC) and
``RecurrentDeterministicPolicy`` (recurrent TD3/DDPG) are the feedforward
policies with an LSTM in front: in updates they take sequences (B, T, ...)
and return (B, T, ...), every sequence starting from the zero state; acting,
they step one observation at a time in numpy, carrying the LSTM state through
the episode (``RecurrentActing`` in numpy_policies.py, shared with the
TensorFlow-free actors' policies).
"""

from softlearning.models import NumpyRecurrentMirror, recurrent_model

from .deterministic_policy import FeedforwardDeterministicPolicy
from .gaussian_policy import FeedforwardGaussianPolicy
from .numpy_policies import (NumpyRecurrentDeterministicPolicy,
                             NumpyRecurrentGaussianPolicy, RecurrentActing)


class RecurrentModel(RecurrentActing):
    """The Keras LSTM + Dense stack, and its numpy mirror."""

    mirror_class = NumpyRecurrentMirror

    def __init__(self, *args, lstm_units=64, **kwargs):
        super().__init__(*args, lstm_units=lstm_units, **kwargs)
        self._config['lstm_units'] = self.lstm_units

    def _build_model(self, input_size, hidden_layer_sizes, output_size,
                     **kwargs):
        return recurrent_model(input_size, self.lstm_units,
                               hidden_layer_sizes, output_size, **kwargs)


class RecurrentGaussianPolicy(RecurrentModel, FeedforwardGaussianPolicy):

    numpy_class = NumpyRecurrentGaussianPolicy
    default_name = 'recurrent_gaussian_policy'


class RecurrentDeterministicPolicy(RecurrentModel,
                                   FeedforwardDeterministicPolicy):

    numpy_class = NumpyRecurrentDeterministicPolicy
    default_name = 'recurrent_deterministic_policy'
