"""benchmarks/observation_ranges.py: what a trial observed, read from the
pool chunks its checkpoints save."""

import csv
import importlib.util
import os
import pickle

import numpy as np
import pytest

from softlearning.replay_pools import SimpleReplayPool

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    'observation_ranges',
    os.path.join(REPO_ROOT, 'benchmarks', 'observation_ranges.py'))
observation_ranges = importlib.util.module_from_spec(spec)
spec.loader.exec_module(observation_ranges)


def _steps(start, count, spike_at=None):
    index = np.arange(start, start + count, dtype=np.float32)
    touch = np.ones((count, 2), np.float32)
    if spike_at is not None:
        touch[spike_at - start, 1] = -5000.0
    return {'observations': {'angle': np.repeat(index[:, None], 3, 1) / 100,
                             'touch': touch},
            'next_observations': {'angle': np.zeros((count, 3), np.float32),
                                  'touch': np.zeros((count, 2), np.float32)},
            'actions': np.where(index[:, None] % 4 == 0, 1.0, 0.5).astype(
                np.float32),
            'rewards': np.full((count, 1), 0.25, np.float32),
            'terminals': np.zeros((count, 1), np.float32)}


def test_ranges_per_chunk_and_key(tmp_path):
    pool = SimpleReplayPool({'angle': (3,), 'touch': (2,)}, (1,),
                            max_size=5000, seed=0)
    pool.add_samples(_steps(0, 2000))
    first = pool.experience_since(0)
    pool.add_samples(_steps(2000, 2000, spike_at=2500))
    second = pool.experience_since(2000)
    folder = tmp_path / 'replay_pool'
    folder.mkdir()
    for piece in (first, second):
        name = f"{piece['start_total']:012d}-{piece['end_total']:012d}.pkl"
        (folder / name).write_bytes(pickle.dumps(piece))
    output = tmp_path / 'ranges.csv'
    observation_ranges.main([str(folder), str(output)])
    rows = list(csv.DictReader(open(output)))
    assert [(row['first_step'], row['key']) for row in rows] == [
        ('1', 'angle'), ('1', 'touch'), ('2001', 'angle'), ('2001', 'touch')]
    by = {(row['first_step'], row['key']): row for row in rows}
    assert float(by['1', 'angle']['max_abs']) == pytest.approx(19.99)
    assert float(by['2001', 'touch']['max_abs']) == 5000
    # One step in 2,000 spikes: beyond what all but one in a thousand stay
    # below, which is the others' 1.
    assert float(by['2001', 'touch']['p99.9_step_max_abs']) == 1
    assert float(by['2001', 'angle']['p99.9_step_max_abs']) == (
        pytest.approx(39.97, abs=0.01))
    assert float(by['1', 'angle']['reward_mean']) == 0.25
    assert float(by['1', 'angle']['actions_at_bounds']) == 0.25


def test_a_folder_without_chunks_is_one_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        observation_ranges.main([str(tmp_path), str(tmp_path / 'out.csv')])
    assert exit_.value.code == 2
    assert 'no replay pool chunks' in capsys.readouterr().err
