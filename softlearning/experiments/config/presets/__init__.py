"""Presets: one file per algorithm (its components and their settings, and
its per-universe/domain overrides), one per form of agent (recurrent,
pixels), and the settings every variant starts from (common.py).

Adding an algorithm: its file beside sac.py in softlearning/algorithms, one
line in ``softlearning.algorithms.ALGORITHMS``, one preset file here and one
line in ``ALGORITHMS`` below. How presets, overrides and options combine is
``softlearning.experiments.config.variants``.
"""

import importlib

from softlearning.utils.registry import lookup

# --algorithm NAME -> its preset module (in this package).
ALGORITHMS = {'SAC': 'sac', 'SQL': 'sql', 'TD3': 'td3', 'DDPG': 'ddpg',
              'TQC': 'tqc', 'REDQ': 'redq', 'DroQ': 'droq',
              'CrossQ': 'crossq', 'SimbaV2': 'simbav2'}

# --policy KIND -> the policy class (None: the algorithm's recurrent one,
# from recurrent.py).
POLICY_CLASSES = {'gaussian': 'FeedforwardGaussianPolicy',
                  'sampling': 'FeedforwardSamplingPolicy',
                  'deterministic': 'FeedforwardDeterministicPolicy',
                  'recurrent': None}


def get(algorithm):
    """The preset module of ``algorithm``, or one ValueError naming the
    valid ones."""
    name = lookup(ALGORITHMS, algorithm, 'algorithm')
    return importlib.import_module(f'{__name__}.{name}')


def form(name):
    """The preset module of a form of agent: 'recurrent' or 'pixels'."""
    return importlib.import_module(f'{__name__}.{name}')
