"""Feedforward Q-functions Q(s, a) -> (B, 1) and their twin."""

import numpy as np
import tensorflow as tf

from softlearning.models import concat_observations, flat_size
from softlearning.models.feedforward import apply_with_dropout, build_network
from softlearning.models.networks import (DEFAULT_KERNEL_INITIALIZER,
                                          DENSE_STACKS, NORMALIZING_NETWORKS,
                                          network_options)
from softlearning.models.precision import DEFAULT_PRECISION

from .categorical_settings import categorical_settings


class FeedforwardQFunction:

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, name='Q', encoder=None,
                 dropout_rate=0.0, layer_norm=False, batch_renorm=None,
                 network='mlp',
                 kernel_initializer=DEFAULT_KERNEL_INITIALIZER,
                 categorical=None, precision=DEFAULT_PRECISION,
                 **model_options):
        """``encoder`` (a ConvEncoder, models/conv_encoder.py) turns the
        observations into the network's input; without one they are
        concatenated. Twin Q-functions share one encoder, which their loss
        trains. ``dropout_rate`` and ``layer_norm``: DroQ's critics (dropout
        after each hidden Dense layer, then LayerNorm, then the
        activation). ``batch_renorm``: CrossQ's critics (batch
        renormalization of the input and after each hidden layer; True or
        the layers' options, models/batch_renorm.py). ``network``: 'mlp'
        'simba', 'simbav2' or 'normalized_mlp' (models/networks.py; the
        observations normalized, the actions not).
        ``kernel_initializer``: an 'mlp' network's Dense kernels'
        (models/numpy_mlp.py's KERNEL_INITIALIZERS). ``categorical``: a
        categorical (C51-style) critic, {'n_atoms': N, 'v_min': ...,
        'v_max': ...}: the network's N outputs are the logits of the
        return's probabilities on N evenly spaced atoms from v_min to v_max
        (``support``); the algorithms' categorical update is
        algorithms/categorical_critics.py. ``precision``: what the network
        computes in (models/precision.py; the trainable passes the
        update's, algorithm_params.config.precision); its outputs are
        float32."""
        model_options.update(network_options(
            network, batch_renorm, encoder, kernel_initializer, precision))
        self.support = None
        if categorical is not None:
            categorical = categorical_settings(categorical)
            if 'output_size' in model_options:
                raise ValueError(
                    "A categorical critic's outputs are its atoms' logits; "
                    "it cannot also predict quantiles (n_quantiles, TQC).")
            model_options['output_size'] = categorical['n_atoms']
            self.support = np.linspace(
                categorical['v_min'], categorical['v_max'],
                categorical['n_atoms'], dtype=np.float32)
        if dropout_rate or layer_norm:
            model_options.update(dropout_rate=float(dropout_rate),
                                 layer_norm=bool(layer_norm))
        self.observation_keys = tuple(observation_keys or observation_shapes)
        self.encoder = encoder
        self.batch_renorm = bool(batch_renorm)
        # What ``clone`` builds a copy from.
        self._config = dict(
            observation_shapes=observation_shapes, action_shape=action_shape,
            hidden_layer_sizes=tuple(hidden_layer_sizes),
            activation=activation, observation_keys=self.observation_keys,
            **{key: value for key, value in model_options.items()
               if key != 'output_size' or categorical is None},
            **({} if categorical is None else {'categorical': categorical}))
        self.name = name
        self.model = self._build_model(
            (encoder.output_size if encoder is not None
             else flat_size(observation_shapes, self.observation_keys)),
            int(np.prod(action_shape)), hidden_layer_sizes, activation, name,
            **model_options)
        # DroQ's dropout: on whenever the Q-function is evaluated (all its
        # uses are updates), masks from its own generator, which the
        # model tracks (so checkpoints hold its state).
        self.dropout_rate = float(model_options.get('dropout_rate', 0.0))
        if self.dropout_rate:
            seed = int(tf.random.uniform((), 0, 2 ** 31 - 1, tf.int64))
            self.model.dropout_generator = tf.random.Generator.from_seed(seed)

    def _build_model(self, observation_size, action_size, hidden_layer_sizes,
                     activation, name, output_size=1, dropout_rate=0.0,
                     layer_norm=False, batch_renorm=None, network='mlp',
                     kernel_initializer=DEFAULT_KERNEL_INITIALIZER,
                     precision=DEFAULT_PRECISION):
        """``output_size``: 1 for Q(s, a); M for a critic that predicts M
        quantiles of the return (TQC)."""
        if network not in DENSE_STACKS:
            if dropout_rate or layer_norm:
                raise ValueError(f"A {network} critic has its own "
                                 "normalizations and no dropout; drop "
                                 "dropout_rate and layer_norm or use "
                                 "network 'mlp'.")
            return build_network(
                observation_size + action_size, hidden_layer_sizes,
                int(output_size), network=network,
                observation_keys=self.observation_keys,
                normalized_size=observation_size, activation=activation,
                name=name, precision=precision)
        options = dict(activation=activation, name=name,
                       layer_norm=bool(layer_norm), batch_renorm=batch_renorm,
                       kernel_initializer=kernel_initializer,
                       precision=precision)
        if network in NORMALIZING_NETWORKS:
            # The observations normalized, the actions after them not.
            options.update(observation_keys=self.observation_keys,
                           normalized_size=observation_size)
        return build_network(observation_size + action_size,
                             hidden_layer_sizes, int(output_size),
                             network=network, **options)

    def network_inputs(self, observations):
        """What the network reads of the observations: the encoder's
        features, or the observations concatenated. The Q-functions of one
        tuple (twins, and their target copies) read the same, so updates
        compute it once for all of them (``head``)."""
        if self.encoder is not None:
            return self.encoder(observations)
        return concat_observations(observations, self.observation_keys)

    def head(self, inputs, actions, training=False):
        """Q from ``network_inputs(observations)`` and the actions;
        ``training``: the network's training mode (it matters to batch
        renormalization only: CrossQ's critic step)."""
        inputs = tf.concat([inputs, actions], axis=-1)
        if not self.dropout_rate:
            return self.model(inputs, training=training)
        seed = tf.cast(self.model.dropout_generator.make_seeds(1)[:, 0],
                       tf.int32)
        return apply_with_dropout(self.model, inputs, self.dropout_rate, seed)

    def __call__(self, observations, actions):
        return self.head(self.network_inputs(observations), actions)

    def clone(self, name=None, encoder=None):
        """A new Q-function of the same shape holding a copy of the weights
        (used for target networks). With an encoder, the copy reads
        ``encoder`` (the target encoder its twin shares, see
        ``clone_Q_functions``), else a copy of this one's."""
        if self.encoder is not None and encoder is None:
            encoder = self.encoder.clone()
        copy = type(self)(**self._config, name=name or f'{self.name}_target',
                          encoder=encoder)
        copy.set_weights(self.get_weights())
        return copy

    @property
    def trainable_variables(self):
        """The encoder's (if any, shared with the twin) and the network's."""
        encoder = ([] if self.encoder is None
                   else self.encoder.trainable_variables)
        return [*encoder, *self.model.trainable_variables]

    @property
    def variables(self):
        return self.model.variables

    def get_weights(self):
        return self.model.get_weights()

    def set_weights(self, weights):
        self.model.set_weights(weights)


def clone_Q_functions(Qs):
    """Target copies of ``Qs``; Q-functions sharing an encoder get copies
    sharing one copy of it."""
    encoder = Qs[0].encoder
    target_encoder = None if encoder is None else encoder.clone()
    return tuple(Q.clone(encoder=target_encoder) for Q in Qs)


def double_feedforward_Q_function(*args, **kwargs):
    """Twin Q-functions (clipped double Q-learning takes their minimum)."""
    return tuple(FeedforwardQFunction(*args, name=f'Q{i}', **kwargs)
                 for i in range(2))


def feedforward_Q_function(*args, **kwargs):
    """One Q-function, as a tuple like the twin's."""
    return (FeedforwardQFunction(*args, **kwargs),)


def feedforward_Q_functions(*args, n_Q_functions=2, n_quantiles=None,
                            **kwargs):
    """An ensemble of ``n_Q_functions`` Q-functions (TQC's 5, REDQ's 10);
    with ``n_quantiles`` each predicts that many quantiles of the return
    (a distributional critic, TQC) instead of its expectation."""
    if n_quantiles is not None:
        kwargs['output_size'] = int(n_quantiles)
    return tuple(FeedforwardQFunction(*args, name=f'Q{i}', **kwargs)
                 for i in range(int(n_Q_functions)))


# They take FeedforwardQFunction's arguments (besides their own);
# __wrapped__ says so to the check of variant config keys.
double_feedforward_Q_function.__wrapped__ = FeedforwardQFunction
feedforward_Q_function.__wrapped__ = FeedforwardQFunction
feedforward_Q_functions.__wrapped__ = FeedforwardQFunction
