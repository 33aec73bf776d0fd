"""Policies: ``get({'class_name': ..., 'config': {...}}, env)``."""

from .base_policy import BasePolicy
from .gaussian_policy import FeedforwardGaussianPolicy
from .uniform_policy import UniformPolicy

POLICIES = {
    'FeedforwardGaussianPolicy': FeedforwardGaussianPolicy,
    'GaussianPolicy': FeedforwardGaussianPolicy,
    'UniformPolicy': UniformPolicy,
}


def get(params, env, seed=None):
    """Builds a policy for ``env``'s observation and action spaces."""
    class_name = params['class_name']
    if class_name not in POLICIES:
        raise ValueError(f"Unknown policy '{class_name}'. Valid policies: "
                         f"{', '.join(POLICIES)}")
    return POLICIES[class_name](
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        seed=seed,
        **params.get('config', {}))


__all__ = ['BasePolicy', 'FeedforwardGaussianPolicy', 'UniformPolicy', 'get']
