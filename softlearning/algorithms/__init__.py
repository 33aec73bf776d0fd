"""Algorithms: ``get({'class_name': 'SAC', 'config': {...}}, **components)``."""

from softlearning.utils.registry import lookup

from .rl_algorithm import RLAlgorithm
from .sac import SAC

ALGORITHMS = {'SAC': SAC}


def get(params, **kwargs):
    algorithm_class = lookup(ALGORITHMS, params['class_name'], 'algorithm')
    return algorithm_class(**params.get('config', {}), **kwargs)


__all__ = ['RLAlgorithm', 'SAC', 'get']
