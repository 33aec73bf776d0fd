"""Models: Keras Dense stacks (``feedforward``), LSTM summarizers
(``recurrent``), the convolutional encoder of pixel agents
(``conv_encoder``, built with ``conv_encoder.get_encoder``) and their numpy
versions (``numpy_mlp``, ``numpy_lstm``, ``numpy_conv``).

The Keras part is imported on first use, so ``softlearning.models.numpy_mlp``
(used by TensorFlow-free sampler actors) does not load TensorFlow.
"""

from softlearning.utils.registry import lookup

from .numpy_lstm import (NumpyRecurrentMirror, NumpyRecurrentNetwork,
                         recurrent_network_shapes)
from .numpy_mlp import NUMPY_ACTIVATIONS, NumpyMirror, NumpyMLP, flat_size

_FEEDFORWARD_NAMES = ('concat_observations', 'feedforward_model')


def __getattr__(name):
    if name in _FEEDFORWARD_NAMES:
        from . import feedforward
        return getattr(feedforward, name)
    if name == 'recurrent_model':
        from .recurrent import recurrent_model
        return recurrent_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _feedforward_model(**kwargs):
    from .feedforward import feedforward_model
    return feedforward_model(**kwargs)


def _recurrent_model(**kwargs):
    from .recurrent import recurrent_model
    return recurrent_model(**kwargs)


MODELS = {'feedforward_model': _feedforward_model,
          'recurrent_model': _recurrent_model}


def get(params, **kwargs):
    """Builds a model from ``{'class_name': ..., 'config': {...}}``."""
    model = lookup(MODELS, params['class_name'], 'model')
    return model(**params.get('config', {}), **kwargs)


__all__ = ['NUMPY_ACTIVATIONS', 'NumpyMLP', 'NumpyMirror',
           'NumpyRecurrentMirror', 'NumpyRecurrentNetwork',
           'concat_observations', 'feedforward_model', 'flat_size', 'get',
           'recurrent_model', 'recurrent_network_shapes']
