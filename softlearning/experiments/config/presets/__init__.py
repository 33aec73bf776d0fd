"""Presets: one file per algorithm (its components and their settings, and
its per-universe/domain overrides), one per form of agent (recurrent,
pixels), and the settings every variant starts from (common.py).

Which preset an algorithm runs with is its entry in the one registry,
``softlearning.algorithms.ALGORITHMS``; a preset may live outside this
package. How presets, overrides and options combine is
``softlearning.experiments.config.variants``.
"""

import importlib

from softlearning.algorithms import ALGORITHMS
from softlearning.utils.registry import lookup

# --policy KIND -> the policy class (None: the algorithm's recurrent one,
# from recurrent.py).
POLICY_CLASSES = {'gaussian': 'FeedforwardGaussianPolicy',
                  'sampling': 'FeedforwardSamplingPolicy',
                  'deterministic': 'FeedforwardDeterministicPolicy',
                  'recurrent': None}


def get(algorithm):
    """The preset module of ``algorithm``, or one ValueError naming the
    valid ones."""
    entry = lookup(ALGORITHMS, algorithm, 'algorithm')
    return importlib.import_module(entry['preset'])


def form(name):
    """The preset module of a form of agent: 'recurrent' or 'pixels'."""
    return importlib.import_module(f'{__name__}.{name}')
