"""Per-hour benchmarks: a run trains for a budget of wall-clock seconds
(collecting and training; evaluations not counted), set by a suite's
``budget``, and the report scores such runs at the end of their budget and
draws their return against minutes of training."""

import json
import os

import numpy as np
import pandas as pd
import pytest
import yaml

from algorithm_helpers import make_algorithm
from softlearning.analysis.reference_scores import REFERENCE_SCORES


def test_a_run_ends_when_its_training_budget_is_spent():
    """Mid-epoch: the last epoch is cut short and still evaluated; the
    seconds spent are reported each epoch and are checkpoint state."""
    algorithm, *_ = make_algorithm('SAC', n_epochs=10 ** 6,
                                   training_seconds=1.0)
    epochs = list(algorithm.train())
    assert algorithm.budget_spent
    assert 1 <= len(epochs) < 10 ** 6
    seconds = [epoch['training_seconds'] for epoch in epochs]
    assert seconds == sorted(seconds) and seconds[-1] >= 1.0
    assert all('return-mean' in epoch['evaluation'] for epoch in epochs)
    # The state carries the budget's spending: a restored run is done too.
    again, *_ = make_algorithm('SAC', n_epochs=10 ** 6, training_seconds=1.0)
    again.set_state(algorithm.get_state())
    assert again.budget_spent and list(again.train()) == []


def test_the_budget_must_be_positive():
    with pytest.raises(ValueError, match='training_seconds must be positive'):
        make_algorithm('SAC', training_seconds=0)


def test_a_suites_budget_is_each_runs_training_seconds(tmp_path):
    from softlearning.experiments.benchmark.suites import (
        benchmark_entry, load_suite, protocol_config)
    path = tmp_path / 'per_hour.yaml'
    path.write_text(yaml.safe_dump({
        'algorithms': ['SAC'], 'environments': ['gym/Hopper/v5'],
        'seeds': [0], 'steps': 1000000,
        'budget': {'training_minutes': 30}}))
    suite = load_suite(str(path))
    assert protocol_config(suite)[
        'algorithm_params.config.training_seconds'] == 1800
    entry = benchmark_entry(suite, 'SAC', ('gym', 'Hopper', 'v5'))
    assert entry['budget'] == {'training_minutes': 30}
    assert suite.as_dict()['budget'] == {'training_minutes': 30}


def test_the_progress_line_counts_down_the_budget_when_it_ends_first():
    from softlearning.experiments.trial.console import format_progress
    epoch = {'epoch': 3, 'total_timestep': 15000, 'timesteps_per_second': 100,
             'training_seconds': 1500.0, 'evaluation': {}, 'training': {}}
    # 985,000 steps at 100/s would take 2:44:10; the budget ends in 5 min.
    assert format_progress(epoch, 200, 1000000, 1800).endswith(
        ' | 0:05:00 of training budget left')
    assert format_progress(epoch, 200, 1000000).endswith(' | 2:44:10 left')
    # Steps run out first: the steps' estimate.
    assert format_progress(epoch, 4, 20000, 1800).endswith(' | 0:00:50 left')


def test_the_progress_line_gives_no_estimate_during_the_warm_up():
    from softlearning.experiments.trial.console import format_progress
    epoch = {'epoch': 1, 'evaluation': {}, 'training': {}}
    # A warm-up epoch's pace (no updates) would promise 0:07:02 for all
    # 1,000,000 steps: no estimate until training has begun.
    warm_up = dict(epoch, total_timestep=5000, timesteps_per_second=2356.1,
                   training_seconds=2.1, num_train_steps=0)
    assert format_progress(warm_up, 200, 1000000, 1800).endswith(
        ' steps/s | warm-up')
    assert format_progress(dict(warm_up, num_train_steps=1), 200,
                           1000000).endswith(' | 0:07:02 left')


# The report ----------------------------------------------------------------

BUDGET_MINUTES = 2


def _write_run(folder, library, seed, returns, seconds, done=True):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'params.json'), 'w') as f:
        json.dump({'benchmark': {
            'library': library, 'algorithm': 'CrossQ',
            'environment': 'gym/Hopper/v5', 'steps': 10 ** 6,
            'suite': 'per_hour',
            'budget': {'training_minutes': BUDGET_MINUTES},
            'evaluation': {'episodes': 10, 'first_seed': 1000,
                           'interval': 1000, 'deterministic': True}},
            'run_params': {'seed': seed}}, f)
    n = len(returns)
    pd.DataFrame({'total_timestep': 1000 * np.arange(1, n + 1),
                  'evaluation/return-mean': returns,
                  'training_seconds': seconds,
                  'done': [False] * (n - 1) + [done]}).to_csv(
        os.path.join(folder, 'progress.csv'), index=False)


def test_report_scores_budget_runs_at_their_end_and_against_time(tmp_path):
    from softlearning.analysis.benchmark_report import write_report
    from softlearning.analysis.benchmark_runs import collect_runs
    from softlearning.analysis.benchmark_statistics import scores_by_time
    from softlearning.analysis.results import load_trials
    runs_dir = tmp_path / 'runs'
    # A fast library evaluates often within the budget, a slow one seldom.
    for seed in (0, 1, 2):
        _write_run(runs_dir / f'fast_{seed}', 'softlearning', seed,
                   [100.0, 500.0, 900.0, 1000.0 + seed],
                   [30.0, 60.0, 90.0, 120.5])
        _write_run(runs_dir / f'slow_{seed}', 'sbx', seed,
                   [200.0, 700.0 + seed], [70.0, 121.0])
    # Cut off before its budget was spent: not scored.
    _write_run(runs_dir / 'cut', 'sbx', 3, [200.0], [70.0], done=False)
    trials = load_trials([str(runs_dir)])
    runs, notices = collect_runs(trials)
    assert len(runs) == 6 and len(notices) == 1
    assert 'its budget of 2 minutes not spent' in notices[0]
    assert sorted(run.final_return for run in runs
                  if run.agent == 'sbx CrossQ') == [700.0, 701.0, 702.0]

    # At 1.2 minutes (72 s) the fast runs' last evaluation is the one at
    # 60 s; the slow runs' the one at 70 s.
    entry = REFERENCE_SCORES['gym/Hopper/v5']
    span = entry['reference'] - entry['random']
    by_time = scores_by_time(runs, 'softlearning CrossQ', BUDGET_MINUTES)
    np.testing.assert_allclose(by_time[1.2][0],
                               (500.0 - entry['random']) / span)
    assert 0.4 not in by_time  # no evaluation within 24 s
    slow = scores_by_time(runs, 'sbx CrossQ', BUDGET_MINUTES)
    np.testing.assert_allclose(slow[1.2][0], (200.0 - entry['random']) / span)
    assert min(slow) == pytest.approx(1.2)

    report = write_report(trials, str(tmp_path / 'out'), reps=100)
    assert 'training budget of 2 minutes' in report.markdown
    assert '## Return against training time' in report.markdown
    assert os.path.isfile(tmp_path / 'out' / 'return_per_training_time.png')


# The peers (benchmarks/peers.py) -------------------------------------------

def test_a_peer_run_is_finished_once_its_budget_is_spent(tmp_path):
    """A per-hour suite's peer runs carry the budget to the worker, say it
    in params.json, and count as finished once a row's training_seconds
    reach it (not only at the suite's steps)."""
    from peer_helpers import SUITE, plan_one, write_suite
    import peer_trial_folder as folders
    import peers
    suite = write_suite(tmp_path, SUITE + 'budget: {training_minutes: 1}\n')
    run = plan_one(suite, str(tmp_path / 'out'))
    assert run['training_seconds'] == 60
    params = peers.trial_params(suite, {}, run)
    assert params['benchmark']['budget'] == {'training_minutes': 1}
    folder = str(tmp_path / 'run')
    folders.write_params(folder, params)
    writer = folders.ProgressWriter(folder)
    for epoch, spent in ((1, 30.0), (2, 60.5)):
        assert folders.run_status(folder, 10 ** 6, 60) != 'finished'
        writer.write(folders.evaluation_row(
            epoch, 1000 * epoch, [-1.0, 1.0], [200, 200], 40.0 * epoch,
            epoch_seconds=40.0, evaluation_seconds=1.0, epoch_steps=1000,
            training_seconds=spent))
    writer.close()
    assert folders.run_status(folder, 10 ** 6, 60) == 'finished'
    assert folders.run_status(folder, 10 ** 6) == 'unfinished'


def test_a_run_written_before_training_seconds_continues_under_its_header(
        tmp_path):
    import csv
    import peer_trial_folder as folders
    folder = tmp_path / 'old'
    folder.mkdir()
    old_columns = folders.REQUIRED_COLUMNS
    row = folders.evaluation_row(1, 1000, [1.0], [10], 5.0, 5.0, 1.0, 1000)
    with open(folder / folders.PROGRESS_FILE, 'w', newline='') as f:
        writer = csv.DictWriter(f, old_columns, extrasaction='ignore')
        writer.writeheader()
        writer.writerow(row)
    appended = folders.ProgressWriter(str(folder), append=True)
    appended.write({**row, 'epoch': 2, 'total_timestep': 2000,
                    'training_seconds': 9.0})
    appended.close()
    rows = list(csv.reader(open(folder / folders.PROGRESS_FILE)))
    assert rows[0] == list(old_columns)
    assert [len(r) for r in rows] == [len(old_columns)] * 3
    assert folders.last_timestep(str(folder)) == 2000
