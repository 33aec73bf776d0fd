"""benchmarks/collect_results.py: copying a suite's finished trials into
benchmarks/results, one progress.csv row per epoch."""

import csv
import importlib.util
import json
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


collect_results = _load_module('collect_results', os.path.join(
    REPO_ROOT, 'benchmarks', 'collect_results.py'))


def test_collect_results_keeps_finished_trials_one_row_per_epoch(tmp_path):
    """A trial resumed from an older checkpoint repeats epochs in its
    progress.csv: the copy has each epoch once (its last row, the values
    as written); an unfinished trial is not copied."""
    source, destination = tmp_path / 'suite', tmp_path / 'results'
    rows = {'SAC-Hopper-v5-seed0_e1e9d_00001': [1, 2, 3, 2, 3, 4],
            'SAC-Hopper-v5-seed1_e1e9d_00002': [1, 2]}
    for name, epochs in rows.items():
        trial = source / name
        trial.mkdir(parents=True)
        (trial / 'params.json').write_text(json.dumps(
            {'benchmark': {'steps': 400}}))
        with open(trial / 'progress.csv', 'w', newline='') as f:
            writer = csv.writer(f)
            writer.writerow(['epoch', 'total_timestep',
                             'evaluation/return-mean'])
            for i, epoch in enumerate(epochs):
                writer.writerow([epoch, 100 * epoch, f'{epoch}.{i}'])
    copied = collect_results.collect(str(source), str(destination))
    assert copied == [{'trial': 'SAC-Hopper-v5-seed0',
                       'from': str(source / 'SAC-Hopper-v5-seed0_e1e9d_00001'),
                       'repeated_rows_dropped': 2}]
    assert os.listdir(destination) == ['SAC-Hopper-v5-seed0']
    with open(destination / 'SAC-Hopper-v5-seed0' / 'progress.csv') as f:
        kept = list(csv.DictReader(f))
    assert [(row['epoch'], row['evaluation/return-mean']) for row in kept] == [
        ('1', '1.0'), ('2', '2.3'), ('3', '3.4'), ('4', '4.5')]


def test_a_per_hour_trial_is_finished_once_its_budget_is_spent(tmp_path):
    """A per-hour run ends when its training time is spent, short of the
    suite's steps: it is copied then, and not before."""
    source, destination = tmp_path / 'suite', tmp_path / 'results'
    seconds = {'CrossQ-Hopper-v5-seed0_e1e9d_00001': [30.0, 61.5],
               'CrossQ-Hopper-v5-seed1_e1e9d_00002': [30.0, 59.0]}
    for name, spent in seconds.items():
        trial = source / name
        trial.mkdir(parents=True)
        (trial / 'params.json').write_text(json.dumps(
            {'benchmark': {'steps': 400, 'budget': {'training_minutes': 1}}}))
        with open(trial / 'progress.csv', 'w', newline='') as f:
            writer = csv.writer(f)
            writer.writerow(['epoch', 'total_timestep', 'training_seconds',
                             'evaluation/return-mean'])
            for epoch, value in enumerate(spent, 1):
                writer.writerow([epoch, 100 * epoch, value, 1.0])
    copied = collect_results.collect(str(source), str(destination))
    assert [entry['trial'] for entry in copied] == ['CrossQ-Hopper-v5-seed0']
