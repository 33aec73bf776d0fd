from .feedforward import (NumpyMirror, concat_observations, feedforward_model,
                          flat_size)

MODELS = {'feedforward_model': feedforward_model}


def get(params, **kwargs):
    """Builds a model from ``{'class_name': ..., 'config': {...}}``."""
    class_name = params['class_name']
    if class_name not in MODELS:
        raise ValueError(f"Unknown model '{class_name}'. Valid models: "
                         f"{', '.join(MODELS)}")
    return MODELS[class_name](**params.get('config', {}), **kwargs)


__all__ = ['NumpyMirror', 'concat_observations', 'feedforward_model',
           'flat_size', 'get']
