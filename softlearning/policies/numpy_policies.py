"""Policies that act in numpy only, for sampler actors.

Actors step environments and never train, so they do not need TensorFlow:
``NumpyGaussianPolicy`` is built from the same params as
``FeedforwardGaussianPolicy``, loads the list its ``get_weights()`` returns
(the Dense stack's kernel/bias pairs) and samples as its ``actions_np`` does
(``FeedforwardGaussianPolicy.actions_np`` calls ``squashed_gaussian_actions``
below). ``NumpySamplingPolicy`` is the same for ``FeedforwardSamplingPolicy``
(Soft Q-Learning's sampling network, ``sampling_network_actions``).
``NumpyDeterministicPolicy`` is the same for ``FeedforwardDeterministicPolicy``
(TD3/DDPG/FastTD3: a = mu(s), plus Gaussian exploration noise while
collecting, exploration_noise.py).
``NumpyUniformPolicy`` is the warm-up policy, and the base of
``UniformPolicy``. The recurrent policies (``NumpyRecurrentGaussianPolicy``,
``NumpyRecurrentDeterministicPolicy``) put an LSTM before the Dense stack and
carry its state through an episode (``RecurrentActing``). A pixel agent's
policy (``encoder_config``) runs the numpy conv encoder before the Dense
stack; its weights come first in the list it loads.

Keeping TensorFlow out of actors is what lets them render with OSMesa (see
softlearning/environments/rendering.py): this module must not import
TensorFlow, directly or through the package.
"""

import numpy as np

from softlearning.models.numpy_conv import NumpyConvEncoder
from softlearning.models.numpy_lstm import (NumpyRecurrentNetwork,
                                            recurrent_network_shapes)
from softlearning.models.networks import (DEFAULT_KERNEL_INITIALIZER,
                                          check_network, network_shapes,
                                          numpy_network_class,
                                          refuse_kernel_initializer)
from softlearning.models.numpy_mlp import NumpyMLP, flat_size, initial_weights

from .base_policy import BasePolicy
from .exploration_noise import NoisyDeterministicActing

LOG_SCALE_MIN, LOG_SCALE_MAX = -20.0, 2.0


def concatenate_observations(observations, keys):
    """The selected observation fields joined along the last axis."""
    if len(keys) == 1:
        return observations[keys[0]]
    return np.concatenate([observations[key] for key in keys], axis=-1)


def network_input_layout(observation_shapes, observation_keys,
                         encoded_size=None):
    """The (shapes, keys) a policy network's input size is computed from:
    the observations', or one vector of ``encoded_size`` features when an
    encoder turns the observations into the network's input."""
    if encoded_size is None:
        return observation_shapes, tuple(observation_keys)
    return {'features': (int(encoded_size),)}, ('features',)


def squashed_gaussian_actions(shift_and_log_scale, np_random,
                              deterministic=False):
    """a = tanh(u), u ~ N(shift, exp(clip(log_scale))), from the network's
    (B, 2|A|) output; the deterministic action is tanh(shift)."""
    shift, log_scale = np.split(shift_and_log_scale, 2, axis=-1)
    if deterministic:
        return np.tanh(shift)
    scale = np.exp(np.clip(log_scale, LOG_SCALE_MIN, LOG_SCALE_MAX))
    noise = np_random.standard_normal(shift.shape, dtype=np.float32)
    return np.tanh(shift + scale * noise)


def sampling_network_actions(network, inputs, action_size, np_random,
                             deterministic=False):
    """a = tanh(f(s, xi)), xi ~ N(0, I_|A|) fed to the network next to the
    observation (the network's last layer is the tanh); the deterministic
    action uses xi = 0."""
    shape = (inputs.shape[0], action_size)
    if deterministic:
        noise = np.zeros(shape, np.float32)
    else:
        noise = np_random.standard_normal(shape, dtype=np.float32)
    return network(np.concatenate([inputs, noise], axis=-1))


class NumpyActing:
    """Acting in numpy through ``_acting_network`` (and a pixel agent's
    ``_acting_encoder``), mixed into the numpy policies and the TensorFlow
    feedforward ones, which act through their numpy mirrors."""

    def _numpy_inputs(self, observations):
        if self._acting_encoder is not None:
            return self._acting_encoder(observations)
        return concatenate_observations(observations, self.observation_keys)

    def actions_np(self, observations):
        return self._actions_from_outputs(
            self._acting_network(self._numpy_inputs(observations)))

    def _actions_from_outputs(self, outputs):
        """Actions from the network's outputs (B, out), in numpy."""
        raise NotImplementedError


class NumpyMLPPolicy(NumpyActing, BasePolicy):
    """A policy whose weights are one Dense stack, acting in numpy: the
    acting half of a TensorFlow policy, loading its ``get_weights()``."""

    output_activation = 'linear'
    # The independent parts of the network's output (a Gaussian policy's
    # mean and log-std): separate heads in a network that has heads
    # (models/networks.py's HEADED_NETWORKS).
    output_heads = 1

    def __init__(self, observation_shapes, action_shape,
                 hidden_layer_sizes=(256, 256), activation='relu',
                 observation_keys=None, seed=None, name=None,
                 encoder_config=None, batch_renorm=None, network='mlp',
                 kernel_initializer=DEFAULT_KERNEL_INITIALIZER):
        """``encoder_config``: the settings of a pixel agent's encoder
        (models/numpy_conv.py), whose weights come first in the list
        ``set_weights`` loads. ``batch_renorm``: the network has CrossQ's
        batch renormalization layers (acting uses their running
        statistics). ``network``: 'mlp', 'simba', 'simbav2' or
        'normalized_mlp' (models/networks.py).
        ``kernel_initializer``: the TensorFlow policy's, which the weights
        this policy starts from (until the learner's arrive) follow."""
        self._batch_renorm = bool(batch_renorm)
        self.activation = activation  # the hidden layers' (for export)
        self._network = check_network(network, batch_renorm, encoder_config,
                                      kernel_initializer)
        observation_keys = tuple(observation_keys or observation_shapes)
        super().__init__(observation_keys, action_shape, seed=seed)
        self._action_size = int(np.prod(action_shape))
        self._acting_encoder = None
        if encoder_config is not None:
            self._acting_encoder = NumpyConvEncoder(
                observation_shapes, observation_keys,
                np_random=self._np_random, **encoder_config)
        input_shapes, input_keys = network_input_layout(
            observation_shapes, observation_keys,
            None if self._acting_encoder is None
            else self._acting_encoder.output_size)
        # What a SimBa network normalizes: the observations.
        self._normalized_size = flat_size(input_shapes, input_keys)
        self._weight_shapes = self._network_shapes(
            self.network_input_size(input_shapes, input_keys,
                                    self._action_size),
            hidden_layer_sizes,
            self.network_output_size(self._action_size))
        # Until the learner's weights arrive: Keras' initialization, so the
        # policy can act.
        network_class = (numpy_network_class(network) if network != 'mlp'
                         else self.network_class)
        self._acting_network = network_class(
            initial_weights(self._weight_shapes, self._np_random,
                            kernel_initializer),
            activation, self.output_activation)

    network_class = NumpyMLP

    def _network_shapes(self, input_size, hidden_layer_sizes, output_size):
        return network_shapes(self._network, input_size, hidden_layer_sizes,
                              output_size, self._batch_renorm,
                              self._normalized_size, self.output_heads)

    @staticmethod
    def network_input_size(observation_shapes, observation_keys,
                           action_size):
        return flat_size(observation_shapes, observation_keys)

    @staticmethod
    def network_output_size(action_size):
        return action_size

    def get_weights(self):
        encoder = ([] if self._acting_encoder is None
                   else self._acting_encoder.get_weights())
        return encoder + [w.copy()
                          for w in self._acting_network.get_weights()]

    def set_weights(self, weights):
        weights = list(weights)
        if self._acting_encoder is not None:
            n_encoder = self._acting_encoder.n_weights
            self._acting_encoder.set_weights(weights[:n_encoder])
            weights = weights[n_encoder:]
        shapes = [tuple(np.shape(w)) for w in weights]
        if shapes != self._weight_shapes:
            raise ValueError(
                f"Weights of shapes {shapes} do not fit this policy's "
                f"Dense stack {self._weight_shapes}")
        self._acting_network.set_weights(
            [np.array(w, np.float32) for w in weights])


class NumpyGaussianPolicy(NumpyMLPPolicy):
    """The acting half of ``FeedforwardGaussianPolicy``, without TensorFlow."""

    output_heads = 2  # shift and log-scale

    @staticmethod
    def network_output_size(action_size):
        return 2 * action_size  # shift and log-scale

    def _actions_from_outputs(self, outputs):
        return squashed_gaussian_actions(outputs, self._np_random,
                                         self._deterministic)


class NumpySamplingPolicy(NumpyMLPPolicy):
    """The acting half of ``FeedforwardSamplingPolicy`` (Soft Q-Learning's
    sampling network), without TensorFlow."""

    output_activation = 'tanh'

    @staticmethod
    def network_input_size(observation_shapes, observation_keys,
                           action_size):
        return flat_size(observation_shapes, observation_keys) + action_size

    def actions_np(self, observations):
        inputs = self._numpy_inputs(observations)
        return sampling_network_actions(self._acting_network, inputs,
                                        self._action_size, self._np_random,
                                        self._deterministic)


class NumpyDeterministicPolicy(NoisyDeterministicActing, NumpyMLPPolicy):
    """The acting half of ``FeedforwardDeterministicPolicy``, without
    TensorFlow: a = tanh(f(s)), with Gaussian exploration noise
    (``exploration_noise``: a standard deviation, or a per-episode one
    drawn between ``std_min`` and ``std_max``) and uniform actions with
    probability ``random_action_probability`` (exploration_noise.py) unless
    deterministic."""

    output_activation = 'tanh'

    def __init__(self, *args, exploration_noise=0.1,
                 random_action_probability=0.0, **kwargs):
        super().__init__(*args, **kwargs)
        self._set_exploration_noise(exploration_noise,
                                    random_action_probability)


class RecurrentActing:
    """Acting with an LSTM policy, mixed into the numpy and the TensorFlow
    recurrent policies (before their feedforward base).

    The LSTM state belongs to the episode, not to the policy: samplers and
    rollouts keep it (softlearning/samplers/episode_stepper.py) and hand it
    back with the next observation; ``None`` is the zero state every episode
    starts from. The network is an LSTM of ``lstm_units`` over the
    observation, then the Dense stack of the feedforward policy."""

    is_recurrent = True
    network_class = NumpyRecurrentNetwork

    def __init__(self, *args, lstm_units=64, **kwargs):
        refuse_kernel_initializer(kwargs, 'A recurrent policy')
        self.lstm_units = int(lstm_units)
        super().__init__(*args, **kwargs)

    def _network_shapes(self, input_size, hidden_layer_sizes, output_size):
        return recurrent_network_shapes(input_size, self.lstm_units,
                                        hidden_layer_sizes, output_size)

    def step(self, observation, state=None):
        inputs = concatenate_observations(
            {key: np.asarray(value)[None] for key, value in
             observation.items()}, self.observation_keys)
        outputs, state = self._acting_network.step(inputs, state)
        return self._actions_from_outputs(outputs)[0], state

    def step_batch(self, observations, states):
        """Each row's LSTM state is its own episode's; rows of episodes
        that just started (None) begin from the zero state."""
        inputs = concatenate_observations(
            {key: np.asarray(value) for key, value in observations.items()},
            self.observation_keys)
        zero = self._acting_network.initial_state(1)
        h, c = (np.concatenate(part) for part in zip(
            *(zero if state is None else state for state in states)))
        outputs, (h, c) = self._acting_network.step(inputs, (h, c))
        return self._actions_from_outputs(outputs), [
            (h[i:i + 1], c[i:i + 1]) for i in range(len(states))]

    # ``actions_np(observations)`` takes each observation as the first of an
    # episode (the zero state): for diagnostics, not for acting.


class NumpyRecurrentGaussianPolicy(RecurrentActing, NumpyGaussianPolicy):
    """The acting half of ``RecurrentGaussianPolicy`` (recurrent SAC)."""


class NumpyRecurrentDeterministicPolicy(RecurrentActing,
                                        NumpyDeterministicPolicy):
    """The acting half of ``RecurrentDeterministicPolicy`` (recurrent
    TD3/DDPG)."""


class NumpyUniformPolicy(BasePolicy):
    """Uniform random actions in [-1, 1]^|A|, for warm-up exploration."""

    def __init__(self, observation_shapes, action_shape, observation_keys=None,
                 seed=None, **unused_kwargs):
        super().__init__(observation_keys or tuple(observation_shapes),
                         action_shape, seed=seed)

    def _batch_size(self, observations):
        return observations[self.observation_keys[0]].shape[0]

    def actions_np(self, observations):
        shape = (self._batch_size(observations), *self.action_shape)
        if self._deterministic:
            return np.zeros(shape, dtype=np.float32)
        return self._np_random.uniform(-1.0, 1.0, shape).astype(np.float32)


NUMPY_POLICIES = {
    'FeedforwardGaussianPolicy': NumpyGaussianPolicy,
    'GaussianPolicy': NumpyGaussianPolicy,
    'FeedforwardSamplingPolicy': NumpySamplingPolicy,
    'FeedforwardDeterministicPolicy': NumpyDeterministicPolicy,
    'RecurrentGaussianPolicy': NumpyRecurrentGaussianPolicy,
    'RecurrentDeterministicPolicy': NumpyRecurrentDeterministicPolicy,
    'UniformPolicy': NumpyUniformPolicy,
}


def get_numpy_policy_class(class_name):
    if class_name not in NUMPY_POLICIES:
        raise ValueError(f"No numpy policy for '{class_name}'. Valid "
                         f"policies: {', '.join(NUMPY_POLICIES)}")
    return NUMPY_POLICIES[class_name]


def get_numpy_policy(params, env, seed=None, encoder_params=None):
    """Like ``softlearning.policies.get``, but the numpy-only version;
    ``encoder_params``: a pixel agent's (the variant's)."""
    encoder_kwargs = {}
    if encoder_params and params['class_name'] != 'UniformPolicy':
        encoder_kwargs['encoder_config'] = encoder_params.get('config', {})
    return get_numpy_policy_class(params['class_name'])(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        seed=seed,
        **params.get('config', {}), **encoder_kwargs)
