"""Policies: ``get({'class_name': ..., 'config': {...}}, env)``.

The TensorFlow policies are imported on first use, so that importing
``softlearning.policies.numpy_policies`` (what sampler actors act with) never
loads TensorFlow; ``get_numpy_policy`` builds those numpy-only versions.
"""

from softlearning.utils.registry import lookup

from .base_policy import BasePolicy
from .numpy_policies import (NUMPY_POLICIES, NumpyDeterministicPolicy,
                             NumpyGaussianPolicy,
                             NumpySamplingPolicy, NumpyUniformPolicy,
                             get_numpy_policy, get_numpy_policy_class)


def _gaussian_policy():
    from .gaussian_policy import FeedforwardGaussianPolicy
    return FeedforwardGaussianPolicy


def _sampling_policy():
    from .sampling_policy import FeedforwardSamplingPolicy
    return FeedforwardSamplingPolicy


def _deterministic_policy():
    from .deterministic_policy import FeedforwardDeterministicPolicy
    return FeedforwardDeterministicPolicy


def _recurrent_gaussian_policy():
    from .recurrent_policy import RecurrentGaussianPolicy
    return RecurrentGaussianPolicy


def _recurrent_deterministic_policy():
    from .recurrent_policy import RecurrentDeterministicPolicy
    return RecurrentDeterministicPolicy


def _uniform_policy():
    from .uniform_policy import UniformPolicy
    return UniformPolicy


# Name -> function importing and returning the class.
POLICIES = {
    'FeedforwardGaussianPolicy': _gaussian_policy,
    'GaussianPolicy': _gaussian_policy,
    'FeedforwardSamplingPolicy': _sampling_policy,
    'FeedforwardDeterministicPolicy': _deterministic_policy,
    'RecurrentGaussianPolicy': _recurrent_gaussian_policy,
    'RecurrentDeterministicPolicy': _recurrent_deterministic_policy,
    'UniformPolicy': _uniform_policy,
}
_LAZY_CLASSES = {name: POLICIES[name] for name in (
    'FeedforwardGaussianPolicy', 'FeedforwardSamplingPolicy',
    'FeedforwardDeterministicPolicy', 'RecurrentGaussianPolicy',
    'RecurrentDeterministicPolicy', 'UniformPolicy')}


def __getattr__(name):
    if name in _LAZY_CLASSES:
        return _LAZY_CLASSES[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_policy_class(class_name):
    return lookup(POLICIES, class_name, 'policy')()


def get(params, env, seed=None, encoder=None):
    """Builds a policy for ``env``'s observation and action spaces;
    ``encoder``: a pixel agent's ConvEncoder, which the policy reads (the
    warm-up policy ignores it)."""
    encoder_kwargs = {}
    if encoder is not None and params['class_name'] != 'UniformPolicy':
        encoder_kwargs['encoder'] = encoder
    return get_policy_class(params['class_name'])(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        seed=seed,
        **params.get('config', {}), **encoder_kwargs)


__all__ = ['BasePolicy', 'FeedforwardDeterministicPolicy',
           'FeedforwardGaussianPolicy', 'RecurrentDeterministicPolicy',
           'RecurrentGaussianPolicy',
           'FeedforwardSamplingPolicy', 'NUMPY_POLICIES',
           'NumpyDeterministicPolicy', 'NumpyGaussianPolicy',
           'NumpySamplingPolicy', 'NumpyUniformPolicy',
           'POLICIES',
           'UniformPolicy', 'get', 'get_numpy_policy',
           'get_numpy_policy_class', 'get_policy_class']
