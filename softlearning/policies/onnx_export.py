"""Export a feedforward policy as an ONNX model that acts without
softlearning or TensorFlow (onnxruntime, or any ONNX runtime):

    import json
    import onnxruntime
    session = onnxruntime.InferenceSession('OUT_DIR/policy.onnx')
    actions = session.run(['actions'], {'observations': flat_batch})[0]
    metadata = json.load(open('OUT_DIR/policy.json'))
    env_actions = low + (actions + 1) / 2 * (high - low)   # the saved bounds

The input ``observations`` is a float32 batch [N, obs_size]: the policy's
observation keys concatenated in ``observation_keys`` order (as the
SavedModel's ``actions_flat``); the output ``actions`` [N, |A|] is the
deterministic (mode) action, normalized to [-1, 1]: tanh of the mean for
Gaussian policies, a = tanh(f(s)) for deterministic (TD3/DDPG) ones, the
sampling network at zero noise for Soft Q-Learning's. The running
observation normalization (SimBa's, SimbaV2's, a normalized_mlp's) is part
of the graph, its statistics frozen as constants.

The graph is written op by op (onnx.helper) from the weights of the numpy
policy, the one sampler actors act with, following its math
(models/numpy_mlp.py, numpy_simba.py, numpy_simbav2.py): no TensorFlow is
needed at export time. The metadata (observation keys and sizes, action
bounds, policy class, network) is stored in the model's metadata_props
and, for convenience, in ``policy.json`` beside it.

Recurrent and pixel (convolutional encoder) policies are not written:
``onnx_refusal`` says why, and which export works for them.
"""

import json
import os

import numpy as np

from softlearning.models.networks import NETWORKS
from softlearning.models.numpy_mlp import BATCH_RENORM_EPSILON, _layers_of
from softlearning.models.numpy_simba import (LAYER_NORM_EPSILON,
                                             N_NORMALIZATION_WEIGHTS,
                                             NORMALIZATION_EPSILON)
from softlearning.models.numpy_simba import \
    N_BLOCK_WEIGHTS as SIMBA_BLOCK_WEIGHTS
from softlearning.models.numpy_simbav2 import (C_SHIFT, L2_EPSILON,
                                               N_BLOCK_WEIGHTS,
                                               N_EMBEDDING_WEIGHTS,
                                               N_OUTPUT_WEIGHTS, RELU_EPSILON,
                                               scaler_settings)

from .numpy_policies import (NUMPY_POLICIES, NumpyDeterministicPolicy,
                             NumpyGaussianPolicy, NumpySamplingPolicy)

# LayerNormalization is an ONNX op from opset 17 on.
OPSET = 17
INPUT_NAME, OUTPUT_NAME = 'observations', 'actions'
MODEL_FILE, METADATA_FILE = 'policy.onnx', 'policy.json'
ONNX_MISSING = "--format onnx needs onnx: pip install 'softlearning[onnx]'"
# The policies an ONNX graph is written for (by their variant's class_name).
ONNX_POLICIES = ('FeedforwardGaussianPolicy', 'GaussianPolicy',
                 'FeedforwardDeterministicPolicy',
                 'FeedforwardSamplingPolicy')
_ACTIVATIONS = {'relu': 'Relu', 'tanh': 'Tanh', 'linear': None, None: None}


def onnx_refusal(class_name):
    """None if a policy of ``class_name`` (a variant's
    ``policy_params.class_name``) exports to ONNX; otherwise why not, in one
    sentence naming what works instead."""
    if class_name in ONNX_POLICIES:
        return None
    policy_class = NUMPY_POLICIES.get(class_name)
    if policy_class is not None and policy_class.is_recurrent:
        return (f"its policy is recurrent ({class_name}); --format onnx "
                "writes feedforward policies only. Export it with --format "
                "savedmodel (its 'step' carries the LSTM state).")
    return (f"--format onnx writes {', '.join(ONNX_POLICIES)} policies, not "
            f"{class_name}. Export it with --format savedmodel.")


def import_onnx():
    """The onnx package, or ImportError(ONNX_MISSING)."""
    try:
        import onnx
    except ImportError:
        raise ImportError(ONNX_MISSING) from None
    return onnx


class _Graph:
    """Nodes and constants of an ONNX graph, each output a fresh name."""

    def __init__(self, onnx):
        self._helper = onnx.helper
        self._numpy_helper = onnx.numpy_helper
        self.nodes, self.initializers = [], []
        self._names = 0

    def _name(self, prefix):
        self._names += 1
        return f'{prefix}_{self._names}'

    def constant(self, value, dtype=np.float32):
        name = self._name('const')
        self.initializers.append(self._numpy_helper.from_array(
            np.asarray(value, dtype), name))
        return name

    def op(self, op_type, *inputs, output=None, **attributes):
        output = output or self._name(op_type.lower())
        self.nodes.append(self._helper.make_node(
            op_type, list(inputs), [output], **attributes))
        return output

    # Layers -----------------------------------------------------------------

    def dense(self, x, kernel, bias=None):
        x = self.op('MatMul', x, self.constant(kernel))
        return x if bias is None else self.op('Add', x, self.constant(bias))

    def activation(self, x, name):
        if name not in _ACTIVATIONS:
            raise ValueError(f"No ONNX export of activation '{name}'; "
                             f"supported: {[a for a in _ACTIVATIONS if a]}")
        return x if _ACTIVATIONS[name] is None else self.op(
            _ACTIVATIONS[name], x)

    def layer_norm(self, x, gamma, beta):
        return self.op('LayerNormalization', x, self.constant(gamma),
                       self.constant(beta), axis=-1,
                       epsilon=LAYER_NORM_EPSILON)

    def l2_normalize(self, x):
        norm = self.op('ReduceL2', x, axes=[-1], keepdims=1)
        norm = self.op('Max', norm, self.constant(L2_EPSILON))
        return self.op('Div', x, norm)

    def normalize_observations(self, x, mean, variance, width):
        """SimBa's running normalization of the first len(mean) of
        ``width`` features (frozen statistics); the others pass as they
        are (a shift of 0, a divisor of 1)."""
        std = np.sqrt(np.asarray(variance, np.float32)
                      + NORMALIZATION_EPSILON)
        pad = width - len(mean)
        shift = np.concatenate([mean, np.zeros(pad, np.float32)])
        divisor = np.concatenate([std, np.ones(pad, np.float32)])
        return self.op('Div', self.op('Sub', x, self.constant(shift)),
                       self.constant(divisor))


# The networks (models/networks.py), each from its ``layer_weights`` list,
# keeping the first ``outputs`` of the network's outputs.

def _mlp(graph, x, weights, width, activation, output_activation, outputs):
    layers = _layers_of(weights)
    for i, (kind, *layer) in enumerate(layers):
        if kind == 'norm':  # batch renormalization, running statistics
            gamma, beta, mean, variance, _ = layer
            std = np.sqrt(variance + BATCH_RENORM_EPSILON)
            x = graph.op('Mul', graph.constant(gamma),
                         graph.op('Sub', x, graph.constant(mean)))
            x = graph.op('Add', graph.op('Div', x, graph.constant(std)),
                         graph.constant(beta))
            continue
        kernel, bias = layer
        last = i == len(layers) - 1
        if last:
            kernel, bias = kernel[:, :outputs], bias[:outputs]
        x = graph.activation(graph.dense(x, kernel, bias),
                             output_activation if last else activation)
    return x


def _simba(graph, x, weights, width, activation, output_activation,
           outputs):
    w = weights  # normalization, embedding (2), blocks, LayerNorm + head (4)
    n_blocks = (len(w) - N_NORMALIZATION_WEIGHTS - 6) // SIMBA_BLOCK_WEIGHTS
    x = graph.normalize_observations(x, w[0], w[1], width)
    x = graph.dense(x, w[3], w[4])
    for i in range(n_blocks):
        gamma, beta, k1, b1, k2, b2 = w[5 + SIMBA_BLOCK_WEIGHTS * i:
                                        5 + SIMBA_BLOCK_WEIGHTS * (i + 1)]
        hidden = graph.activation(
            graph.dense(graph.layer_norm(x, gamma, beta), k1, b1), activation)
        x = graph.op('Add', x, graph.dense(hidden, k2, b2))
    gamma, beta, kernel, bias = w[-4:]
    return graph.activation(
        graph.dense(graph.layer_norm(x, gamma, beta), kernel[:, :outputs],
                    bias[:outputs]), output_activation)


def _scaled(graph, x, weight, init_and_scale):
    init, scale = init_and_scale
    return graph.op('Mul', x, graph.constant(
        np.asarray(weight, np.float32) * np.float32(init / scale)))


def _simbav2(graph, x, weights, width, activation, output_activation,
             outputs):
    if activation != 'relu':
        raise ValueError(f"A SimbaV2 network's blocks are ReLU's; got "
                         f"activation '{activation}'")
    w = weights
    start = N_NORMALIZATION_WEIGHTS + N_EMBEDDING_WEIGHTS
    n_blocks = 0  # blocks start with a 2-D kernel, output heads with a bias
    while w[start + N_BLOCK_WEIGHTS * n_blocks].ndim == 2:
        n_blocks += 1
    scalers = scaler_settings(w[N_NORMALIZATION_WEIGHTS].shape[-1], n_blocks)
    x = graph.normalize_observations(x, w[0], w[1], width)
    x = graph.op('Pad', x, graph.constant([0, 0, 0, 1], np.int64),
                 graph.constant(C_SHIFT), mode='constant')
    x = graph.l2_normalize(x)
    x = graph.l2_normalize(
        _scaled(graph, graph.dense(x, w[3]), w[4], scalers['embedding']))
    for i in range(n_blocks):
        kernel_1, scaler, kernel_2, alpha = w[
            start + N_BLOCK_WEIGHTS * i:start + N_BLOCK_WEIGHTS * (i + 1)]
        hidden = graph.op('Relu', _scaled(graph, graph.dense(x, kernel_1),
                                          scaler, scalers['block']))
        hidden = graph.op('Add', hidden, graph.constant(RELU_EPSILON))
        update = graph.l2_normalize(graph.dense(hidden, kernel_2))
        step = _scaled(graph, graph.op('Sub', update, x), alpha,
                       scalers['alpha'])
        x = graph.l2_normalize(graph.op('Add', x, step))
    heads, remaining = [], outputs
    first = start + N_BLOCK_WEIGHTS * n_blocks
    for i in range(first, len(w), N_OUTPUT_WEIGHTS):
        if remaining <= 0:
            break
        bias, kernel_1, scaler, kernel_2 = w[i:i + N_OUTPUT_WEIGHTS]
        kept = min(remaining, len(bias))
        hidden = _scaled(graph, graph.dense(x, kernel_1), scaler,
                         scalers['output'])
        heads.append(graph.activation(
            graph.dense(hidden, kernel_2[:, :kept], bias[:kept]),
            output_activation))
        remaining -= kept
    return heads[0] if len(heads) == 1 else graph.op('Concat', *heads,
                                                     axis=-1)


def _normalized_mlp(graph, x, weights, width, activation, output_activation,
                    outputs):
    x = graph.normalize_observations(x, weights[0], weights[1], width)
    return _mlp(graph, x, weights[N_NORMALIZATION_WEIGHTS:], width,
                activation, output_activation, outputs)


_BUILDERS = {'mlp': _mlp, 'simba': _simba, 'simbav2': _simbav2,
             'normalized_mlp': _normalized_mlp}
assert set(_BUILDERS) == set(NETWORKS), NETWORKS


def _zeros_like_actions(graph, x, action_size):
    """A [N, |A|] batch of zeros, N the batch size of ``x``."""
    batch = graph.op('Slice', graph.op('Shape', x),
                     graph.constant([0], np.int64),
                     graph.constant([1], np.int64))
    shape = graph.op('Concat', batch, graph.constant([action_size], np.int64),
                     axis=0)
    return graph.op('ConstantOfShape', shape)


def _check_exportable(policy):
    if (policy.is_recurrent
            or getattr(policy, '_acting_encoder', None) is not None):
        kind = 'recurrent' if policy.is_recurrent else 'pixel'
        raise ValueError(f"A {kind} policy ({type(policy).__name__}) has no "
                         "ONNX export.")
    if not isinstance(policy, (NumpyGaussianPolicy, NumpyDeterministicPolicy,
                               NumpySamplingPolicy)):
        raise ValueError(f"No ONNX export of {type(policy).__name__}; "
                         "export a numpy feedforward policy "
                         "(get_numpy_policy).")


def policy_graph(policy, observation_shapes, metadata=None):
    """The ONNX model (onnx.ModelProto) of a numpy feedforward policy's
    deterministic actions from a flat [N, obs_size] observation batch;
    ``metadata`` ({str: JSON-able}) goes into its metadata_props."""
    onnx = import_onnx()
    _check_exportable(policy)
    helper = onnx.helper
    graph = _Graph(onnx)
    keys = policy.observation_keys
    obs_size = int(sum(np.prod(observation_shapes[key]) for key in keys))
    action_size = int(np.prod(policy.action_shape))
    x, width = INPUT_NAME, obs_size
    if isinstance(policy, NumpySamplingPolicy):
        # The sampling network reads [s, xi]; the mode is at xi = 0.
        x = graph.op('Concat', x, _zeros_like_actions(graph, x, action_size),
                     axis=-1)
        width += action_size
    weights = [np.asarray(w, np.float32) for w in policy.get_weights()]
    # A Gaussian policy's network gives [mean, log-std]: only the mean's
    # outputs are computed.
    outputs = _BUILDERS[policy._network](
        graph, x, weights, width, policy.activation,
        policy.output_activation, action_size)
    if isinstance(policy, NumpyGaussianPolicy):
        outputs = graph.op('Tanh', outputs)
    graph.op('Identity', outputs, output=OUTPUT_NAME)
    model = helper.make_model(
        helper.make_graph(
            graph.nodes, f'{type(policy).__name__}_{policy._network}',
            [helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT,
                                           ['batch', obs_size])],
            [helper.make_tensor_value_info(OUTPUT_NAME,
                                           onnx.TensorProto.FLOAT,
                                           ['batch', action_size])],
            initializer=graph.initializers),
        opset_imports=[helper.make_opsetid('', OPSET)],
        producer_name='softlearning')
    # Readable by older runtimes too: the IR version of the opset's era.
    model.ir_version = 8
    helper.set_model_props(model, {
        key: json.dumps(value) for key, value in (metadata or {}).items()})
    onnx.checker.check_model(model)
    return model


def policy_metadata(policy, observation_shapes, action_bounds,
                    class_name=None):
    """What a user needs beside the graph: the input's layout and the
    action bounds that de-normalize its output."""
    keys = list(policy.observation_keys)
    low, high = (np.asarray(bound, np.float64).ravel().tolist()
                 for bound in action_bounds)
    return {
        'input': INPUT_NAME, 'output': OUTPUT_NAME,
        'observation_keys': keys,
        'observation_sizes': [int(np.prod(observation_shapes[key]))
                              for key in keys],
        'observation_shapes': {key: list(map(int, observation_shapes[key]))
                               for key in keys},
        'action_shape': list(policy.action_shape),
        'action_low': low, 'action_high': high,
        'actions': 'deterministic (mode), normalized to [-1, 1]: '
                   'env_action = low + (a + 1) / 2 * (high - low)',
        'policy': class_name or type(policy).__name__,
        'network': policy._network,
    }


def export_onnx(policy, observation_shapes, action_bounds, output_dir,
                class_name=None):
    """Writes ``output_dir``/policy.onnx and policy.json for a numpy
    feedforward ``policy`` (the checkpoint's ``load_numpy_policy``);
    returns the model's path."""
    onnx = import_onnx()
    metadata = policy_metadata(policy, observation_shapes, action_bounds,
                               class_name)
    model = policy_graph(policy, observation_shapes, metadata)
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, MODEL_FILE)
    onnx.save(model, path)
    with open(os.path.join(output_dir, METADATA_FILE), 'w') as f:
        json.dump(metadata, f, indent=2)
        f.write('\n')
    return path
