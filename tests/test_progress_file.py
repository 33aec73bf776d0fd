"""progress.csv stays readable when a resumed trial reports other keys than
the run that started it (a trial paused under one softlearning version and
resumed under the next)."""

import csv
import os

import pytest

from softlearning.experiments.tune.progress_file import (
    ProgressFile, columns_for, rewrite_with_columns)
from softlearning.utils import local_ray


def _rows(path):
    with open(path, newline='') as f:
        return list(csv.reader(f))


def test_columns_for_adds_new_keys_at_the_end_only_when_needed():
    assert columns_for(['a', 'b'], ['b', 'a']) is None
    assert columns_for(['a', 'b'], ['a']) is None
    assert columns_for(['a', 'b'], ['a', 'c', 'b']) == ['a', 'b', 'c']


def test_rewrite_keeps_every_value_under_its_column(tmp_path):
    path = tmp_path / 'progress.csv'
    path.write_text('a,b\n1,2\n3,4\n')
    rewrite_with_columns(str(path), ['a', 'b', 'c'])
    assert _rows(path) == [['a', 'b', 'c'], ['1', '2', ''], ['3', '4', '']]
    assert not os.path.exists(f'{path}.rewrite')


@pytest.fixture(scope='module')
def ray_session():
    import ray
    local_ray.start(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _trainable(version):
    """The same trainable (Tune checks its name on restore) in two versions:
    the first reports two keys and stops with an error, the next resumes
    reporting a key more, in the middle. (A nested function: Ray's workers
    get it by value, not by importing this test module.)"""
    def trainable(config):
        from ray import tune
        if version == 1:
            for i in range(2):
                tune.report({'a': i, 'b': 10 + i})
            raise RuntimeError('stopped here, to be resumed')
        for i in range(2, 4):
            tune.report({'a': i, 'added': 100 + i, 'b': 10 + i})
    return trainable


def test_a_trial_resumed_with_a_new_key_leaves_a_file_that_parses(
        ray_session, tmp_path):
    from ray import tune
    import pandas as pd

    storage = str(tmp_path)
    tuner = tune.Tuner(
        _trainable(1),
        run_config=tune.RunConfig(
            name='experiment', storage_path=storage,
            callbacks=[ProgressFile()], verbose=0))
    tuner.fit()
    folder = os.path.join(storage, 'experiment')
    restored = tune.Tuner.restore(
        folder, _trainable(2), resume_errored=True)
    restored.fit()

    [trial] = [name for name in os.listdir(folder)
               if os.path.isdir(os.path.join(folder, name))]
    path = os.path.join(folder, trial, 'progress.csv')
    rows = _rows(path)
    header = rows[0]
    assert all(len(row) == len(header) for row in rows), rows
    assert header.index('added') > header.index('b')
    frame = pd.read_csv(path)
    assert list(frame['a']) == [0, 1, 2, 3]
    assert list(frame['b']) == [10, 11, 12, 13]
    assert list(frame['added'].fillna(-1)) == [-1, -1, 102, 103]
