"""A variant's config keys are checked against the constructors' keyword
arguments before TensorFlow is imported, by reading the TensorFlow
components' source: that reading must agree with Python's own signatures."""

import sys

import pytest

from conftest import run_python
from softlearning import algorithms, policies, value_functions
from softlearning.utils.registry import load
from softlearning.utils.signatures import (
    accepted_keywords, accepted_keywords_in_source)

LOCATIONS = sorted({
    location for registry in (algorithms.CLASSES, policies.POLICIES,
                              value_functions.VALUE_FUNCTIONS)
    for location in registry.values()})


# Keywords a constructor passes itself to the one it forwards to, which
# Python's signatures still list (passing them is a TypeError).
FIXED_BY_THE_CALLER = {
    # TD3 updates its targets with its policy, every policy_delay updates.
    'softlearning.algorithms.td3:TD3': {'target_update_interval'},
    'softlearning.algorithms.fast_td3:FastTD3': {'target_update_interval'},
    'softlearning.algorithms.td3:DDPG': {'target_noise', 'policy_delay',
                                         'target_update_interval'},
    'softlearning.value_functions.feedforward_q_function:'
    'double_feedforward_Q_function': {'name'},
    'softlearning.value_functions.feedforward_q_function:'
    'feedforward_Q_functions': {'name'},
    'softlearning.value_functions.recurrent_q_function:'
    'double_recurrent_Q_function': {'name'},
}


@pytest.mark.parametrize('location', LOCATIONS)
def test_source_reading_agrees_with_the_imported_signature(location):
    from_source = accepted_keywords_in_source(location)
    assert from_source, location
    assert from_source == accepted_keywords(load(location)) - (
        FIXED_BY_THE_CALLER.get(location, set()))


def test_forwarding_without_a_declared_target_accepts_anything(tmp_path):
    package = tmp_path / 'pkg_forwarding'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'things.py').write_text(
        'import functools\n\n'
        'class Base:\n    def __init__(self, a, b=1):\n        pass\n\n'
        'class Child(Base):\n    def __init__(self, *args, c=2, **kwargs):\n'
        '        super().__init__(*args, **kwargs)\n\n'
        'class Bare(Child):\n    pass\n\n'
        'def builder(**kwargs):\n    return Child(**kwargs)\n\n'
        'builder.__wrapped__ = Child\n\n'
        '@functools.wraps(Base)\ndef decorated(**kwargs):\n'
        '    return Base(**kwargs)\n\n'
        'def anything(**kwargs):\n    return kwargs\n')
    sys.path.insert(0, str(tmp_path))
    try:
        for name, expected in [('Child', {'a', 'b', 'c'}),
                               ('Bare', {'a', 'b', 'c'}),
                               ('builder', {'a', 'b', 'c'}),
                               ('decorated', {'a', 'b'}),
                               ('anything', None)]:
            location = f'pkg_forwarding.things:{name}'
            assert accepted_keywords_in_source(location) == expected, name
            assert accepted_keywords(load(location)) == expected, name
    finally:
        sys.path.remove(str(tmp_path))


def test_checking_a_variant_does_not_import_tensorflow():
    script = (
        "import sys\n"
        "from softlearning.experiments.config.config_keys import check_config_keys\n"
        "spec = {'algorithm_params': {'class_name': 'SAC', 'config': "
        "{'discont': 0.9}}}\n"
        "try:\n    check_config_keys(spec)\n"
        "except ValueError as error:\n    print(error)\n"
        "print('tensorflow' in sys.modules)\n")
    result = run_python(script, timeout=120)
    assert result.returncode == 0, result.stderr
    message, imported = result.stdout.splitlines()
    assert "Unknown key 'discont'" in message and "'discount'" in message
    assert imported == 'False'
