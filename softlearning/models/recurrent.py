"""LSTM summarizers: an LSTM over the observation history, then a Dense
stack (tf-keras). Inputs are sequences (B, T, in); every sequence starts from
the LSTM's zero state, as every episode does when acting (the numpy half,
numpy_lstm.py, steps the same weights one observation at a time)."""

import tf_keras as keras


def recurrent_model(input_size, lstm_units, hidden_layer_sizes, output_size,
                    activation='relu', output_activation='linear',
                    name='recurrent_model'):
    model = keras.Sequential(
        [keras.layers.LSTM(lstm_units, return_sequences=True)]
        + [keras.layers.Dense(units, activation=activation)
           for units in hidden_layer_sizes]
        + [keras.layers.Dense(output_size, activation=output_activation)],
        name=name)
    model.build((None, None, input_size))
    return model
