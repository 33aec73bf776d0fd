"""What a network's layers compute in, per ``precision`` ('float32' or
'bfloat16'), as the Keras dtype policies its layers are built with.
TensorFlow-free: the policies are given by name, which every Keras layer
takes as its ``dtype``; none is set for the whole process (a global policy
would change every other network built in it, tests and user code alike).

- 'float32': every layer as Keras builds it by default, so a float32
  network is exactly what it was before there was a choice.
- 'bfloat16': mixed precision. The layers that multiply (Dense, Conv2D,
  LSTM) and the element-wise ones between them get Keras's
  'mixed_bfloat16' policy: their weights stay float32 variables, which
  Keras reads as bfloat16 inside the layer (AutoCastVariable), so the
  matrix products run in bfloat16 while gradients, the optimizers' slots
  and the updated weights stay float32. Keras's LayerNormalization
  computes its statistics in float32 under that policy by itself. Two kinds
  of layer stay float32:

  - a network's output layer (with SimBa's final LayerNorm and SimbaV2's
    output head): its outputs are what losses, log-probabilities and
    targets read, and bfloat16 keeps about 3 significant digits. Keras casts
    a layer's floating inputs to its compute dtype, so the output layer
    takes the last hidden layer's bfloat16 and returns float32 without a
    cast layer of its own (the numpy mirrors walk the layers one by one);
  - running statistics (SimBa's observation normalization, CrossQ's batch
    renormalization): a moving average that adds 1% of a new value per
    step would have its steps rounded away in bfloat16.

The numpy copies that act (numpy_mlp.py, ...) load the float32 weights:
acting is float32 whatever the update's precision.
"""

from softlearning.utils.registry import check_choice

DEFAULT_PRECISION = 'float32'
BFLOAT16 = 'bfloat16'
PRECISIONS = (DEFAULT_PRECISION, BFLOAT16)

# The dtype policy of the layers that compute; None: Keras's default.
_COMPUTE = {DEFAULT_PRECISION: None, BFLOAT16: 'mixed_bfloat16'}


def check_precision(precision):
    """``precision``, or one ValueError naming the valid ones."""
    return check_choice(precision, PRECISIONS, 'precision')


def compute_dtype(precision):
    """The ``dtype`` of the layers that compute (hidden layers): None
    (Keras's default, float32) or 'mixed_bfloat16'."""
    return _COMPUTE[check_precision(precision)]


def output_dtype(precision):
    """The ``dtype`` of a network's output layer and of its running
    statistics: float32 under any precision (None: Keras's default, for
    a float32 network built as before)."""
    return None if compute_dtype(precision) is None else 'float32'


def network_precision(model):
    """The precision a built Keras model computes in: 'bfloat16' where any
    of its layers computes in bfloat16, else 'float32'."""
    layers = [model, *getattr(model, 'submodules', ())]
    if any(getattr(layer, 'compute_dtype', None) == 'bfloat16'
           for layer in layers):
        return BFLOAT16
    return DEFAULT_PRECISION
