"""Every component's ``config`` against its constructor.

``check_config_keys``: ``--config algorithm_params.config.discont=0.9`` (or
the same key in a sweep file or a search space) fails before Ray starts,
naming the accepted keys. ``with_constructor_defaults``: the variant records
every value a constructor would take by default, so that presets need not
repeat them and ``params.json`` still shows what a trial ran with.

TensorFlow components are read from their source (``signatures``), so that
neither imports TensorFlow. What the trainable passes each constructor
itself (environments, the pool, seeds, ...) is not for the variant to set.
"""

import copy
import difflib
import inspect

from softlearning.utils.registry import lookup
from softlearning.utils.signatures import (
    NO_LITERAL_DEFAULT, parameters_in_source)

# What the trainable (build.py) passes to each family's constructor itself.
SUPPLIED_BY_RUNNER = {
    'algorithm_params': {
        'training_environment', 'evaluation_environment',
        'evaluation_environment_copies', 'policy',
        'initial_exploration_policy', 'Qs', 'pool', 'sampler',
        'iteration_callbacks', 'seed'},
    # The networks' precision is the update's (algorithm_params.config.
    # precision), passed to every network the update trains.
    'policy_params': {'observation_shapes', 'action_shape', 'seed',
                      'encoder', 'precision'},
    'exploration_policy_params': {'observation_shapes', 'action_shape',
                                  'seed'},
    'Q_params': {'observation_shapes', 'action_shape', 'name', 'encoder',
                 'precision'},
    # A hindsight pool's reward function is its environment's.
    'replay_pool_params': {'observation_shapes', 'action_shape', 'seed',
                           'reward_function'},
    'sampler_params': {'seed', 'environment_params'},
}


def _imported_parameters(cls):
    """{keyword: default or NO_LITERAL_DEFAULT} of a class without
    TensorFlow (replay pools, samplers), from Python's signature."""
    from softlearning.utils.signatures import accepted_keywords
    names = accepted_keywords(cls)
    defaults = {}
    for klass in reversed(cls.__mro__):
        if '__init__' in vars(klass) and klass is not object:
            for parameter in inspect.signature(
                    vars(klass)['__init__']).parameters.values():
                if parameter.default is not inspect.Parameter.empty:
                    defaults[parameter.name] = parameter.default
    return {name: defaults.get(name, NO_LITERAL_DEFAULT) for name in names}


def _registries():
    """family -> (kind, registry, function from a registry entry to
    ({keyword: default}, the class if imported))."""
    from softlearning import (
        algorithms, policies, replay_pools, samplers, value_functions)

    def in_source(location):
        return parameters_in_source(location), None

    def imported(cls):
        return _imported_parameters(cls), cls

    return {
        'algorithm_params': ('algorithm', algorithms.CLASSES, in_source),
        'policy_params': ('policy', policies.POLICIES, in_source),
        'exploration_policy_params': ('policy', policies.POLICIES,
                                      in_source),
        'Q_params': ('Q-function', value_functions.VALUE_FUNCTIONS,
                     in_source),
        'replay_pool_params': ('replay pool', replay_pools.REPLAY_POOLS,
                               imported),
        'sampler_params': ('sampler', samplers.SAMPLERS, imported),
    }


def _class_names(class_name):
    """The class names a (possibly searched) ``class_name`` can take."""
    from softlearning.experiments.config.search_spaces import possible_values
    return [name for name in possible_values(class_name)
            if isinstance(name, str)]


def _supplied(family, cls, variant_spec):
    supplied = set(SUPPLIED_BY_RUNNER[family])
    # Samplers that rebuild components elsewhere get those params too.
    from_variant = getattr(cls, 'params_from_variant', None)
    if from_variant is not None:
        supplied |= set(from_variant(variant_spec))
    return supplied


def _unknown_key_message(family, class_name, key, settable):
    message = (f"Unknown key '{key}' in {family}.config: {class_name} "
               f"accepts {', '.join(sorted(settable))}.")
    close = difflib.get_close_matches(key, settable, n=1)
    if close:
        message += f" Did you mean '{close[0]}'?"
    return message


def _components(variant_spec):
    """(family, params, kind, class name, {keyword: default} or None,
    keywords the runner supplies) of each component the variant names."""
    for family, (kind, registry, read) in _registries().items():
        params = variant_spec.get(family)
        if not isinstance(params, dict) or not isinstance(
                params.get('config') or {}, dict):
            continue
        for class_name in _class_names(params.get('class_name')):
            parameters, cls = read(lookup(registry, class_name, kind))
            yield (family, params, kind, class_name, parameters,
                   _supplied(family, cls, variant_spec))


def check_config_keys(variant_spec):
    """Raises ValueError for an unknown class name or a config key that the
    class's constructor does not accept."""
    for family, params, kind, class_name, parameters, supplied in (
            _components(variant_spec)):
        if parameters is None:
            continue  # takes anything
        for key in params.get('config') or {}:
            if key in supplied and key in parameters:
                raise ValueError(
                    f"{family}.config.{key}: the runner sets '{key}' of "
                    f"the {kind} itself; remove it from the variant.")
            if key not in parameters:
                raise ValueError(_unknown_key_message(
                    family, class_name, key, set(parameters) - supplied))


def with_constructor_defaults(variant_spec):
    """The variant with each component's config completed by its
    constructor's literal defaults (a copy). A component whose class is
    searched over keeps its config as given."""
    variant_spec = copy.deepcopy(variant_spec)
    for family, params, _, class_name, parameters, supplied in (
            _components(variant_spec)):
        if parameters is None or params.get('class_name') != class_name:
            continue
        defaults = {name: default for name, default in parameters.items()
                    if name not in supplied
                    and default is not NO_LITERAL_DEFAULT}
        variant_spec[family]['config'] = {**defaults,
                                          **(params.get('config') or {})}
    return variant_spec


def constructor_defaults(variant_spec):
    """{'<family>.config.<keyword>': literal default} of the constructors
    the variant names (the first class of a searched one)."""
    defaults = {}
    for family, _, _, _, parameters, supplied in _components(variant_spec):
        for name, default in (parameters or {}).items():
            if name not in supplied and default is not NO_LITERAL_DEFAULT:
                defaults.setdefault(f'{family}.config.{name}', default)
    return defaults
