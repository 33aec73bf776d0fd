"""Policies: ``get({'class_name': ..., 'config': {...}}, env)``.

The TensorFlow policies are imported on first use, so that importing
``softlearning.policies.numpy_policies`` (what sampler actors act with) never
loads TensorFlow; ``get_numpy_policy`` builds those numpy-only versions.
"""

from softlearning.models.precision import DEFAULT_PRECISION
from softlearning.utils.registry import lazy_attributes, load, lookup

from .base_policy import BasePolicy
from .numpy_policies import (NUMPY_POLICIES, NumpyDeterministicPolicy,
                             NumpyGaussianPolicy,
                             NumpySamplingPolicy, NumpyUniformPolicy,
                             get_numpy_policy, get_numpy_policy_class)


_POLICIES = 'softlearning.policies'

# Name -> where the class lives (imported, with TensorFlow, on first use).
POLICIES = {
    'FeedforwardGaussianPolicy':
        f'{_POLICIES}.gaussian_policy:FeedforwardGaussianPolicy',
    'GaussianPolicy': f'{_POLICIES}.gaussian_policy:FeedforwardGaussianPolicy',
    'FeedforwardSamplingPolicy':
        f'{_POLICIES}.sampling_policy:FeedforwardSamplingPolicy',
    'FeedforwardDeterministicPolicy':
        f'{_POLICIES}.deterministic_policy:FeedforwardDeterministicPolicy',
    'RecurrentGaussianPolicy':
        f'{_POLICIES}.recurrent_policy:RecurrentGaussianPolicy',
    'RecurrentDeterministicPolicy':
        f'{_POLICIES}.recurrent_policy:RecurrentDeterministicPolicy',
    'UniformPolicy': f'{_POLICIES}.uniform_policy:UniformPolicy',
}

__getattr__ = lazy_attributes(POLICIES, __name__)


def get_policy_class(class_name):
    return load(lookup(POLICIES, class_name, 'policy'))


def get(params, env, seed=None, encoder=None, precision=DEFAULT_PRECISION):
    """Builds a policy for ``env``'s observation and action spaces;
    ``encoder``: a pixel agent's ConvEncoder, which the policy reads;
    ``precision``: what its network computes in, in the update
    (models/precision.py). The warm-up policy, which has no network,
    ignores both."""
    network_kwargs = {}
    if params['class_name'] != 'UniformPolicy':
        if encoder is not None:
            network_kwargs['encoder'] = encoder
        if precision != DEFAULT_PRECISION:
            network_kwargs['precision'] = precision
    return get_policy_class(params['class_name'])(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        seed=seed,
        **params.get('config', {}), **network_kwargs)


__all__ = ['BasePolicy', 'FeedforwardDeterministicPolicy',
           'FeedforwardGaussianPolicy', 'RecurrentDeterministicPolicy',
           'RecurrentGaussianPolicy',
           'FeedforwardSamplingPolicy', 'NUMPY_POLICIES',
           'NumpyDeterministicPolicy', 'NumpyGaussianPolicy',
           'NumpySamplingPolicy', 'NumpyUniformPolicy',
           'POLICIES',
           'UniformPolicy', 'get', 'get_numpy_policy',
           'get_numpy_policy_class', 'get_policy_class']
