"""The suite's own scheduling: the longest test files start first."""

from types import SimpleNamespace

import file_durations


def test_per_file_seconds_from_pytest_durations_lines():
    log = ['12.50s call     tests/test_a.py::test_x[gym-Pendulum]',
           '2.00s setup    tests/test_a.py::test_y',
           '0.50s teardown tests/test_b.py::test_z',
           '=== 3 passed in 15.00s ===']
    assert file_durations.from_log(log) == {'tests/test_a.py': 14.5,
                                            'tests/test_b.py': 0.5}


def test_longest_files_first_each_file_in_its_order():
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in (
        'tests/test_a.py::one', 'tests/test_b.py::one', 'tests/test_a.py::two',
        'tests/test_new.py::one', 'tests/test_b.py::two')]
    ordered = file_durations.longest_first(
        items, {'tests/test_a.py': 5.0, 'tests/test_b.py': 50.0})
    assert [item.nodeid for item in ordered] == [
        'tests/test_b.py::one', 'tests/test_b.py::two',
        'tests/test_a.py::one', 'tests/test_a.py::two',
        'tests/test_new.py::one']


def test_the_committed_table_names_files_that_exist():
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    table = file_durations.load()
    assert table
    assert all(os.path.exists(os.path.join(root, name)) for name in table)
