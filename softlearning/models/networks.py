"""The kinds of Dense network an actor or critic can have (``network`` in
their config), and each kind's numpy half. TensorFlow-free: the Keras
builders are models/feedforward.py's ``build_network``.

- 'mlp': a Dense stack (optionally with CrossQ's batch renormalization);
- 'simba': SimBa's residual network with running observation
  normalization (models/simba.py);
- 'simbav2': SimbaV2's hyperspherical network, with the same running
  observation normalization (models/simbav2.py);
- 'normalized_mlp': the Dense stack behind that running observation
  normalization (FastTD3's and FastSAC's; models/numpy_normalized_mlp.py).
"""

from .numpy_mlp import (DEFAULT_KERNEL_INITIALIZER, KERNEL_INITIALIZERS,
                        NumpyMirror, NumpyMLP, dense_stack_shapes)
from .numpy_normalized_mlp import (NumpyNormalizedMLP,
                                   NumpyNormalizedMLPMirror,
                                   normalized_mlp_shapes)
from .numpy_simba import NumpySimba, NumpySimbaMirror, simba_shapes
from .numpy_simbav2 import NumpySimbaV2, NumpySimbaV2Mirror, simbav2_shapes
from .precision import DEFAULT_PRECISION, check_precision

NETWORKS = ('mlp', 'simba', 'simbav2', 'normalized_mlp')
# The networks that normalize their observations with running statistics
# (SimBa's, SimbaV2's, and the normalized Dense stack): what a policy or
# critic tells them apart by.
NORMALIZING_NETWORKS = ('simba', 'simbav2', 'normalized_mlp')
# The networks that are Dense stacks (the others have architectures of
# their own): they take a critic's dropout and LayerNorm, and a kernel
# initializer.
DENSE_STACKS = ('mlp', 'normalized_mlp')
NUMPY_NETWORKS = {'simba': NumpySimba, 'simbav2': NumpySimbaV2,
                  'normalized_mlp': NumpyNormalizedMLP}
NUMPY_MIRRORS = {'simba': NumpySimbaMirror, 'simbav2': NumpySimbaV2Mirror,
                 'normalized_mlp': NumpyNormalizedMLPMirror}
SHAPES = {'simba': simba_shapes, 'simbav2': simbav2_shapes,
          'normalized_mlp': normalized_mlp_shapes}
# The networks whose output layer has a hidden projection of its own
# (SimbaV2's), so that a Gaussian policy's mean and log-std get a head each
# (``output_heads``); any other's last Dense layer serves every output alike.
HEADED_NETWORKS = ('simbav2',)


def head_options(network, output_heads):
    """The builder's ``output_heads`` keyword, for a network that has
    heads."""
    return {'output_heads': output_heads} if network in HEADED_NETWORKS \
        and output_heads != 1 else {}


def check_network(network, batch_renorm=None, encoder=None,
                  kernel_initializer=DEFAULT_KERNEL_INITIALIZER):
    """``network``, or one ValueError naming the valid ones (or what does
    not combine with it)."""
    if network not in NETWORKS:
        raise ValueError(f"Unknown network '{network}'; valid networks: "
                         f"{', '.join(NETWORKS)}")
    if kernel_initializer not in KERNEL_INITIALIZERS:
        raise ValueError(f"Unknown kernel_initializer '{kernel_initializer}';"
                         f" valid: {', '.join(KERNEL_INITIALIZERS)}")
    name = {'simba': 'A SimBa', 'simbav2': 'A SimbaV2'}.get(network)
    if name and kernel_initializer != DEFAULT_KERNEL_INITIALIZER:
        raise ValueError(f"{name} network sets its own initializers; drop "
                         "kernel_initializer or use network 'mlp'.")
    if name and batch_renorm:
        raise ValueError(f"{name} network has no batch renormalization "
                         "option (batch_renorm); use network 'mlp'.")
    if name and encoder is not None:
        raise ValueError(f"{name} network reads state observations; a pixel "
                         "agent's encoder is not supported.")
    if network == 'normalized_mlp' and (batch_renorm or encoder is not None):
        raise ValueError(
            "A normalized_mlp network normalizes state observations with "
            "running statistics; batch_renorm (which normalizes them "
            "itself) and a pixel agent's encoder are not supported.")
    return network


def network_options(network='mlp', batch_renorm=None, encoder=None,
                    kernel_initializer=DEFAULT_KERNEL_INITIALIZER,
                    precision=DEFAULT_PRECISION):
    """The checked (check_network) network options that differ from a plain
    float32 MLP's: what a policy or Q-function records in its config, for
    ``clone``, and passes on to build_network. ``precision``: what the
    network computes in (models/precision.py)."""
    check_network(network, batch_renorm, encoder, kernel_initializer)
    options = {}
    if check_precision(precision) != DEFAULT_PRECISION:
        options['precision'] = precision
    if network != 'mlp':
        options['network'] = network
    if batch_renorm:
        options['batch_renorm'] = batch_renorm
    if kernel_initializer != DEFAULT_KERNEL_INITIALIZER:
        options['kernel_initializer'] = kernel_initializer
    return options


def refuse_kernel_initializer(options, what):
    """One ValueError if ``options`` (a recurrent network's constructor
    keywords) asks for another kernel initializer: an LSTM's are its own."""
    chosen = options.pop('kernel_initializer', DEFAULT_KERNEL_INITIALIZER)
    if chosen != DEFAULT_KERNEL_INITIALIZER:
        raise ValueError(f"{what} keeps Keras's initializers; drop "
                         f"kernel_initializer (got '{chosen}').")


def numpy_network_class(network):
    """The numpy network that acts from a ``layer_weights`` list."""
    return NUMPY_NETWORKS.get(network, NumpyMLP)


def numpy_mirror_class(network):
    """The numpy copy of a Keras network, refreshed from it."""
    return NUMPY_MIRRORS.get(network, NumpyMirror)


def network_shapes(network, input_size, hidden_layer_sizes, output_size,
                   batch_renorm=False, normalized_size=None, output_heads=1):
    """The shapes of a network's ``layer_weights``; a SimBa or SimbaV2
    network normalizes the first ``normalized_size`` inputs (all by
    default)."""
    if network in SHAPES:
        return SHAPES[network](input_size, hidden_layer_sizes, output_size,
                               normalized_size or input_size,
                               **head_options(network, output_heads))
    return dense_stack_shapes(input_size, hidden_layer_sizes, output_size,
                              batch_renorm)
