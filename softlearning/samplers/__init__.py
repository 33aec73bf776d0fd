"""Samplers: ``get({'class_name': ..., 'config': {...}})``."""

from .simple_sampler import SimpleSampler
from .utils import path_statistics, rollout, rollouts

SAMPLERS = {'SimpleSampler': SimpleSampler}


def get(params, **kwargs):
    class_name = params['class_name']
    if class_name not in SAMPLERS:
        raise ValueError(f"Unknown sampler '{class_name}'. Valid samplers: "
                         f"{', '.join(SAMPLERS)}")
    return SAMPLERS[class_name](**params.get('config', {}), **kwargs)


__all__ = ['SimpleSampler', 'get', 'path_statistics', 'rollout', 'rollouts']
