"""An LSTM followed by a Dense stack, in numpy, stepping one observation at a
time: the acting half of the recurrent policies (softlearning/models/
recurrent.py builds the Keras half).

Weights come in the order Keras' ``get_weights()`` returns them for
``Sequential([LSTM(units), Dense, ..., Dense])``: the LSTM's kernel (in, 4u),
recurrent kernel (u, 4u) and bias (4u), gates in Keras' order (input, forget,
cell, output), then the Dense stack's kernel/bias pairs. Like numpy_mlp.py,
this module must not import TensorFlow (sampler actors use it).
"""

import numpy as np

from .numpy_mlp import NumpyMLP, dense_stack_shapes, float64_copies


def lstm_shapes(input_size, units):
    return [(int(input_size), 4 * int(units)), (int(units), 4 * int(units)),
            (4 * int(units),)]


def recurrent_network_shapes(input_size, lstm_units, hidden_layer_sizes,
                             output_size):
    return (lstm_shapes(input_size, lstm_units)
            + dense_stack_shapes(lstm_units, hidden_layer_sizes, output_size))


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # overflow-free


class NumpyRecurrentNetwork:
    """``step(inputs (B, in), state) -> (outputs (B, out), state)``; a state
    is the LSTM's (h, c), each (B, units); ``None`` is the zero state that
    starts every episode."""

    def __init__(self, weights, activation='relu', output_activation='linear'):
        self._activation = activation
        self._output_activation = output_activation
        self.set_weights(weights)

    def set_weights(self, weights):
        weights = [np.asarray(w) for w in weights]
        self._weights = weights[:3]
        self._kernel, self._recurrent_kernel, self._bias = float64_copies(
            weights[:3])
        self._units = self._recurrent_kernel.shape[0]
        self._head = NumpyMLP(weights[3:], self._activation,
                              self._output_activation)

    def get_weights(self):
        return [*self._weights, *self._head.get_weights()]

    def initial_state(self, batch_size):
        zeros = np.zeros((batch_size, self._units), np.float32)
        return zeros, zeros.copy()

    def __call__(self, inputs):
        """Outputs for a batch of first steps (zero state)."""
        return self.step(inputs, None)[0]

    def step(self, inputs, state=None):
        h, c = self.initial_state(len(inputs)) if state is None else state
        z = (np.asarray(inputs, np.float64) @ self._kernel
             + np.asarray(h, np.float64) @ self._recurrent_kernel
             + self._bias)
        i, f, g, o = np.split(z, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return self._head(h), (h.astype(np.float32), c.astype(np.float32))


class NumpyRecurrentMirror(NumpyRecurrentNetwork):
    """A numpy copy of a Keras LSTM + Dense stack, refreshed from the model
    after each training call (as ``NumpyMirror`` is for MLPs)."""

    def __init__(self, model, activation, output_activation='linear'):
        self._model = model
        super().__init__(model.get_weights(), activation, output_activation)

    def source_variables(self):
        """The model's variables in the order ``set_weights`` reads them."""
        return self._model.weights
