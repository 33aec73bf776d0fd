"""``softlearning benchmark``'s suite files, checked before anything runs
(one-line errors before TensorFlow), the suite as one Tune experiment with
one evaluation protocol, and every shipped suite built."""

import dataclasses
import glob
import json
import os

import pytest
import yaml

from checkpoint_helpers import TINY_CONFIG
from conftest import (
    REPO_ROOT, TENSORFLOW_IMPORTED, assert_one_line_error, run_cli)
from softlearning.experiments.benchmark.suite_experiment import merge_cells
from softlearning.experiments.benchmark.suites import (
    SuiteError, load_suite, protocol_config)
from softlearning.experiments.benchmark.suite_part import part_of_suite

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
    from softlearning.experiments.benchmark.suites import benchmark_entry
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
    ({'budget_minutes': 3}, "unknown entry 'budget_minutes'"),
    ({'budget': 3}, "'budget' must be a mapping of training_minutes, got 3"),
    ({'budget': {'training_minutes': 0}},
     "'budget.training_minutes' must be a positive number, got 0"),
    ({'config': {'algorithm_params.config.training_seconds': 60}},
     "is set by the suite's budget"),
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


def test_part_of_a_suite_keeps_its_order_and_protocol(tmp_path):
    suite = load_suite(write_suite(tmp_path, {
        **TINY_SUITE, 'environments': ['gym/Pendulum/v1', 'gym/Hopper/v5'],
        'seeds': [0, 1, 2]}))
    assert part_of_suite(suite) == suite
    part = part_of_suite(suite, ['TD3'], ['gym/Hopper/v5'], ['2,0'])
    assert (part.algorithms, part.environments, part.seeds) == (
        ['TD3'], [('gym', 'Hopper', 'v5')], [0, 2])
    assert (part.name, part.steps, part.evaluation, part.config) == (
        suite.name, suite.steps, suite.evaluation, suite.config)
    with pytest.raises(SuiteError, match=r'Algorithm SQL not in the suite '
                       r'\(it has SAC, TD3\)'):
        part_of_suite(suite, algorithms=['SQL'])
    with pytest.raises(SuiteError, match='--seeds must be integers'):
        part_of_suite(suite, seeds=['one'])


def test_a_results_folder_refuses_other_runs_and_another_version(tmp_path):
    """A folder holds one grid of runs (Tune resumes an experiment only
    with the grid it started with): another part of the suite is sent to a
    folder of its own, a changed protocol to a new name."""
    from softlearning.experiments.benchmark.suite_experiment import (
        _check_same_suite)
    suite = load_suite(write_suite(tmp_path, {**TINY_SUITE,
                                              'seeds': [0, 1, 2]}))
    held = part_of_suite(suite, seeds=['0'])
    (tmp_path / 'suite.json').write_text(json.dumps(held.as_dict()))
    _check_same_suite(str(tmp_path), held)  # the same runs: resumed
    with pytest.raises(SuiteError) as error:
        _check_same_suite(str(tmp_path), part_of_suite(suite, seeds=['1']))
    assert str(error.value) == (
        f"{tmp_path} holds other runs of suite 'tiny' (seeds 0); other runs "
        "go in a results folder of their own: give --local-dir DIR or --name "
        "NEW (softlearning report reads several folders together).")
    with pytest.raises(SuiteError, match=r"another version of suite 'tiny' "
                       r"\(it differs in: steps\)"):
        _check_same_suite(str(tmp_path), dataclasses.replace(held,
                                                             steps=1200))


def test_dry_run_of_part_of_a_suite(tmp_path):
    path = write_suite(tmp_path, {**TINY_SUITE, 'seeds': [0, 1, 2]})
    result = run_cli('benchmark', path, '--dry-run', '--local-dir', tmp_path,
                     '--algorithms', 'TD3', '--seeds', '1', '2', timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'Suite tiny: TD3 (tiny networks) on gym/Pendulum/v1, seeds 1, 2: '\
        '2 trials' in result.stdout
    assert_one_line_error(
        run_cli('benchmark', path, '--dry-run', '--seeds', '7'),
        'Seed 7 not in the suite (it has 0, 1, 2)')


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


SUITES_FOLDER = os.path.join(REPO_ROOT, 'examples', 'benchmarks')
SHIPPED_SUITES = sorted(
    os.path.relpath(path, SUITES_FOLDER) for path in glob.glob(
        os.path.join(SUITES_FOLDER, '**', '*.yaml'), recursive=True))


@pytest.mark.parametrize('name', SHIPPED_SUITES)
def test_every_shipped_suite_builds_its_experiment(name, tmp_path,
                                                   monkeypatch):
    """Each suite in examples/benchmarks loads and every cell's variant is
    built (what ``softlearning benchmark`` does before Ray starts); a suite
    that changes the presets (``config``: every ablation under ablations/,
    and e.g. tqc_50k's two critics) is labelled by what it changes."""
    from softlearning.algorithms.precision import ALLOW_ENV
    from softlearning.experiments.benchmark.suite_experiment import (
        prepare_suite)
    # A bfloat16 suite builds on any CPU; where the CPU would only emulate
    # bfloat16, running it is refused (test_precision.py).
    monkeypatch.setenv(ALLOW_ENV, '1')
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
