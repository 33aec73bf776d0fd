"""What a new user meets in the first hour: help, debug mode's options,
sampler actors on a 2-CPU machine, MUJOCO_GL, TensorFlow's CUDA noise."""

import glob
import importlib.util
import os
import re

import pytest

from conftest import (
    FAKE_TENSORFLOW_STARTUP, REPO_ROOT, TENSORFLOW_IMPORTED, TENSORFLOW_NOISE,
    assert_one_line_error, read_progress, run_cli, run_python, trial_dirs)

# Lines TensorFlow writes at start-up on some machines (CUDA missing, oneDNN
# on AVX-512 BF16 CPUs): never shown, on any machine.
CUDA_NOISE = ('cuInit', 'Could not find cuda drivers',
              'oneDNN custom operations', 'absl::InitializeLog')


def assert_quiet_about_cuda(result, trials_stderr=None):
    """TensorFlow was imported (the fake start-up lines of
    tests/fake_tensorflow_startup were written: its warning shows), and none
    of its start-up noise reached the user, real or fake. A run through
    Tune imports TensorFlow in its trials only: pass ``trials_stderr``
    (conftest.trial_stderr), what they wrote, which Ray forwards to the
    command's output when it can; the warning is looked for there."""
    output = result.stderr + result.stdout
    shown = output if trials_stderr is None else trials_stderr
    assert TENSORFLOW_IMPORTED in shown, shown[-3000:]
    for line in CUDA_NOISE + TENSORFLOW_NOISE:
        assert line not in output + (trials_stderr or ''), line


# Help -----------------------------------------------------------------------

def test_help_without_example_shows_the_default_examples_options():
    for command in ('run_example_local', 'run_example_debug'):
        result = run_cli(command, '--help')
        assert result.returncode == 0, result.stderr
        assert 'EXAMPLE is a module such as examples.development' in (
            result.stdout)
        assert '--universe' in result.stdout and '--num-samplers' in (
            result.stdout)
        assert 'error' not in result.stderr


def test_run_example_without_example_is_one_error():
    result = run_cli('run_example_local', '--domain', 'Pendulum')
    assert_one_line_error(result, "'run_example_local' needs an EXAMPLE module")



REFUSED_COMMANDS = {
    'an example option': ['run_example_local', 'examples.development',
                          '--algorithm', 'SACC'],
    'a sweep on a cluster': ['run_example_cluster', 'examples.development',
                             '--universe', 'gymm'],
    'a suite part': ['benchmark', 'examples/benchmarks/smoke.yaml',
                     '--algorithms', 'SACC'],
    'a suite file': ['benchmark', 'no_such_suite.yaml'],
    'a results folder': ['report', 'no_such_folder'],
}


@pytest.mark.parametrize('argv', REFUSED_COMMANDS.values(),
                         ids=REFUSED_COMMANDS)
def test_a_refusal_comes_before_ray_tune_is_imported(argv):
    """A mistyped option is answered in a fraction of a second: the
    options are checked before Ray Tune and the analysis modules (seconds
    of imports) are, not only before Ray starts."""
    script = ('import sys\n'
              'from softlearning.cli.main import main\n'
              'try:\n'
              f'    code = main({argv!r})\n'
              'except SystemExit as exit:\n'
              '    code = exit.code\n'
              "print('exit', code)\n"
              "print(sorted(m for m in ('ray.tune', 'scipy.stats')"
              ' if m in sys.modules))\n')
    result = run_python(script)
    assert result.stdout.splitlines()[-2:] == ['exit 2', '[]'], (
        result.stdout, result.stderr[-3000:])

# Paths the help texts, the README and the documentation's pages name, e.g.
# examples/curriculum/ or softlearning/environments/rendering.py.
PATH_PATTERN = re.compile(
    r'(?<![\w/.~<])((?:docs|examples|softlearning|benchmarks|config|docker|'
    r'tests|\.ci)/[\w./-]*[\w/])')


def _mentioned_paths(text):
    paths = set()
    for match in PATH_PATTERN.findall(text):
        path = match.rstrip('.')
        if '<' in path or '*' in path:
            continue
        paths.add(path)
    return paths


def test_every_path_in_help_readme_and_docs_exists():
    texts = [run_cli(*command).stdout for command in (
        ('--help',), ('run_example_local', 'examples.development', '--help'),
        ('run_example_debug', 'examples.development', '--help'),
        ('simulate', '--help'), ('export', '--help'))]
    # A documentation page may also name a page beside it (its links).
    folders = {text: [REPO_ROOT] for text in texts}
    pages = [os.path.join(REPO_ROOT, 'README.md')] + glob.glob(
        os.path.join(REPO_ROOT, 'docs', '**', '*.md'), recursive=True)
    for page in pages:
        with open(page) as f:
            folders[f.read()] = [REPO_ROOT, os.path.dirname(page)]
    mentioned = {}
    for text, roots in folders.items():
        for path in _mentioned_paths(text):
            mentioned.setdefault(path, set()).update(roots)
    assert 'softlearning/environments/rendering.py' in mentioned
    missing = sorted(path for path, roots in mentioned.items()
                     if not any(os.path.exists(os.path.join(root, path))
                                for root in roots))
    assert not missing, missing


# Debug mode: every option honoured or refused ---------------------------------

def test_every_option_is_honoured_or_refused_in_debug_mode():
    from softlearning.experiments.config.option_schema import schema
    for option in schema().values():
        assert bool(option.debug) != ('debug' in option.refused), option.name


@pytest.mark.parametrize('option, value', [
    ('--num-samples', '3'), ('--max-failures', '1'), ('--verbose', '2'),
    ('--resources-per-trial', '{"cpu": 1}'), ('--gpus', '1'),
    ('--resources', '{"x": 1}')])
def test_debug_refuses_options_it_cannot_honour(option, value):
    result = run_cli('run_example_debug', 'examples.development', option,
                     value)
    assert_one_line_error(result, f'run_example_debug cannot honour {option}')


def test_debug_refuses_a_grid_search():
    result = run_cli('run_example_debug', 'examples.development', '--config',
                     'run_params.seed={"grid_search": [1, 2]}')
    assert_one_line_error(result, 'grid of 2 trials')


def _debug(tmp_path, *args):
    return run_cli('run_example_debug', 'examples.development',
                   '--local-dir', tmp_path, '--seed', '3',
                   '--config', 'policy_params.config.hidden_layer_sizes=[8,8]',
                   '--config', 'Q_params.config.hidden_layer_sizes=[8,8]',
                   *args)


def test_debug_honours_checkpoint_options(tmp_path):
    result = _debug(tmp_path / 'first', '--checkpoint-frequency', '1',
                    '--checkpoint-replay-pool', 'True', '--checkpoint-at-end',
                    'False', '--trial-name-template',
                    'mine-{trial.config[run_params][seed]}')
    assert result.returncode == 0, result.stderr[-3000:]
    assert_quiet_about_cuda(result)
    (trial_dir,) = trial_dirs(tmp_path / 'first')
    assert os.path.basename(trial_dir) == 'mine-3'
    from softlearning.utils import checkpoints
    found = checkpoints.checkpoint_dirs(trial_dir)
    # Tune's layout: one checkpoint per epoch, numbered from 0.
    assert [os.path.basename(p) for p in found] == [
        'checkpoint_000000', 'checkpoint_000001']
    manifest = checkpoints.read_manifest(found[-1])
    assert manifest['epoch'] == 2 and manifest['total_timestep'] == 200
    assert len(manifest['replay_pool_pieces']) == 2

    # A new debug trial starts from it and continues the counters.
    result = _debug(tmp_path / 'second', '--restore', found[0],
                    '--checkpoint-at-end', 'False')
    assert result.returncode == 0, result.stderr[-3000:]
    (trial_dir,) = trial_dirs(tmp_path / 'second')
    progress = read_progress(trial_dir)
    assert list(progress['epoch']) == [2]
    assert list(progress['total_timestep']) == [200]
    assert not checkpoints.checkpoint_dirs(trial_dir)


def test_debug_refuses_resuming_an_experiment(tmp_path):
    experiment = tmp_path / 'experiment'
    experiment.mkdir()
    (experiment / 'tuner.pkl').write_bytes(b'')
    result = run_cli('run_example_debug', 'examples.development',
                     '--restore', experiment)
    assert_one_line_error(
        result, 'an experiment folder is resumed by run_example_local')


@pytest.mark.slow
def test_debug_honours_mode_local_and_sampler_actors(tmp_path):
    import json
    result = _debug(tmp_path, '--mode', 'local', '--n-epochs', '1',
                    '--epoch-length', '50', '--checkpoint-at-end', 'False',
                    '--num-samplers', '2', '--cpus', '2')
    assert result.returncode == 0, result.stderr[-3000:]
    # The trainer is this process: the actors have Ray's 2 CPUs, with no
    # notice (run_example_local's: test_recurrent.py, on sampler actors).
    assert 'Notice: 2 sampler actors' not in result.stderr
    (trial_dir,) = trial_dirs(tmp_path)
    assert read_progress(trial_dir)['training/num-samplers'].iloc[-1] == 2
    with open(os.path.join(trial_dir, 'params.json')) as f:
        variant = json.load(f)
    # Not debug-sized: the compiled (not eager) update and 5 evaluation
    # episodes of the Pendulum variant.
    assert variant['run_params']['run_eagerly'] is False
    assert variant['algorithm_params']['config']['eval_n_episodes'] == 5


# TensorFlow's CUDA noise ------------------------------------------------------

FILTER_SCRIPT = """
import os, sys
from softlearning.utils.tensorflow_logging import without_startup_noise
with without_startup_noise(gpu_in_use=%s):
    os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\\n")
    os.write(2, b"I0000 00:00:1795460324.960755    2358 port.cc:153] oneDNN custom operations are on.\\n")
    os.write(2, b"I0000 00:00:1795460324.961640    2358 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.\\n")
    os.write(2, b"2024-05-01 10:00:00.000000: I tensorflow/core/util/port.cc:113] an older INFO record\\n")
    os.write(2, b"E0000 00:00:1795460329.274915    2358 cuda_platform.cc:52] failed call to cuInit: INTERNAL\\n")
    os.write(2, b"E0000 00:00:1795460329.274916    2358 some_kernel.cc:1] a real error\\n")
    os.write(2, b"W0000 00:00:1795460329.274917    2358 some_op.cc:9] a real warning\\n")
    print('python warning', file=sys.stderr)
print('after', file=sys.stderr)
"""


@pytest.mark.parametrize('gpu_in_use, cuda_lines', [
    (False, []),
    (True, ['E0000 00:00:1795460329.274915    2358 cuda_platform.cc:52] '
            'failed call to cuInit: INTERNAL'])])
def test_startup_noise_is_dropped_by_rule_and_real_errors_kept(
        gpu_in_use, cuda_lines):
    """INFO records go, whatever they say; CUDA's records go unless a GPU
    is in use; warnings, errors and Python output stay, in order."""
    result = run_python(FILTER_SCRIPT % gpu_in_use, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        *cuda_lines,
        'E0000 00:00:1795460329.274916    2358 some_kernel.cc:1] a real error',
        'W0000 00:00:1795460329.274917    2358 some_op.cc:9] a real warning',
        'python warning', 'after']


def test_tensorflow_import_is_quiet_without_gpu():
    result = run_python(
        'from softlearning.utils.tensorflow_logging import import_tensorflow; '
        'tf = import_tensorflow(); print(tf.constant(2) * 3)', timeout=120,
        env={'PYTHONPATH': os.pathsep.join([FAKE_TENSORFLOW_STARTUP,
                                            REPO_ROOT])})
    assert result.returncode == 0, result.stderr
    assert 'tf.Tensor(6' in result.stdout
    assert_quiet_about_cuda(result)


# What a run's start does not load ---------------------------------------------

STARTUP_SCRIPT = """
import sys
import softlearning
from softlearning.utils.tensorflow_logging import import_tensorflow
import_tensorflow()
from ray.air._internal import usage
from ray.tune import Callback
from softlearning.experiments.tune import behaviour as tune_behaviour
with tune_behaviour.no_untold_usage_tags():
    usage.tag_callbacks([Callback()])
print(sorted(m for m in ('keras', 'sklearn', 'matplotlib', 'mlflow', 'wandb')
             if m in sys.modules))
"""


# The trackers the tracking extra installs, where it is installed.
TRACKERS = [name for name in ('mlflow', 'wandb')
            if importlib.util.find_spec(name) is not None]


@pytest.mark.parametrize('usage_stats, loaded', [
    ('0', '[]'),
    # With usage statistics on, Tune's tag counts the callbacks against
    # every tracker it knows: the test's control.
    ('1', str(TRACKERS))])
def test_a_run_starts_without_keras_3_or_trackers_it_does_not_use(
        usage_stats, loaded):
    """softlearning's networks are tf-keras: TensorFlow does not load Keras
    3 (and scikit-learn, matplotlib with it), and Tune does not import the
    trackers to tag a run whose usage statistics are off."""
    result = run_python(STARTUP_SCRIPT, timeout=120,
                        env={'RAY_USAGE_STATS_ENABLED': usage_stats})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == loaded


def test_a_resume_leaves_out_tunes_warning_about_trials_not_started():
    """Tune warns, restoring an experiment, about each trial it found no
    results of; trials that had not started have none, as they should.
    A result file it could not read is still reported."""
    import logging
    from softlearning.experiments.tune import behaviour as tune_behaviour
    logger = logging.getLogger('ray.tune.analysis.experiment_analysis')
    not_started = (
        "Failed to fetch metrics for 2 trial(s):\n" + "\n".join(
            f"- SAC_0000{i}: FileNotFoundError('Could not fetch metrics for "
            f"SAC_0000{i}: both result.json and progress.csv were not found "
            f"at /results/SAC_0000{i}')" for i in (1, 2)))
    unreadable = ("Failed to fetch metrics for 1 trial(s):\n- SAC_00000: "
                  "JSONDecodeError('Expecting value: line 1 column 1')")
    seen = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logger.addHandler(handler)
    try:
        with tune_behaviour.quiet_unstarted_trials():
            logger.warning(not_started)
            logger.warning(unreadable)
        logger.warning(not_started)
    finally:
        logger.removeHandler(handler)
    assert seen == [unreadable, not_started]
