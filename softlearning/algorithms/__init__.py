"""Algorithms: ``get({'class_name': 'SAC', 'config': {...}}, **components)``."""

from .rl_algorithm import RLAlgorithm
from .sac import SAC

ALGORITHMS = {'SAC': SAC}


def get(params, **kwargs):
    class_name = params['class_name']
    if class_name not in ALGORITHMS:
        raise ValueError(
            f"Unknown algorithm '{class_name}'. Valid algorithms: "
            f"{', '.join(ALGORITHMS)}")
    return ALGORITHMS[class_name](**params.get('config', {}), **kwargs)


__all__ = ['RLAlgorithm', 'SAC', 'get']
