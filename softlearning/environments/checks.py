"""The environment a run will train on, built once before Ray starts, so
that what its trials would fail on (a keyword argument its constructor
does not take, actions without finite bounds, observations softlearning
cannot feed a network) is one clear error instead.

Environments that render their observations are not built here: the
process that checks them imports TensorFlow, and may not render
(rendering.py).
"""

import inspect
import re

from softlearning.utils.one_line import first_line

from .rendering import renders_observations

UNEXPECTED_KEYWORD = re.compile(r"unexpected keyword argument '([^']+)'")
# Keywords gymnasium.make takes itself, past the environment's constructor.
MAKE_KEYWORDS = ('max_episode_steps',)


def _parameters(function):
    """(the keyword names ``function`` takes, whether it takes any other
    keyword too)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return [], True
    names = [p.name for p in parameters
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and p.name not in ('self', 'domain', 'task')]
    return names, any(p.kind is p.VAR_KEYWORD for p in parameters)


def valid_kwargs(environment_params):
    """The keyword arguments the environment of these params takes (its
    adapter's and, for gymnasium's, its constructor's), or None if
    anything goes."""
    from . import get_adapter_class
    from .observation_transform import KWARG as AGENTS_KWARG
    universe = environment_params['universe']
    adapter = get_adapter_class(universe)
    names, takes_any = _parameters(adapter.__init__)
    # Every environment takes it: softlearning's wrapper, not the adapter,
    # consumes it (environments/__init__.py).
    names = set(names) | {AGENTS_KWARG}
    if not takes_any:
        return sorted(names)
    import gymnasium as gym

    from .adapters.gymnasium_adapter import resolve_environment_id
    adapter._register_environments()
    environment_id = resolve_environment_id(
        environment_params['domain'], environment_params['task'], universe,
        adapter._is_own_spec)
    entry_point = gym.spec(environment_id).entry_point
    if isinstance(entry_point, str):
        entry_point = gym.envs.registration.load_env_creator(entry_point)
    constructor, takes_any = _parameters(entry_point)
    if takes_any:
        return None
    return sorted(names | set(constructor) | set(MAKE_KEYWORDS))


def _description(environment_params):
    return '/'.join(str(environment_params[key])
                    for key in ('universe', 'domain', 'task'))


def check_environment_params(environment_params):
    """Builds the environment of ``environment_params`` (without its
    pixels) and closes it; raises ValueError with one line naming what is
    wrong and what is valid."""
    if environment_params.get('pixels') or renders_observations(
            environment_params):
        return
    from . import _state_environment_from_params
    from .adapters.gymnasium_adapter import native_output_discarded
    kwargs = environment_params.get('kwargs') or {}
    try:
        with native_output_discarded():
            environment = _state_environment_from_params(environment_params)
    except TypeError as error:
        unknown = UNEXPECTED_KEYWORD.search(str(error))
        if unknown is None or unknown.group(1) not in kwargs:
            raise _cannot_build(environment_params, error) from None
        valid = valid_kwargs(environment_params)
        raise ValueError(
            f"Unknown environment kwarg '{unknown.group(1)}' for "
            f"{_description(environment_params)}"
            + (f"; valid: {', '.join(valid)}" if valid else '')
            + '.') from None
    except ValueError as error:  # the adapters' own: one line
        raise ValueError(first_line(error)) from None
    except Exception as error:  # the user's environment may raise anything
        raise _cannot_build(environment_params, error) from None
    environment.close()


def check_environments(environment_params, skip=lambda params: False):
    """check_environment_params on each distinct one of a variant's
    ``environment_params`` ({'training': ..., 'evaluation': ...}) that
    ``skip`` does not skip."""
    checked = []
    for params in environment_params.values():
        if params and params not in checked and not skip(params):
            checked.append(params)
            check_environment_params(params)


def _cannot_build(environment_params, error):
    kwargs = environment_params.get('kwargs') or {}
    return ValueError(
        f"Cannot build {_description(environment_params)}"
        + (f" with kwargs {kwargs}" if kwargs else '')
        + f": {type(error).__name__}: {first_line(error)}")
