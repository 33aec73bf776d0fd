"""``softlearning benchmark``: suite files checked before anything runs,
the suite as one Tune experiment with one evaluation protocol, and a
resume after an interruption (through the real CLI)."""

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

from checkpoint_helpers import TINY_CONFIG
from conftest import (REPO_ROOT, TENSORFLOW_IMPORTED, assert_one_line_error,
                      run_cli)
from softlearning.experiments.benchmark import (SuiteError, load_suite,
                                                merge_cells, protocol_config)

TINY_SUITE = {
    'name': 'tiny', 'algorithms': ['SAC', 'TD3'],
    'environments': ['gym/Pendulum/v1'], 'seeds': [0], 'steps': 600,
    'warmup_steps': 100,
    'evaluation': {'episodes': 1, 'first_seed': 1000, 'interval': 100},
    'options': {'trial_cpus': 1}, 'config': {
        key: value for key, value in TINY_CONFIG.items()
        if key != 'algorithm_params.config.eval_n_episodes'},
    'label': 'tiny networks',
}


def write_suite(tmp_path, suite, name='suite.yaml'):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(suite))
    return str(path)


# The suite file ------------------------------------------------------------

def test_suite_file_defaults_and_protocol(tmp_path):
    suite = load_suite(write_suite(tmp_path, {
        'algorithms': ['SAC'], 'environments': ['gym/Hopper/v5'],
        'seeds': [3, 4], 'steps': 20000}, name='hop.yaml'))
    assert suite.name == 'hop'
    assert suite.environments == [('gym', 'Hopper', 'v5')]
    assert suite.evaluation == {'episodes': 10, 'first_seed': 1000,
                                'interval': 5000}
    assert protocol_config(suite) == {
        'algorithm_params.config.epoch_length': 5000,
        'algorithm_params.config.n_epochs': 4,
        'algorithm_params.config.eval_n_episodes': 10,
        'algorithm_params.config.eval_seed': 1000,
        'algorithm_params.config.eval_deterministic': True,
        'algorithm_params.config.n_initial_exploration_steps': 10000}


def test_a_suite_with_overrides_is_labelled_by_them(tmp_path):
    from softlearning.experiments.benchmark import benchmark_entry
    plain = {'algorithms': ['SAC'], 'environments': ['gym/Hopper/v5'],
             'seeds': [0], 'steps': 5000}
    suite = load_suite(write_suite(tmp_path, {**plain, 'config': {
        'algorithm_params.config.fused_steps': 1,
        'policy_params.config.hidden_layer_sizes': [64],
        'Q_params.config.hidden_layer_sizes': [64]}}))
    # (In the file's order: write_suite's YAML sorts the keys.)
    assert suite.label == ('Q_params.config.hidden_layer_sizes=[64], '
                           'fused_steps=1, policy_params.config.'
                           'hidden_layer_sizes=[64]')
    environment = ('gym', 'Hopper', 'v5')
    assert benchmark_entry(suite, 'SAC', environment)['label'] == suite.label
    named = load_suite(write_suite(tmp_path, {
        **plain, 'label': 'per-step updates',
        'config': {'algorithm_params.config.fused_steps': 1}}))
    assert named.label == 'per-step updates'
    # The defaults have no label, in the trials and in the suite's record
    # (suite.json, which a resume compares with the file).
    defaults = load_suite(write_suite(tmp_path, plain))
    assert defaults.label == ''
    assert 'label' not in benchmark_entry(defaults, 'SAC', environment)
    assert 'label' not in defaults.as_dict()
    assert named.as_dict()['label'] == 'per-step updates'


BAD_SUITES = [
    ({'algorithms': ['SAC', 'PPO']}, "algorithm 'PPO' is not one of SAC"),
    ({'environments': ['HalfCheetah-v5']},
     "environment 'HalfCheetah-v5' is not universe/domain/task"),
    ({'steps': 650}, 'steps (650) must be a multiple of evaluation.interval'),
    ({'seeds': [0, 0]}, "'seeds' lists a value twice"),
    ({'seeds': 'zero'}, "'seeds' must be a non-empty list of ints"),
    ({'evaluation': {'episodes': 10, 'every': 5}},
     "unknown evaluation entry 'every'"),
    ({'budget': 3}, "unknown entry 'budget'"),
    ({'config': {'algorithm_params.config.eval_n_episodes': 3}},
     "is set by the suite's evaluation.episodes"),
    ({'options': {'seed': 3}}, "options.seed is the suite's own"),
    ({'label': 3}, "'label' must be a string, got 3"),
]


@pytest.mark.parametrize('change, message', BAD_SUITES)
def test_bad_suite_files(tmp_path, change, message):
    with pytest.raises(SuiteError) as error:
        load_suite(write_suite(tmp_path, {**TINY_SUITE, **change}))
    assert message in str(error.value)


@pytest.mark.parametrize('change, message', [
    BAD_SUITES[0],
    # A bad option is found where the runs are built, still before Ray.
    ({'options': {'trial_cpus': 1, 'policy': 'flat'}},
     "policy='flat' is not one of gaussian, sampling, deterministic"),
    ({'options': {'trial_cpus': 1, 'policy': 'sampling'}},
     'cannot train --policy sampling; valid policies for SAC: gaussian'),
])
def test_bad_suite_is_one_line_before_tensorflow(tmp_path, change, message):
    path = write_suite(tmp_path, {**TINY_SUITE, **change})
    result = run_cli('benchmark', path, '--dry-run',
                     '--local-dir', tmp_path / 'results', timeout=120)
    assert_one_line_error(result, message)
    assert not (tmp_path / 'results').exists()


def test_missing_or_broken_suite_file(tmp_path):
    assert_one_line_error(run_cli('benchmark', tmp_path / 'none.yaml'),
                          'none.yaml: no such suite file')
    broken = tmp_path / 'broken.yaml'
    broken.write_text('algorithms: [SAC\n')
    assert_one_line_error(run_cli('benchmark', broken), 'not valid YAML')


def test_dry_run_names_trials_protocol_and_folder(tmp_path):
    path = write_suite(tmp_path, TINY_SUITE)
    result = run_cli('benchmark', path, '--dry-run',
                     '--local-dir', tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert ('Suite tiny: SAC, TD3 (tiny networks) on gym/Pendulum/v1, '
            'seeds 0: 2 trials of '
            '600 steps (100 warm-up), evaluated every 100 steps on 1 '
            'episodes (reset seeds 1000-1000).') in result.stdout
    assert f"Results: {tmp_path}/benchmarks/tiny (a new experiment)" in (
        result.stdout)
    assert TENSORFLOW_IMPORTED not in result.stderr


def test_merge_cells_keeps_what_is_shared():
    from ray.tune.search.sample import Function
    specs = {
        'SAC-x': {'a': {'b': 1, 'c': 2}, 'algo': {'lr': 1, 'alpha': 2},
                  'same': [1, 2]},
        'TD3-x': {'a': {'b': 1, 'c': 3}, 'algo': {'lr': 1, 'delay': 2},
                  'same': [1, 2]},
    }
    merged = merge_cells(specs)
    assert merged['same'] == [1, 2] and merged['a']['b'] == 1
    # Different values, and dicts of different keys (a TD3 setting must not
    # reach SAC's constructor), are the trial's cell's own.
    assert isinstance(merged['a']['c'], Function)
    assert isinstance(merged['algo'], Function)
    for run, spec in specs.items():
        trial = {'benchmark': {'run': run}}
        assert merged['a']['c'].func(trial) == spec['a']['c']
        assert merged['algo'].func(trial) == spec['algo']


def test_suite_error_is_an_experiment_error(tmp_path):
    from softlearning.experiments import ExperimentError
    with pytest.raises(ExperimentError):
        load_suite(write_suite(tmp_path, {**TINY_SUITE, 'steps': 0}))
    assert issubclass(SuiteError, ExperimentError)


# Running and resuming ------------------------------------------------------

def _progress(folder):
    """{run name: progress rows} of the suite's trials so far."""
    rows = {}
    for path in glob.glob(os.path.join(folder, '*', 'progress.csv')):
        try:
            rows[os.path.basename(os.path.dirname(path)).split('_')[0]] = (
                len(pd.read_csv(path)))
        except (pd.errors.EmptyDataError, OSError):
            continue
    return rows


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


def _benchmark(path, local_dir, log, *options):
    return subprocess.Popen(
        [sys.executable, '-m', 'softlearning.cli', 'benchmark', path,
         '--local-dir', str(local_dir), '--cpus', '2', '--verbose', '0',
         *options],
        cwd=REPO_ROOT, env={**os.environ, 'PYTHONPATH': REPO_ROOT},
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _interrupt_mid_suite(path, local_dir, folder, epochs, started=1):
    """Runs the suite one trial at a time and presses Ctrl+C once a trial
    has finished and the next one has checkpointed ``started`` epochs but
    not finished. A checkpoint on disk may not have reached Tune's driver
    yet (Tune then starts the trial over); the next epoch's checkpoint
    shows that it has (the driver starts an epoch after the last one's
    result): ``started=2`` when the test needs Tune to restore it."""
    log_path = local_dir / 'first.log'
    with open(log_path, 'w') as log:
        process = _benchmark(path, local_dir, log,
                             '--max-concurrent-trials', '1')
    try:
        deadline = time.time() + 600
        while time.time() < deadline and process.poll() is None:
            done = sorted(_checkpointed_epochs(folder).values())
            if (len(done) == 2 and done[-1] == epochs
                    and started <= done[0] < epochs):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("no interruption point: "
                                 f"{_checkpointed_epochs(folder)}"
                                 f"\n{log_path.read_text()[-3000:]}")
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return log_path.read_text()


@pytest.mark.timing
@pytest.mark.slow
def test_smoke_suite_resumes_after_an_interruption_and_reports(tmp_path):
    """The shipped smoke suite, interrupted (Ctrl+C) once a trial has
    finished and the next has started; the same command again keeps the
    finished trial and continues the other from its checkpoint. Then
    ``softlearning report``, whose IQM is checked against a direct
    computation from the trials' progress.csv files."""
    from scipy import stats

    from softlearning.analysis.reference_scores import REFERENCE_SCORES
    path = os.path.join(REPO_ROOT, 'examples', 'benchmarks', 'smoke.yaml')
    suite = load_suite(path)
    epochs = suite.steps // suite.evaluation['interval']
    folder = tmp_path / 'benchmarks' / 'smoke'
    output = _interrupt_mid_suite(path, tmp_path, folder, epochs)
    rows = _progress(folder)
    finished = [run for run, count in rows.items() if count == epochs]
    (stopped,) = [run for run, count in rows.items() if count < epochs]
    before = {run: (folder / glob.glob(str(folder / f'{run}_*'))[0]
                    / 'progress.csv').read_text() for run in finished}

    with open(tmp_path / 'second.log', 'w') as log:
        process = _benchmark(path, tmp_path, log)
    process.wait(timeout=600)
    second = (tmp_path / 'second.log').read_text()
    assert process.returncode == 0, (output + second)[-3000:]
    assert 'resuming it (finished trials are kept)' in second
    for run, text in before.items():  # not run again
        [trial] = glob.glob(str(folder / f'{run}_*'))
        assert open(os.path.join(trial, 'progress.csv')).read() == text
    [stopped_dir] = glob.glob(str(folder / f'{stopped}_*'))
    with open(os.path.join(stopped_dir, 'result.json')) as f:
        done = [json.loads(line)['epoch'] for line in f if line.strip()]
    # Continued from a checkpoint, never from epoch 1 again, to the end.
    assert done[-1] == epochs and done.count(1) == 1, done
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
        progress = pd.read_csv(os.path.join(os.path.dirname(params_path),
                                            'progress.csv'))
        assert list(progress['total_timestep']) == [
            suite.evaluation['interval'] * (i + 1) for i in range(epochs)]
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
    changed = write_suite(tmp_path, {**yaml.safe_load(open(path)),
                                     'seeds': [0, 1, 2]})
    assert_one_line_error(
        run_cli('benchmark', changed, '--local-dir', tmp_path, timeout=120),
        "holds the results of another version of suite 'smoke' (it differs "
        "in: seeds)")


SUITES_FOLDER = os.path.join(REPO_ROOT, 'examples', 'benchmarks')
SHIPPED_SUITES = sorted(
    os.path.relpath(path, SUITES_FOLDER) for path in glob.glob(
        os.path.join(SUITES_FOLDER, '**', '*.yaml'), recursive=True))


@pytest.mark.parametrize('name', SHIPPED_SUITES)
def test_every_shipped_suite_builds_its_experiment(name, tmp_path):
    """Each suite in examples/benchmarks loads and every cell's variant is
    built (what ``softlearning benchmark`` does before Ray starts); a suite
    that changes the presets (``config``: every ablation under ablations/,
    and e.g. tqc_50k's two critics) is labelled by what it changes."""
    from softlearning.experiments.benchmark import prepare_suite
    suite = load_suite(os.path.join(SUITES_FOLDER, name))
    assert bool(suite.label) == bool(suite.config)
    if name.startswith('ablations' + os.sep):
        assert suite.config
    experiment = prepare_suite(suite, local_dir=str(tmp_path), cpus=2)
    spec = experiment.variant_spec
    # One grid: every algorithm x environment cell, times every seed.
    assert spec['benchmark']['run']['grid_search'] == [
        f'{algorithm}-{domain}-{task}'
        for algorithm, (_, domain, task) in suite.cells()]
    assert spec['run_params']['seed']['grid_search'] == list(suite.seeds)
    assert spec['benchmark']['steps'] == suite.steps
    assert spec['benchmark'].get('label', '') == suite.label


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
    _interrupt_mid_suite(str(path), tmp_path, folder, ERRORED_EPOCHS,
                         started=2)
    rows = _checkpointed_epochs(folder)
    (stopped,) = [run for run, count in rows.items()
                  if count < ERRORED_EPOCHS]
    (finished,) = [run for run, count in rows.items()
                   if count == ERRORED_EPOCHS]
    [stopped_dir] = glob.glob(str(folder / f'{stopped}_*'))
    [finished_dir] = glob.glob(str(folder / f'{finished}_*'))
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
        process.wait(timeout=600)
        return process.returncode, log_path.read_text()

    code, output = run()
    assert code != 0, output[-3000:]
    # The run's closing report, a line per trial.
    (line,) = [line for line in output.splitlines()
               if line.startswith('  [') and stopped_dir in line]
    assert line.startswith('  [ERROR]'), output[-3000:]
    assert 'CheckpointError' in output

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
    from softlearning.analysis.results import tune_statuses
    from softlearning.experiments import tune_runner
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
    before = tune_runner._state_files(str(tmp_path))
    assert known == 3 and len(before) == 2
    tune_runner._check_all_restored(str(tmp_path), known, 3, before)  # fine
    write_state('2026-01-02_00-00-00', ['a'])  # the partial run's state
    with pytest.raises(ExperimentError, match='restored 1 of the 3 trials'):
        tune_runner._check_all_restored(str(tmp_path), known, 1, before)
    assert tune_runner._state_files(str(tmp_path)) == before
    assert sorted(tune_statuses(str(tmp_path))) == ['a', 'b', 'c']


def test_setting_aside_twice_keeps_both_and_skips_empty_folders(tmp_path):
    """An errored trial restarted before has its old folder in .restarted/
    already: a second one is kept beside it, and a folder without a trial
    (what Tune makes again for a restarted trial) is not moved."""
    from softlearning.experiments import tune_runner
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
