"""The settings of categorical critics (``Q_params.config.categorical``,
value_functions/feedforward_q_function.py), checked without TensorFlow:
by the critics when built, and by the variant before a run starts
(``check_categorical_critics``)."""

CATEGORICAL_KEYS = ('n_atoms', 'v_min', 'v_max')

# The algorithm classes (softlearning.algorithms.CLASSES) whose
# updates train categorical critics: those with ``categorical_critics =
# True`` (algorithms/fused_updates.py; a test checks the two agree).
CATEGORICAL_ALGORITHMS = ('softlearning.algorithms.sac:SAC',
                          'softlearning.algorithms.td3:TD3',
                          'softlearning.algorithms.td3:DDPG',
                          'softlearning.algorithms.fast_td3:FastTD3',
                          'softlearning.algorithms.fast_sac:FastSAC')


def categorical_settings(categorical):
    """``categorical`` checked: {'n_atoms': int >= 2, 'v_min': float,
    'v_max': float > v_min}, or one ValueError naming what is wrong."""
    if (not isinstance(categorical, dict)
            or set(categorical) != set(CATEGORICAL_KEYS)):
        raise ValueError(
            f"A categorical critic takes {{'n_atoms': N, 'v_min': low, "
            f"'v_max': high}}; got {categorical!r}")
    settings = {'n_atoms': int(categorical['n_atoms']),
                'v_min': float(categorical['v_min']),
                'v_max': float(categorical['v_max'])}
    if settings['n_atoms'] < 2 or settings['v_max'] <= settings['v_min']:
        raise ValueError(
            f"A categorical critic needs n_atoms >= 2 and v_max > v_min; "
            f"got {categorical!r}")
    return settings


def check_categorical_critics(variant_spec, algorithms):
    """One ValueError, before anything is built, if the variant's critics
    are categorical with bad settings or for an algorithm that does not
    train them. ``algorithms``: the registry, {name: 'module:Class'}."""
    categorical = variant_spec['Q_params'].get('config', {}).get(
        'categorical')
    if (not isinstance(categorical, dict) or len(categorical) == 1
            or not all(isinstance(value, (int, float))
                       for value in categorical.values())):
        return  # none, or a search space (of it or in it): checked when built
    categorical_settings(categorical)
    name = variant_spec['algorithm_params']['class_name']
    if algorithms.get(name) not in CATEGORICAL_ALGORITHMS:
        valid = sorted(key for key, path in algorithms.items()
                       if path in CATEGORICAL_ALGORITHMS)
        raise ValueError(
            f"{name} does not train categorical critics "
            f"(Q_params.config.categorical); valid algorithms: "
            f"{', '.join(valid)}")
