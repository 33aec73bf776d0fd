"""Algorithms: ``get({'class_name': 'SAC', 'config': {...}}, **components)``.

The algorithm classes (and with them TensorFlow) are imported on first use.
"""

from softlearning.utils.registry import lazy_attributes, load, lookup

ALGORITHMS = {
    'SAC': 'softlearning.algorithms.sac:SAC',
    'SQL': 'softlearning.algorithms.sql:SQL',
    'TD3': 'softlearning.algorithms.td3:TD3',
    'DDPG': 'softlearning.algorithms.td3:DDPG',
    'TQC': 'softlearning.algorithms.tqc:TQC',
    'REDQ': 'softlearning.algorithms.redq:REDQ',
    # DroQ is REDQ's update on dropout + LayerNorm critics (presets/droq.py).
    'DroQ': 'softlearning.algorithms.redq:REDQ',
    'CrossQ': 'softlearning.algorithms.crossq:CrossQ',
    # SimbaV2 is SAC on SimbaV2 networks with categorical critics
    # (presets/simbav2.py).
    'SimbaV2': 'softlearning.algorithms.sac:SAC',
}

__getattr__ = lazy_attributes({
    **ALGORITHMS,
    'FusedUpdateAlgorithm':
        'softlearning.algorithms.fused_updates:FusedUpdateAlgorithm',
    'RLAlgorithm': 'softlearning.algorithms.rl_algorithm:RLAlgorithm',
}, __name__)


def get_algorithm_class(class_name):
    return load(lookup(ALGORITHMS, class_name, 'algorithm'))


def get(params, **kwargs):
    algorithm_class = get_algorithm_class(params['class_name'])
    return algorithm_class(**params.get('config', {}), **kwargs)


__all__ = ['ALGORITHMS', 'CrossQ', 'DDPG', 'FusedUpdateAlgorithm', 'RLAlgorithm', 'SAC',
           'REDQ', 'SQL', 'TD3', 'TQC',
           'get', 'get_algorithm_class']
