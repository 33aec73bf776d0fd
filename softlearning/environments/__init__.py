"""Environment adapters: one interface over gymnasium, dm_control and pybullet.

``get_environment('gym', 'Pendulum', 'v1', {})`` builds an adapter;
``get_environment_from_params({'universe': ..., 'domain': ..., 'task': ...,
'kwargs': {...}})`` does the same from a variant's environment params (with
'import_path', the folder of a user's own domain module), and
wraps it when they ask for partial observations ('pomdp', see
partial_observation.py), for rendered frames ('pixels', see pixels.py) or
for transformed observations (the kwarg 'observation_transform', see
observation_transform.py).
"""

from softlearning.utils.registry import lookup

from .adapters.softlearning_env import SoftlearningEnv
from .observation_transform import KWARG as TRANSFORM_KWARG, transformed


def _gym_adapter():
    from .adapters.gymnasium_adapter import GymnasiumAdapter
    return GymnasiumAdapter


def _dm_control_adapter():
    from .adapters.dm_control_adapter import DmControlAdapter
    return DmControlAdapter


def _pybullet_adapter():
    from .adapters.pybullet_adapter import PybulletAdapter
    return PybulletAdapter


# Imported lazily: a gym-only user never pays for importing dm_control.
ADAPTERS = {
    'gym': _gym_adapter,
    'dm_control': _dm_control_adapter,
    'pybullet': _pybullet_adapter,
}
UNIVERSES = tuple(ADAPTERS)


def get_adapter_class(universe):
    return lookup(ADAPTERS, universe, 'universe')()


def get_environment(universe, domain, task, environment_kwargs=None):
    return get_adapter_class(universe)(
        domain, task, **(environment_kwargs or {}))


def get_environment_from_params(environment_params):
    if environment_params.get('import_path'):
        # The user's own module, from where training found it.
        from .adapters.gymnasium_adapter import import_environment_module
        import_environment_module(environment_params['domain'],
                                  environment_params['universe'],
                                  environment_params['import_path'])
    if environment_params.get('pixels'):
        # pixels.py resolves the settings once, and builds the rest with
        # the frame size they give.
        from .pixels import build_pixel_environment
        return build_pixel_environment(environment_params,
                                       _state_environment_from_params)
    return _state_environment_from_params(environment_params)


def _state_environment_from_params(environment_params, extra_kwargs=None):
    """The adapter (with ``extra_kwargs`` over the params' kwargs), wrapped
    for transformed and partial observations if the params ask for
    them."""
    kwargs = {**environment_params.get('kwargs', {}), **(extra_kwargs or {})}
    transform = kwargs.pop(TRANSFORM_KWARG, None)
    environment = transformed(get_environment(
        environment_params['universe'], environment_params['domain'],
        environment_params['task'], kwargs), transform)
    pomdp = environment_params.get('pomdp')
    if pomdp:
        from .partial_observation import PartiallyObserved
        environment = PartiallyObserved(environment, **pomdp)
    return environment


def import_path(domain):
    """The folder the module of a user's domain ('my_module:Name') was
    imported from, once ``resolve_task`` imported it; None for softlearning's
    own domains. Recorded in the variant (environment_params.*.import_path)
    so that every process that builds the environment imports it too."""
    if ':' not in domain:
        return None
    from softlearning.utils.imports import import_root
    return import_root(domain.partition(':')[0])


def resolve_task(universe, domain, task):
    """Returns the canonical task name, or raises ValueError naming the valid
    choices, without building the environment. Retired gym versions (``v3``)
    resolve to the newest one with a notice."""
    adapter_class = get_adapter_class(universe)
    if universe == 'dm_control':
        from .adapters.dm_control_adapter import validate_domain_task
        validate_domain_task(domain, task)
        return task
    from .adapters.gymnasium_adapter import (check_continuous_actions,
                                             resolve_environment_id)
    adapter_class._register_environments()
    environment_id = resolve_environment_id(
        domain, task, universe, adapter_class._is_own_spec)
    if universe == 'gym':
        # (Bullet's tasks are all continuous.) Built once here, so that a
        # discrete or unbuildable environment fails before Ray starts.
        check_continuous_actions(environment_id)
    return environment_id.rsplit('-', 1)[1]


__all__ = ['SoftlearningEnv', 'UNIVERSES', 'get_environment',
           'get_environment_from_params', 'import_path', 'resolve_task']
