"""LSTM summarizers: an LSTM over the observation history, then a Dense
stack (tf-keras). Inputs are sequences (B, T, in); every sequence starts from
the LSTM's zero state, as every episode does when acting (the numpy half,
numpy_lstm.py, steps the same weights one observation at a time).

The LSTM is unrolled: in the compiled update T is fixed (the pool's window),
and T copies of the cell run about 2x faster on a CPU than the loop over
time steps that Keras builds otherwise (46 against 23 recurrent SAC
updates/s, benchmarks/throughput.py --policy recurrent; XLA was slower
still). Subclassed models, because a Keras functional or Sequential model
would fix T when built. Under ``precision='bfloat16'`` (models/precision.py)
the LSTM and the hidden Dense layers compute in bfloat16, the output layer
in float32.
"""

import numpy as np
import tf_keras as keras

from .precision import DEFAULT_PRECISION, compute_dtype, output_dtype


class RecurrentNetwork(keras.Model):
    """LSTM, then Dense layers; optionally concatenating a second input
    (a Q-function's actions) to the LSTM's summaries."""

    def __init__(self, lstm_units, hidden_layer_sizes, output_size,
                 activation='relu', output_activation='linear',
                 name='recurrent_model', precision=DEFAULT_PRECISION):
        super().__init__(name=name)
        dtype = compute_dtype(precision)
        self.lstm = keras.layers.LSTM(lstm_units, return_sequences=True,
                                      unroll=True, dtype=dtype)
        self.head = [keras.layers.Dense(units, activation=activation,
                                        dtype=dtype)
                     for units in hidden_layer_sizes]
        self.head.append(keras.layers.Dense(output_size,
                                            activation=output_activation,
                                            dtype=output_dtype(precision)))

    def call(self, inputs):
        if isinstance(inputs, (list, tuple)):
            sequence, extra = inputs
            x = keras.layers.concatenate([self.lstm(sequence), extra])
        else:
            x = self.lstm(inputs)
        for layer in self.head:
            x = layer(x)
        return x


def recurrent_model(input_size, lstm_units, hidden_layer_sizes, output_size,
                    activation='relu', output_activation='linear',
                    name='recurrent_model', extra_input_size=None,
                    precision=DEFAULT_PRECISION):
    """Builds (creates the weights of) a ``RecurrentNetwork``; with
    ``extra_input_size`` it takes [sequence, extra] (B, T, ...) pairs."""
    model = RecurrentNetwork(lstm_units, hidden_layer_sizes, output_size,
                             activation, output_activation, name=name,
                             precision=precision)
    sequence = np.zeros((1, 1, input_size), np.float32)
    if extra_input_size is None:
        model(sequence)
    else:
        model([sequence, np.zeros((1, 1, extra_input_size), np.float32)])
    return model
