"""``softlearning benchmark`` running (through the real CLI): a resume
after an interruption and the report of its trials, a restart of an
errored trial, and what a resume keeps of Tune's state files."""

import glob
import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
import yaml

from conftest import REPO_ROOT, assert_one_line_error, run_cli
from softlearning.experiments.benchmark.suites import load_suite


# Running and resuming ------------------------------------------------------

RUN_GUARD_S = 900  # a hang guard: each command takes about a minute


def _checkpointed_epochs(folder):
    """{run name: epochs checkpointed so far, completely}. A trial's worker
    writes its checkpoints straight to the results folder, while Tune copies
    the progress files there only now and then: only checkpoints show where
    a running suite is. A checkpoint folder appears before its files are
    all in; read_manifest tells a complete one."""
    from softlearning.utils.checkpoints import CheckpointError, read_manifest
    epochs = {}
    for path in glob.glob(os.path.join(folder, '*', 'checkpoint_*')):
        try:
            read_manifest(path)
        except (CheckpointError, OSError, ValueError):
            continue
        run = os.path.basename(os.path.dirname(path)).split('_')[0]
        index = int(os.path.basename(path).split('_')[1])
        epochs[run] = max(epochs.get(run, 0), index + 1)
    return epochs


def _interrupted_trials(folder):
    """(finished, unfinished) trial folders among the suite's trials that
    checkpointed, as Tune's driver recorded them when the interrupted run
    ended: what a resume acts on. Not from the files: a trial's process can
    complete a checkpoint (even its last one) while the run ends, after the
    driver's last word on it."""
    from softlearning.experiments.tune.state import tune_statuses
    statuses = tune_statuses(str(folder))
    started = {os.path.dirname(os.path.dirname(path)) for path in glob.glob(
        os.path.join(folder, '*', 'checkpoint_*', 'manifest.json'))}
    finished = sorted(trial for trial in started
                      if statuses.get(os.path.basename(trial)) == 'TERMINATED')
    return finished, sorted(started - set(finished))


def _benchmark(path, local_dir, log, *options):
    return subprocess.Popen(
        [sys.executable, '-m', 'softlearning.cli', 'benchmark', path,
         '--local-dir', str(local_dir), '--cpus', '2', '--verbose', '0',
         *options],
        cwd=REPO_ROOT, env={**os.environ, 'PYTHONPATH': REPO_ROOT},
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _interrupt_mid_suite(path, local_dir, folder, epochs):
    """Runs the suite one trial at a time and presses Ctrl+C once a trial
    has finished and the next one has checkpointed two epochs but not
    finished (the suite needs at least three). A checkpoint on disk may not
    have reached Tune's driver yet (Tune would then start the trial over):
    the second one shows that the first has (the driver starts an epoch
    only once it has the last one's checkpoint), so Tune restores the
    trial from its first checkpoint at least."""
    log_path = local_dir / 'first.log'
    with open(log_path, 'w') as log:
        process = _benchmark(path, local_dir, log,
                             '--max-concurrent-trials', '1')
    try:
        deadline = time.time() + 600
        while time.time() < deadline and process.poll() is None:
            done = sorted(_checkpointed_epochs(folder).values())
            if len(done) == 2 and done[-1] == epochs and 2 <= done[0] < epochs:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no interruption point: "
                                 f"{_checkpointed_epochs(folder)}"
                                 f"\n{log_path.read_text()[-3000:]}")
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=RUN_GUARD_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return log_path.read_text()


@pytest.mark.timing
@pytest.mark.slow
def test_smoke_suite_resumes_after_an_interruption_and_reports(tmp_path):
    """The shipped smoke suite, evaluated every 200 steps instead of 400
    (the same steps and warm-up in four epochs: the interruption needs
    three at least), interrupted (Ctrl+C) once a trial has finished and
    the next has checkpointed twice; the same command again keeps the
    finished trial and continues the other from its checkpoint. Then
    ``softlearning report``, whose IQM is checked against a direct
    computation from the trials' progress.csv files."""
    from scipy import stats

    from softlearning.analysis.reference_scores import REFERENCE_SCORES
    with open(os.path.join(REPO_ROOT, 'examples', 'benchmarks',
                           'smoke.yaml')) as f:
        shipped = yaml.safe_load(f)
    path = tmp_path / 'smoke.yaml'
    path.write_text(yaml.safe_dump({
        **shipped, 'evaluation': {**shipped['evaluation'], 'interval': 200}}))
    path = str(path)
    suite = load_suite(path)
    epochs = suite.steps // suite.evaluation['interval']
    assert epochs == 4
    folder = tmp_path / 'benchmarks' / 'smoke'
    output = _interrupt_mid_suite(path, tmp_path, folder, epochs)
    finished, (stopped_dir,) = _interrupted_trials(folder)
    assert len(finished) == 1, (finished, stopped_dir)
    before = {trial: open(os.path.join(trial, 'progress.csv')).read()
              for trial in finished}

    with open(tmp_path / 'second.log', 'w') as log:
        process = _benchmark(path, tmp_path, log)
    process.wait(timeout=RUN_GUARD_S)
    second = (tmp_path / 'second.log').read_text()
    assert process.returncode == 0, (output + second)[-3000:]
    assert 'resuming it (finished trials are kept)' in second
    for trial, text in before.items():  # not run again
        assert open(os.path.join(trial, 'progress.csv')).read() == text
    with open(os.path.join(stopped_dir, 'result.json')) as f:
        done = [json.loads(line)['epoch'] for line in f if line.strip()]
    # Continued from a checkpoint, never from epoch 1 again, to the end
    # (an epoch whose checkpoint Tune had not registered runs again).
    assert done[-1] == epochs and done.count(1) == 1, done
    assert done == sorted(done), done
    assert sorted(set(done)) == list(range(1, epochs + 1)), done

    trials = sorted(glob.glob(str(folder / '*' / 'params.json')))
    assert len(trials) == 4  # SAC, TD3 x seeds 0, 1
    finals = {}
    for params_path in trials:
        with open(params_path) as f:
            params = json.load(f)
        assert params['benchmark']['evaluation'] == {
            **suite.evaluation, 'deterministic': True,
            'reward': 'raw environment reward'}
        assert params['algorithm_params']['config']['eval_seed'] == 1000
        trial = os.path.dirname(params_path)
        progress = pd.read_csv(os.path.join(trial, 'progress.csv'))
        steps = list(progress['total_timestep'])
        every = [suite.evaluation['interval'] * (i + 1) for i in range(epochs)]
        if trial == stopped_dir:  # may hold an epoch that ran again
            assert steps == sorted(steps) and sorted(set(steps)) == every
        else:
            assert steps == every, (trial, steps)
        agent = f"softlearning {params['benchmark']['algorithm']}"
        finals.setdefault(agent, []).append(
            progress['evaluation/return-mean'].iloc[-1])

    report = run_cli('report', folder, '--output-dir', tmp_path / 'report',
                     timeout=300)
    assert report.returncode == 0, report.stderr
    for name in ('report.md', 'aggregate_metrics.png',
                 'sample_efficiency.png', 'performance_profiles.png'):
        assert (tmp_path / 'report' / name).is_file(), name
    aggregates = pd.read_csv(tmp_path / 'report' / 'aggregates.csv')
    scores = REFERENCE_SCORES['gym/Pendulum/v1']
    for agent, returns in finals.items():
        normalized = ((pd.Series(returns) - scores['random'])
                      / (scores['reference'] - scores['random']))
        row = aggregates[(aggregates.agent == agent)
                         & (aggregates.metric == 'IQM')]
        assert row['value'].item() == pytest.approx(
            stats.trim_mean(normalized, 0.25))
        assert row['low'].item() <= row['value'].item() <= row['high'].item()

    # Another suite under the same name is refused, not mixed in.
    changed = tmp_path / 'suite.yaml'
    changed.write_text(yaml.safe_dump({**yaml.safe_load(open(path)),
                                       'steps': 1200}))
    assert_one_line_error(
        run_cli('benchmark', changed, '--local-dir', tmp_path, timeout=120),
        "holds the results of another version of suite 'smoke' (it differs "
        "in: steps)")


# Two cells, not two seeds of one: a grid over cells is what gives Tune's
# trials config placeholders (tune.sample_from), which a restart must keep.
ERRORED_SUITE = """\
name: errored
algorithms: [TD3, SAC]
environments: [gym/Pendulum/v1]
seeds: [0]
steps: 1200
warmup_steps: 400
evaluation: {episodes: 1, first_seed: 1000, interval: 400}
options: {trial_cpus: 1}
"""
ERRORED_EPOCHS = 3


@pytest.mark.timing
@pytest.mark.slow
def test_restart_errored_starts_over_a_trial_whose_checkpoint_fails(
        tmp_path):
    """A trial whose checkpoint cannot be restored (here: its files
    overwritten; in practice, written by an older version) errors on every
    resume; ``--restart-errored`` starts it over, and keeps the finished
    trial."""
    path = tmp_path / 'errored.yaml'
    path.write_text(ERRORED_SUITE)
    folder = tmp_path / 'benchmarks' / 'errored'
    _interrupt_mid_suite(str(path), tmp_path, folder, ERRORED_EPOCHS)
    (finished_dir,), (stopped_dir,) = _interrupted_trials(folder)
    indexes = glob.glob(os.path.join(stopped_dir, 'checkpoint_*', '**',
                                     '*.index'), recursive=True)
    assert indexes
    for index in indexes:
        with open(index, 'wb') as f:
            f.write(b'not a checkpoint')
    before = open(os.path.join(finished_dir, 'progress.csv')).read()

    def run(*options):
        log_path = tmp_path / f'run{len(options)}.log'
        with open(log_path, 'w') as log:
            process = _benchmark(str(path), tmp_path, log, *options)
        process.wait(timeout=RUN_GUARD_S)
        return process.returncode, log_path.read_text()

    code, output = run()
    assert code != 0, output[-3000:]
    # The run's closing report (the command's own lines, not the trial's
    # traceback that Ray forwards): a line per trial, and an errored
    # trial's error in one line under it.
    lines = output.splitlines()
    (index,) = [i for i, line in enumerate(lines)
                if line.startswith('  [') and stopped_dir in line]
    assert lines[index].startswith('  [ERROR]'), output[-3000:]
    assert lines[index + 1].startswith('    CheckpointError: '), (
        output[-3000:])

    code, output = run('--restart-errored')
    assert code == 0, output[-3000:]
    assert 'errored ones start over' in output
    # Tune gives the restarted trial a new folder; the old one is set aside
    # (hidden), so the analysis sees one trial per seed, both done.
    assert not os.path.exists(stopped_dir)
    assert os.path.isdir(os.path.join(folder, '.restarted',
                                      os.path.basename(stopped_dir)))
    from softlearning.analysis import load_trials
    trials = load_trials([str(folder)])
    assert sorted(t.params['benchmark.algorithm'] for t in trials) == [
        'SAC', 'TD3']
    assert {t.status for t in trials} == {'done'}
    (restarted,) = [t.path for t in trials if t.path != finished_dir]
    with open(os.path.join(restarted, 'result.json')) as f:
        epochs = [json.loads(line)['epoch'] for line in f if line.strip()]
    assert epochs == list(range(1, ERRORED_EPOCHS + 1))  # from scratch
    assert open(os.path.join(finished_dir, 'progress.csv')).read() == before


def test_a_partial_restore_ends_in_an_error_and_keeps_the_full_state(
        tmp_path):
    """When Tune restores fewer trials than the experiment has (it logs the
    failure and goes on), the state files that run wrote are removed, so the
    next resume reads the complete state of the run before."""
    from softlearning.experiments.tune.state import state_files, tune_statuses
    from softlearning.experiments.tune import runner as tune_runner
    from softlearning.experiments.errors import ExperimentError

    def write_state(stamp, names):
        trial_data = [[json.dumps({'relative_logdir': name,
                                   'status': 'PENDING'}), '{}']
                      for name in names]
        (tmp_path / f'experiment_state-{stamp}.json').write_text(
            json.dumps({'trial_data': trial_data}))
        (tmp_path / f'basic-variant-state-{stamp}.json').write_text('{}')

    write_state('2026-01-01_00-00-00', ['a', 'b', 'c'])
    known = tune_runner._trial_count(str(tmp_path))
    before = state_files(str(tmp_path))
    assert known == 3 and len(before) == 2
    tune_runner._check_all_restored(str(tmp_path), known, 3, before)  # fine
    write_state('2026-01-02_00-00-00', ['a'])  # the partial run's state
    with pytest.raises(ExperimentError, match='restored 1 of the 3 trials'):
        tune_runner._check_all_restored(str(tmp_path), known, 1, before)
    assert state_files(str(tmp_path)) == before
    assert sorted(tune_statuses(str(tmp_path))) == ['a', 'b', 'c']


def test_setting_aside_twice_keeps_both_and_skips_empty_folders(tmp_path):
    """An errored trial restarted before has its old folder in .restarted/
    already: a second one is kept beside it, and a folder without a trial
    (what Tune makes again for a restarted trial) is not moved."""
    from softlearning.experiments.tune import runner as tune_runner
    trial_data = [[json.dumps({'relative_logdir': name, 'status': 'ERROR'}),
                   '{}'] for name in ('again', 'empty')]
    (tmp_path / 'experiment_state-2026-01-01_00-00-00.json').write_text(
        json.dumps({'trial_data': trial_data}))
    for folder in ('again', '.restarted/again', '.restarted/empty'):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / 'params.json').write_text(json.dumps(folder))
    (tmp_path / 'empty').mkdir()
    moved = tune_runner._set_aside_errored_trials(str(tmp_path))
    assert sorted(moved) == [str(tmp_path / 'again'), str(tmp_path / 'empty')]
    aside = tmp_path / '.restarted'
    assert json.loads((aside / 'again' / 'params.json').read_text()) == (
        '.restarted/again')
    assert json.loads((aside / 'again.1' / 'params.json').read_text()) == (
        'again')
    assert sorted(os.listdir(aside)) == ['again', 'again.1', 'empty']
    for folder in moved:
        tune_runner._remove_if_no_trial(folder)
    assert not (tmp_path / 'again').exists() and not (tmp_path / 'empty').exists()
