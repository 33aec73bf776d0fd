"""Export a policy as a TensorFlow SavedModel that acts without softlearning.

    loaded = tf.saved_model.load(path)
    actions = loaded.actions({'observations': batch})   # per-key inputs
    actions = loaded.actions_flat(flat_batch)            # keys concatenated
    loaded.observation_keys, loaded.action_low, loaded.action_high

Actions are the deterministic (mode) actions, normalized to [-1, 1]; the
simulator's action is ``low + (a + 1) / 2 * (high - low)`` with the saved
``action_low``/``action_high``.

A recurrent policy's SavedModel steps one observation at a time and carries
the LSTM state, zero at an episode's start:

    h, c = loaded.initial_state(batch_size)
    actions, h, c = loaded.step({'observations': batch}, h, c)
    actions, h, c = loaded.step_flat(flat_batch, h, c)

For an ONNX model of a feedforward policy (``softlearning export --format
onnx``, written without TensorFlow), see onnx_export.py.
"""

import numpy as np
import tensorflow as tf


class _ExportedPolicy(tf.Module):

    def __init__(self, policy, observation_shapes, action_low, action_high):
        super().__init__()
        self._policy = policy
        # Tracked so that the SavedModel holds the policy's weights.
        self._model = policy.model
        keys = tuple(policy.observation_keys)
        # Variables, not constants: only tracked objects are saved.
        def constant(value):
            return tf.Variable(value, trainable=False)
        self.observation_keys = constant(list(keys))
        self.observation_sizes = constant(
            [int(np.prod(observation_shapes[key])) for key in keys])
        self.action_low = constant(np.asarray(action_low, np.float32))
        self.action_high = constant(np.asarray(action_high, np.float32))
        self._keys = keys
        self._shapes = {key: tuple(observation_shapes[key]) for key in keys}
        self.actions = tf.function(self._actions, input_signature=[{
            key: tf.TensorSpec((None, *self._shapes[key]), tf.float32,
                               name=key) for key in keys}])
        flat_size = int(sum(np.prod(self._shapes[key]) for key in keys))
        self.actions_flat = tf.function(
            self._actions_flat, input_signature=[
                tf.TensorSpec((None, flat_size), tf.float32,
                              name='observations')])

    def _actions(self, observations):
        with self._policy.set_deterministic(True):
            return self._policy.actions(observations)

    def _actions_flat(self, observations):
        sizes = [int(np.prod(self._shapes[key])) for key in self._keys]
        parts = tf.split(observations, sizes, axis=-1)
        return self._actions({
            key: tf.reshape(part, (-1, *self._shapes[key]))
            for key, part in zip(self._keys, parts)})


class _ExportedRecurrentPolicy(_ExportedPolicy):
    """One step of the LSTM cell, then the Dense stack and the policy's
    deterministic action, on the weights of the policy's model."""

    def __init__(self, policy, observation_shapes, action_low, action_high):
        super().__init__(policy, observation_shapes, action_low, action_high)
        units = policy.lstm_units
        state_spec = tf.TensorSpec((None, units), tf.float32)
        self.step = tf.function(self._step, input_signature=[
            {key: tf.TensorSpec((None, *self._shapes[key]), tf.float32,
                                name=key) for key in self._keys},
            state_spec, state_spec])
        flat_size = int(sum(np.prod(self._shapes[key]) for key in self._keys))
        self.step_flat = tf.function(self._step_flat, input_signature=[
            tf.TensorSpec((None, flat_size), tf.float32,
                          name='observations'), state_spec, state_spec])
        self.initial_state = tf.function(
            lambda batch_size: (tf.zeros((batch_size, units)),) * 2,
            input_signature=[tf.TensorSpec((), tf.int32)])

    def _step(self, observations, h, c):
        inputs = tf.concat([tf.reshape(observations[key],
                                       (-1, int(np.prod(self._shapes[key]))))
                            for key in self._keys], axis=-1)
        return self._step_flat(inputs, h, c)

    def _step_flat(self, inputs, h, c):
        lstm, *head = self._model.layers
        outputs, (h, c) = lstm.cell(inputs, [h, c])
        for layer in head:
            outputs = layer(outputs)
        return (self._policy.deterministic_actions_from_outputs(outputs),
                h, c)

    def _actions(self, observations):
        # A batch of first steps (zero state), for the shared signatures.
        batch_size = tf.shape(observations[self._keys[0]])[0]
        zeros = tf.zeros((batch_size, self._policy.lstm_units))
        return self._step(observations, zeros, zeros)[0]


def export_saved_model(policy, observation_shapes, action_bounds, path):
    """Writes ``policy`` (any TensorFlow policy: its ``model`` holds the
    weights, its deterministic ``actions`` is what the SavedModel runs) to
    ``path``."""
    if policy.is_recurrent:
        module = _ExportedRecurrentPolicy(policy, observation_shapes,
                                          *action_bounds)
        signatures = {
            'serving_default': module.step.get_concrete_function(),
            'step_flat': module.step_flat.get_concrete_function()}
    else:
        module = _ExportedPolicy(policy, observation_shapes, *action_bounds)
        signatures = {
            'serving_default': module.actions.get_concrete_function(),
            'actions_flat': module.actions_flat.get_concrete_function()}
    tf.saved_model.save(module, path, signatures=signatures)
    return path
