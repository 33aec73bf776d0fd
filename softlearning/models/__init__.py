"""Models: Keras Dense stacks (``feedforward``) and their numpy versions
(``numpy_mlp``).

The Keras part is imported on first use, so ``softlearning.models.numpy_mlp``
(used by TensorFlow-free sampler actors) does not load TensorFlow.
"""

from softlearning.utils.registry import lookup

from .numpy_mlp import NUMPY_ACTIVATIONS, NumpyMirror, NumpyMLP, flat_size

_FEEDFORWARD_NAMES = ('concat_observations', 'feedforward_model')


def __getattr__(name):
    if name in _FEEDFORWARD_NAMES:
        from . import feedforward
        return getattr(feedforward, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _feedforward_model(**kwargs):
    from .feedforward import feedforward_model
    return feedforward_model(**kwargs)


MODELS = {'feedforward_model': _feedforward_model}


def get(params, **kwargs):
    """Builds a model from ``{'class_name': ..., 'config': {...}}``."""
    model = lookup(MODELS, params['class_name'], 'model')
    return model(**params.get('config', {}), **kwargs)


__all__ = ['NUMPY_ACTIVATIONS', 'NumpyMLP', 'NumpyMirror',
           'concat_observations', 'feedforward_model', 'flat_size', 'get']
