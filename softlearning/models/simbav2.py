"""SimbaV2 networks (Lee et al. 2025, "Hyperspherical Normalization for
Scalable Deep Reinforcement Learning"), for any agent's actor and critics
(``network='simbav2'`` in their config, or ``--network simbav2``); the
layout and its numpy mirror are models/numpy_simbav2.py.

Hyperspherical normalization of the weights: every kernel here is
bias-free and carries a ``UnitColumns`` constraint, which Keras's optimizers
apply after each ``apply_gradients`` (so each step of every algorithm's
every optimizer ends with each output unit's weight vector back on the unit
sphere, inside the compiled update, with nothing for an algorithm to call);
target copies, which no optimizer steps, are moving averages of projected
weights, as the authors'. The running observation normalization is SimBa's
(models/simba.py), its statistics moved by the update skeleton.

Under ``precision='bfloat16'`` (models/precision.py) the embedding and the
blocks compute in bfloat16 (their sublayers take their dtype policy), the
normalization and the output head in float32; the constraint projects the
float32 kernels.
"""

import tensorflow as tf
import tf_keras as keras

from .numpy_simba import EXPANSION, block_width
from .numpy_simbav2 import (C_SHIFT, L2_EPSILON, RELU_EPSILON,
                            scaler_settings)
from .precision import DEFAULT_PRECISION, compute_dtype, output_dtype
from .simba import RunningNormalization


def l2_normalize(x, axis=-1):
    norm = tf.norm(x, axis=axis, keepdims=True)
    return x / tf.maximum(norm, L2_EPSILON)


class UnitColumns(keras.constraints.Constraint):
    """Projects a (fan_in, fan_out) kernel's columns onto the unit sphere."""

    def __call__(self, kernel):
        return l2_normalize(kernel, axis=0)


def unit_columns_initializer(shape, dtype=None):
    """Orthogonal columns (the authors' init), each of norm one."""
    kernel = keras.initializers.Orthogonal()(shape, dtype=dtype)
    return l2_normalize(kernel, axis=0)


def hyper_dense(units, dtype=None):
    """A bias-free Dense layer whose kernel stays on the unit sphere;
    ``dtype``: its dtype policy (its parent layer's)."""
    return keras.layers.Dense(units, use_bias=False,
                              kernel_initializer=unit_columns_initializer,
                              kernel_constraint=UnitColumns(), dtype=dtype)


class Scaler(keras.layers.Layer):
    """x * s * init / scale, with s a learned vector that starts at
    ``scale``."""

    def __init__(self, init, scale, **kwargs):
        super().__init__(**kwargs)
        self.init, self.scale = float(init), float(scale)

    def build(self, input_shape):
        self.scaler = self.add_weight(
            'scaler', (int(input_shape[-1]),),
            initializer=keras.initializers.Constant(self.scale))
        super().build(input_shape)

    def call(self, inputs):
        return inputs * self.scaler * (self.init / self.scale)

    def get_config(self):
        return {**super().get_config(), 'init': self.init,
                'scale': self.scale}


class HypersphericalEmbedding(keras.layers.Layer):
    """l2norm([x, C_SHIFT]) -> W -> scaler -> l2norm."""

    def __init__(self, units, scaler, **kwargs):
        super().__init__(**kwargs)
        self.units, self.scaler_init_and_scale = int(units), tuple(scaler)
        self.dense = hyper_dense(self.units, self.dtype_policy)
        self.scaler = Scaler(*self.scaler_init_and_scale,
                             dtype=self.dtype_policy)

    def call(self, inputs):
        shift = tf.fill(tf.concat([tf.shape(inputs)[:-1], [1]], 0),
                        tf.constant(C_SHIFT, inputs.dtype))
        x = l2_normalize(tf.concat([inputs, shift], axis=-1))
        return l2_normalize(self.scaler(self.dense(x)))

    def get_config(self):
        return {**super().get_config(), 'units': self.units,
                'scaler': self.scaler_init_and_scale}


class LerpBlock(keras.layers.Layer):
    """x <- l2norm(x + alpha * (l2norm(W_2(relu(scaler(W_1 x)) + eps)) - x))."""

    def __init__(self, units, scaler, alpha, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.scaler_init_and_scale = tuple(scaler)
        self.alpha_init_and_scale = tuple(alpha)
        # (Built in this order: the numpy mirror reads their weights so.)
        dtype = self.dtype_policy
        self.expand = hyper_dense(EXPANSION * self.units, dtype)
        self.scaler = Scaler(*self.scaler_init_and_scale, dtype=dtype)
        self.project = hyper_dense(self.units, dtype)
        self.alpha = Scaler(*self.alpha_init_and_scale, dtype=dtype)

    def call(self, inputs):
        hidden = tf.nn.relu(self.scaler(self.expand(inputs))) + RELU_EPSILON
        update = l2_normalize(self.project(hidden))
        return l2_normalize(inputs + self.alpha(update - inputs))

    def get_config(self):
        return {**super().get_config(), 'units': self.units,
                'scaler': self.scaler_init_and_scale,
                'alpha': self.alpha_init_and_scale}


class HypersphericalOutput(keras.layers.Layer):
    """activation(W_2(scaler(W_1 x)) + bias): the authors' value and
    policy heads (no activation between the two projections; ``activation``
    is the policy's: linear, or tanh for a deterministic policy)."""

    def __init__(self, units, output_size, scaler, activation='linear',
                 **kwargs):
        super().__init__(**kwargs)
        self.units, self.output_size = int(units), int(output_size)
        self.activation_name = activation
        self.activation = keras.activations.get(activation)
        self.scaler_init_and_scale = tuple(scaler)
        dtype = self.dtype_policy
        self.hidden = hyper_dense(self.units, dtype)
        self.scaler = Scaler(*self.scaler_init_and_scale, dtype=dtype)
        self.out = hyper_dense(self.output_size, dtype)

    def build(self, input_shape):
        super().build(input_shape)
        self.bias = self.add_weight('bias', (self.output_size,),
                                    initializer='zeros')

    def call(self, inputs):
        return self.activation(
            self.out(self.scaler(self.hidden(inputs))) + self.bias)

    def get_config(self):
        return {**super().get_config(), 'units': self.units,
                'output_size': self.output_size,
                'activation': self.activation_name,
                'scaler': self.scaler_init_and_scale}


class HypersphericalHeads(keras.layers.Layer):
    """Independent ``HypersphericalOutput`` heads of equal size, their
    outputs concatenated: a Gaussian policy's mean and log-std, each with
    its own hidden projection, as the authors' actor."""

    def __init__(self, units, output_size, scaler, activation='linear',
                 heads=2, **kwargs):
        super().__init__(**kwargs)
        if output_size % heads:
            raise ValueError(f"{output_size} outputs do not split into "
                             f"{heads} heads")
        self.units, self.output_size = int(units), int(output_size)
        self.activation_name, self.n_heads = activation, int(heads)
        self.scaler_init_and_scale = tuple(scaler)
        self.heads = [HypersphericalOutput(units, output_size // heads, scaler,
                                           activation, name=f'head_{i}',
                                           dtype=self.dtype_policy)
                      for i in range(heads)]

    def call(self, inputs):
        return tf.concat([head(inputs) for head in self.heads], axis=-1)

    def get_config(self):
        return {**super().get_config(), 'units': self.units,
                'output_size': self.output_size,
                'activation': self.activation_name,
                'scaler': self.scaler_init_and_scale, 'heads': self.n_heads}


def simbav2_model(input_size, hidden_layer_sizes, output_size,
                  observation_keys, normalized_size=None, activation='relu',
                  output_activation='linear', output_heads=1,
                  name='simbav2_model', precision=DEFAULT_PRECISION):
    """A SimbaV2 network over inputs of ``input_size`` whose first
    ``normalized_size`` (all by default) are the concatenated
    ``observation_keys`` fields; one LERP block per entry of
    ``hidden_layer_sizes`` (all one width); ``output_heads`` independent
    output heads splitting ``output_size`` (2 for a Gaussian policy: its
    mean and its log-std); ``precision``: what the embedding and the
    blocks compute in (models/precision.py)."""
    if activation != 'relu':
        raise ValueError(f"A SimbaV2 network's blocks are ReLU's; got "
                         f"activation '{activation}'")
    width = block_width(hidden_layer_sizes)
    scalers = scaler_settings(width, len(hidden_layer_sizes))
    dtype, float32 = compute_dtype(precision), output_dtype(precision)
    output = (HypersphericalOutput(width, output_size, scalers['output'],
                                   output_activation, dtype=float32)
              if output_heads == 1 else
              HypersphericalHeads(width, output_size, scalers['output'],
                                  output_activation, heads=output_heads,
                                  dtype=float32))
    model = keras.Sequential(
        [RunningNormalization(normalized_size or input_size,
                              observation_keys, dtype=float32),
         HypersphericalEmbedding(width, scalers['embedding'], dtype=dtype)]
        + [LerpBlock(width, scalers['block'], scalers['alpha'], dtype=dtype)
           for _ in hidden_layer_sizes]
        + [output],
        name=name)
    model.build((None, input_size))
    return model
