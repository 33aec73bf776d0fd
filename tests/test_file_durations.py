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


class Item:
    def __init__(self, nodeid, *markers):
        self.nodeid, self.markers = nodeid, markers

    def iter_markers(self):
        return [SimpleNamespace(name=name) for name in self.markers]


def test_learning_then_timing_files_then_the_rest_each_longest_first():
    items = [Item('tests/test_a.py::one'), Item('tests/test_b.py::one'),
             Item('tests/test_a.py::two'), Item('tests/test_new.py::one'),
             Item('tests/test_b.py::two'),
             Item('tests/test_wait.py::one', 'slow', 'timing'),
             Item('tests/test_learn.py::one', 'learning')]
    ordered = file_durations.start_order(
        items, {'tests/test_a.py': 5.0, 'tests/test_b.py': 50.0,
                'tests/test_wait.py': 1.0, 'tests/test_learn.py': 2.0})
    assert [item.nodeid for item in ordered] == [
        'tests/test_learn.py::one', 'tests/test_wait.py::one',
        'tests/test_b.py::one', 'tests/test_b.py::two',
        'tests/test_a.py::one', 'tests/test_a.py::two',
        'tests/test_new.py::one']


def test_the_committed_table_names_files_that_exist():
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    table = file_durations.load()
    assert table
    assert all(os.path.exists(os.path.join(root, name)) for name in table)
