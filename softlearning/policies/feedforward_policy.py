"""The TensorFlow half of policies whose weights are one Dense stack.

A ``FeedforwardPolicy`` subclass names its numpy half (``numpy_class``, a
``NumpyMLPPolicy`` in numpy_policies.py), which fixes the network's input and
output sizes and output activation; so the Keras model here and the numpy
copy that acts (here, and in TensorFlow-free sampler actors) always agree,
and ``get_weights()`` of either loads into the other.
"""

import numpy as np
import tensorflow as tf

from softlearning.models import NumpyMirror, concat_observations, flat_size
from softlearning.models.feedforward import (build_network, layer_weights,
                                             set_layer_weights)
from softlearning.models.networks import (DEFAULT_KERNEL_INITIALIZER,
                                          NORMALIZING_NETWORKS, head_options,
                                          network_options, numpy_mirror_class)
from softlearning.models.precision import DEFAULT_PRECISION

from .base_policy import BasePolicy
from .numpy_policies import NumpyActing, network_input_layout


class FeedforwardPolicy(NumpyActing, BasePolicy):

    numpy_class = None  # a NumpyMLPPolicy subclass
    default_name = 'feedforward_policy'  # of the Keras model

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, seed=None, name=None, encoder=None,
                 batch_renorm=None, network='mlp',
                 kernel_initializer=DEFAULT_KERNEL_INITIALIZER,
                 precision=DEFAULT_PRECISION):
        """``encoder``: a pixel agent's ConvEncoder (models/conv_encoder.py),
        owned and trained by the Q-functions; the policy reads its features
        without updating it. ``batch_renorm``: CrossQ's batch
        renormalization layers (models/feedforward.py), True or their
        options; the policy's update runs them in training mode, acting and
        targets in inference mode. ``network``: 'mlp', 'simba', 'simbav2' or
        'normalized_mlp' (models/networks.py; their blocks, one per hidden
        layer size).
        ``kernel_initializer``: an 'mlp' network's Dense kernels'
        (models/numpy_mlp.py's KERNEL_INITIALIZERS). ``precision``: what
        the network computes in, in the update (models/precision.py; the
        trainable passes the update's, algorithm_params.config.precision);
        acting is float32 (the numpy copy holds the float32 weights)."""
        model_options = network_options(network, batch_renorm, encoder,
                                        kernel_initializer, precision)
        observation_keys = tuple(observation_keys or observation_shapes)
        super().__init__(observation_keys, action_shape, seed=seed)
        self._encoder = encoder
        # What ``clone`` builds a copy from; subclasses add their options.
        self._config = dict(
            observation_shapes=observation_shapes, action_shape=action_shape,
            hidden_layer_sizes=tuple(hidden_layer_sizes),
            activation=activation, observation_keys=observation_keys,
            **model_options)
        self._name = name or self.default_name
        self._action_size = int(np.prod(action_shape))
        layout = self.numpy_class
        input_shapes, input_keys = network_input_layout(
            observation_shapes, observation_keys,
            None if encoder is None else encoder.output_size)
        if network in NORMALIZING_NETWORKS:
            model_options.update(
                observation_keys=observation_keys,
                normalized_size=flat_size(input_shapes, input_keys))
        model_options.update(head_options(network, layout.output_heads))
        self._model = self._build_model(
            layout.network_input_size(input_shapes, input_keys,
                                      self._action_size),
            hidden_layer_sizes, layout.network_output_size(self._action_size),
            activation=activation, output_activation=layout.output_activation,
            name=self._name, **model_options)
        # The numpy copy that acts (``actions_np``, ``step``).
        mirror_class = (numpy_mirror_class(network) if network != 'mlp'
                        else self.mirror_class)
        self._acting_network = mirror_class(
            self._model, activation, layout.output_activation)
        self._acting_encoder = (None if encoder is None
                                else encoder.numpy_copy())

    mirror_class = NumpyMirror

    def _build_model(self, *args, **kwargs):
        return build_network(*args, **kwargs)

    def _network_inputs(self, observations):
        """The network's input (TensorFlow): the encoder's features, never
        differentiated here, or the concatenated observations."""
        if self._encoder is not None:
            return tf.stop_gradient(self._encoder(observations))
        return concat_observations(observations, self.observation_keys)

    def clone(self, name=None):
        """A new policy of the same shape holding a copy of the weights
        (TD3's target policy)."""
        if self._encoder is not None:
            raise NotImplementedError(
                "A policy reading a shared encoder cannot be cloned.")
        copy = type(self)(**self._config, name=name or f'{self._name}_target')
        copy.set_weights(self.get_weights())
        return copy

    def acting_variables(self):
        """The variables the numpy copy that acts is loaded from, in the
        order ``set_acting_weights`` takes their values. The compiled update
        returns those values (fused_updates.py): read one at a time from
        Python, each costs an op dispatch (~100 us; 2.7 ms for CrossQ's
        policy, a sixth of the time of an update after every step)."""
        return self._acting_network.source_variables()

    def set_acting_weights(self, values):
        """Loads the values of ``acting_variables()`` into the numpy copy
        that acts (and the encoder's weights, which the critic's updates
        change)."""
        self._acting_network.set_weights(values)
        if self._encoder is not None:
            self._acting_encoder.set_weights(self._encoder.get_weights())

    def refresh_numpy_weights(self):
        """Copies the TensorFlow weights into the numpy copy that acts."""
        self.set_acting_weights([v.numpy() for v in self.acting_variables()])

    @property
    def encoder(self):
        return self._encoder

    @property
    def model(self):
        """The Keras model holding every weight (checkpoints, export)."""
        return self._model

    @property
    def trainable_variables(self):
        """The network's: not the encoder's, which the critic trains."""
        return self._model.trainable_variables

    def get_weights(self):
        """What the numpy half loads: the encoder's weights (if any), then
        the network's."""
        encoder = [] if self._encoder is None else self._encoder.get_weights()
        return [*encoder, *layer_weights(self._model)]

    def set_weights(self, weights):
        weights = list(weights)
        if self._encoder is not None:
            n_encoder = len(self._encoder.get_weights())
            self._encoder.set_weights(weights[:n_encoder])
            weights = weights[n_encoder:]
        set_layer_weights(self._model, weights)
        self.refresh_numpy_weights()
