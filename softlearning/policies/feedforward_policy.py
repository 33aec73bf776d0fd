"""The TensorFlow half of policies whose weights are one Dense stack.

A ``FeedforwardPolicy`` subclass names its numpy half (``numpy_class``, a
``NumpyMLPPolicy`` in numpy_policies.py), which fixes the network's input and
output sizes and output activation; so the Keras model here and the numpy
copy that acts (here, and in TensorFlow-free sampler actors) always agree,
and ``get_weights()`` of either loads into the other.
"""

import numpy as np

from softlearning.models import NumpyMirror, feedforward_model

from .base_policy import BasePolicy
from .numpy_policies import concatenate_observations


class FeedforwardPolicy(BasePolicy):

    numpy_class = None  # a NumpyMLPPolicy subclass
    default_name = 'feedforward_policy'  # of the Keras model

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, seed=None, name=None):
        observation_keys = tuple(observation_keys or observation_shapes)
        super().__init__(observation_keys, action_shape, seed=seed)
        # What ``clone`` builds a copy from; subclasses add their options.
        self._config = dict(
            observation_shapes=observation_shapes, action_shape=action_shape,
            hidden_layer_sizes=tuple(hidden_layer_sizes),
            activation=activation, observation_keys=observation_keys)
        self._name = name or self.default_name
        self._action_size = int(np.prod(action_shape))
        layout = self.numpy_class
        self._model = self._build_model(
            layout.network_input_size(observation_shapes, observation_keys,
                                      self._action_size),
            hidden_layer_sizes, layout.network_output_size(self._action_size),
            activation=activation, output_activation=layout.output_activation,
            name=self._name)
        # The numpy copy that acts (``actions_np``, ``step``).
        self._acting_network = self.mirror_class(
            self._model, activation, layout.output_activation)

    mirror_class = NumpyMirror

    def _build_model(self, *args, **kwargs):
        return feedforward_model(*args, **kwargs)

    def actions_np(self, observations):
        inputs = concatenate_observations(observations, self.observation_keys)
        return self._actions_from_outputs(self._acting_network(inputs))

    def _actions_from_outputs(self, outputs):
        """Actions from the network's outputs (B, out), in numpy."""
        raise NotImplementedError

    def clone(self, name=None):
        """A new policy of the same shape holding a copy of the weights
        (TD3's target policy)."""
        copy = type(self)(**self._config, name=name or f'{self._name}_target')
        copy.set_weights(self.get_weights())
        return copy

    def refresh_numpy_weights(self):
        """Copies the TensorFlow weights into the numpy copy that acts."""
        self._acting_network.refresh()

    @property
    def model(self):
        """The Keras model holding every weight (checkpoints, export)."""
        return self._model

    @property
    def trainable_variables(self):
        return self._model.trainable_variables

    def get_weights(self):
        return self._model.get_weights()

    def set_weights(self, weights):
        self._model.set_weights(weights)
        self.refresh_numpy_weights()
