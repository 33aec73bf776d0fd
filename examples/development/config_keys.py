"""Checks every component's ``config`` keys against its constructor, so that
``--config algorithm_params.config.discont=0.9`` (or the same key in a sweep
file or a search space) fails before Ray starts, naming the accepted keys.

Each component family of the variant is built from its registry by
``main.py``; what the runner passes itself (environments, the pool, seeds,
...) is not for the variant to set.
"""

import difflib

from ray.tune.search.sample import Categorical

from softlearning.utils.registry import lookup
from softlearning.utils.signatures import (accepted_keywords,
                                           accepted_keywords_in_source)

# What ExperimentRunner._build passes to each family's constructor itself.
SUPPLIED_BY_RUNNER = {
    'algorithm_params': {
        'training_environment', 'evaluation_environment', 'policy',
        'initial_exploration_policy', 'Qs', 'pool', 'sampler',
        'iteration_callbacks', 'seed'},
    'policy_params': {'observation_shapes', 'action_shape', 'seed',
                      'encoder'},
    'exploration_policy_params': {'observation_shapes', 'action_shape',
                                  'seed'},
    'Q_params': {'observation_shapes', 'action_shape', 'name', 'encoder'},
    'replay_pool_params': {'observation_shapes', 'action_shape', 'seed'},
    'sampler_params': {'seed'},
}


def _registries():
    """family -> (kind, function from a class name to its accepted keyword
    arguments). TensorFlow components are read from their source, so that
    a bad key is reported without importing TensorFlow."""
    from softlearning import (algorithms, policies, replay_pools, samplers,
                              value_functions)

    def in_source(table, kind):
        return kind, lambda name: (
            lookup(table, name, kind), accepted_keywords_in_source(
                lookup(table, name, kind)))

    def imported(table, kind):
        return kind, lambda name: (
            lookup(table, name, kind),
            accepted_keywords(lookup(table, name, kind)))

    return {
        'algorithm_params': in_source(algorithms.ALGORITHMS, 'algorithm'),
        'policy_params': in_source(policies.POLICIES, 'policy'),
        'exploration_policy_params': in_source(policies.POLICIES, 'policy'),
        'Q_params': in_source(value_functions.VALUE_FUNCTIONS, 'Q-function'),
        'replay_pool_params': imported(replay_pools.REPLAY_POOLS,
                                       'replay pool'),
        'sampler_params': imported(samplers.SAMPLERS, 'sampler'),
    }


def _class_names(class_name):
    """The class names a (possibly searched) ``class_name`` can take."""
    if isinstance(class_name, dict) and 'grid_search' in class_name:
        return list(class_name['grid_search'])
    if isinstance(class_name, Categorical):
        return list(class_name.categories)
    return [class_name] if isinstance(class_name, str) else []


def _supplied(family, constructor, variant_spec):
    supplied = set(SUPPLIED_BY_RUNNER[family])
    # Samplers that rebuild components elsewhere get those params too.
    from_variant = getattr(constructor, 'params_from_variant', None)
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


def check_config_keys(variant_spec):
    """Raises ValueError for an unknown class name or a config key that the
    class's constructor does not accept."""
    for family, (kind, get_accepted) in _registries().items():
        params = variant_spec.get(family)
        if not isinstance(params, dict):
            continue
        config = params.get('config') or {}
        if not isinstance(config, dict):
            continue
        for class_name in _class_names(params.get('class_name')):
            constructor, accepted = get_accepted(class_name)
            if accepted is None:
                continue  # takes anything
            supplied = _supplied(family, constructor, variant_spec)
            for key in config:
                if key in supplied and key in accepted:
                    raise ValueError(
                        f"{family}.config.{key}: the runner sets '{key}' of "
                        f"the {kind} itself; remove it from the variant.")
                if key not in accepted:
                    raise ValueError(_unknown_key_message(
                        family, class_name, key, accepted - supplied))
