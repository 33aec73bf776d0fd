"""Algorithms: the registry, and ``get({'class_name': 'SAC', 'config':
{...}}, **components)``.

``ALGORITHMS`` is the one list of what ``--algorithm`` takes. Each entry
names

- ``class``: the class that does the update, 'package.module:Name';
- ``preset``: the module of its preset (its components and settings, see
  softlearning/experiments/config/presets/__init__.py);
- ``page`` (optional): its page under docs/algorithms/, when it shares one
  (default: the name, lower case).

A name whose class an earlier entry registered is a preset of that
algorithm (``preset_of``): DroQ runs REDQ's update on dropout critics,
SimbaV2 SAC's on SimbaV2 networks with categorical critics. ``--help``, the
docs' algorithms table and the conformance tests read this registry.

The algorithm classes (and with them TensorFlow) are imported on first use.
"""

from softlearning.utils.registry import lazy_attributes, load, lookup

PRESETS = 'softlearning.experiments.config.presets'

ALGORITHMS = {
    'SAC': {'class': 'softlearning.algorithms.sac:SAC',
            'preset': f'{PRESETS}.sac'},
    'SQL': {'class': 'softlearning.algorithms.sql:SQL',
            'preset': f'{PRESETS}.sql'},
    'TD3': {'class': 'softlearning.algorithms.td3:TD3',
            'preset': f'{PRESETS}.td3'},
    'DDPG': {'class': 'softlearning.algorithms.td3:DDPG',
             'preset': f'{PRESETS}.ddpg', 'page': 'td3'},
    'TQC': {'class': 'softlearning.algorithms.tqc:TQC',
            'preset': f'{PRESETS}.tqc'},
    'REDQ': {'class': 'softlearning.algorithms.redq:REDQ',
             'preset': f'{PRESETS}.redq'},
    'DroQ': {'class': 'softlearning.algorithms.redq:REDQ',
             'preset': f'{PRESETS}.droq', 'page': 'redq'},
    'CrossQ': {'class': 'softlearning.algorithms.crossq:CrossQ',
               'preset': f'{PRESETS}.crossq'},
    'SimbaV2': {'class': 'softlearning.algorithms.sac:SAC',
                'preset': f'{PRESETS}.simbav2'},
    'FastTD3': {'class': 'softlearning.algorithms.fast_td3:FastTD3',
                'preset': f'{PRESETS}.fast_td3'},
    'FastSAC': {'class': 'softlearning.algorithms.fast_sac:FastSAC',
                'preset': f'{PRESETS}.fast_sac', 'page': 'fasttd3'},
}

# {name: 'package.module:Name'}: the registry as the other component
# families' registries read (config keys are checked against the class).
CLASSES = {name: entry['class'] for name, entry in ALGORITHMS.items()}

__getattr__ = lazy_attributes({
    **CLASSES,
    'FusedUpdateAlgorithm':
        'softlearning.algorithms.fused_updates:FusedUpdateAlgorithm',
    'RLAlgorithm': 'softlearning.algorithms.rl_algorithm:RLAlgorithm',
}, __name__)


def preset_of(name):
    """The algorithm whose update ``name`` runs with its own preset (the
    first entry with its class), or None for an algorithm of its own."""
    location = lookup(CLASSES, name, 'algorithm')
    first = next(other for other, entry in ALGORITHMS.items()
                 if entry['class'] == location)
    return None if first == name else first


def described(name):
    """``name`` as --help lists it: 'DroQ (a REDQ preset)'."""
    base = preset_of(name)
    return f'{name} (a {base} preset)' if base else name


def page(name):
    """Its documentation page, 'algorithms/<page>.md'."""
    entry = lookup(ALGORITHMS, name, 'algorithm')
    return f"algorithms/{entry.get('page', name.lower())}.md"


def get_algorithm_class(class_name):
    return load(lookup(CLASSES, class_name, 'algorithm'))


def get(params, **kwargs):
    algorithm_class = get_algorithm_class(params['class_name'])
    return algorithm_class(**params.get('config', {}), **kwargs)


__all__ = ['ALGORITHMS', 'CLASSES', 'CrossQ', 'DDPG', 'FastSAC', 'FastTD3',
           'FusedUpdateAlgorithm',
           'RLAlgorithm', 'SAC', 'REDQ', 'SQL', 'TD3', 'TQC',
           'described', 'get', 'get_algorithm_class', 'page', 'preset_of']
