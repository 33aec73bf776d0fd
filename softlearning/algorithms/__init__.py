"""Algorithms: ``get({'class_name': 'SAC', 'config': {...}}, **components)``.

The algorithm classes (and with them TensorFlow) are imported on first use.
"""

import importlib

from softlearning.utils.registry import lookup

# Name -> (module, class).
ALGORITHMS = {'SAC': ('.sac', 'SAC'), 'SQL': ('.sql', 'SQL'),
              'TD3': ('.td3', 'TD3'), 'DDPG': ('.td3', 'DDPG')}
_LAZY_CLASSES = {**ALGORITHMS,
                 'FusedUpdateAlgorithm': ('.fused_updates',
                                          'FusedUpdateAlgorithm'),
                 'RLAlgorithm': ('.rl_algorithm', 'RLAlgorithm')}

def _import(module_name, class_name):
    return getattr(importlib.import_module(module_name, __name__), class_name)


def __getattr__(name):
    if name in _LAZY_CLASSES:
        return _import(*_LAZY_CLASSES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_algorithm_class(class_name):
    return _import(*lookup(ALGORITHMS, class_name, 'algorithm'))


def get(params, **kwargs):
    algorithm_class = get_algorithm_class(params['class_name'])
    return algorithm_class(**params.get('config', {}), **kwargs)


__all__ = ['ALGORITHMS', 'DDPG', 'FusedUpdateAlgorithm', 'RLAlgorithm', 'SAC',
           'SQL', 'TD3',
           'get', 'get_algorithm_class']
