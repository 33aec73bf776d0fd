"""The Python API (softlearning.experiments): the README's example as
written, keywords as the command line's options, one clear error."""

import os
import re
import subprocess
import sys

import pytest

from checkpoint_helpers import variant_for
from conftest import FAKE_TENSORFLOW_STARTUP, REPO_ROOT
from softlearning import experiments


def readme_python_example():
    with open(os.path.join(REPO_ROOT, 'README.md')) as f:
        readme = f.read()
    section = readme[readme.index('## Python API'):]
    return re.search(r'```python\n(.*?)```', section, re.S).group(1)


@pytest.mark.slow
def test_readme_example_runs_as_written(tmp_path):
    script = readme_python_example() + (
        "import sys\n"
        "print('tensorflow imported:', 'tensorflow' in sys.modules)\n")
    result = subprocess.run(
        [sys.executable, '-c', script], cwd=tmp_path, timeout=900,
        env={**os.environ, 'HOME': str(tmp_path),
             'PYTHONPATH': os.pathsep.join([FAKE_TENSORFLOW_STARTUP,
                                            REPO_ROOT])},
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == 'tensorflow imported: False'
    evaluation_return = float(lines[-3])
    assert -2000 < evaluation_return < 0
    action = [float(a) for a in lines[-2].strip('[]').split()]
    assert len(action) == 1 and -1 <= action[0] <= 1
    assert (tmp_path / 'ray_results' / 'gym' / 'Pendulum' / 'v1').is_dir()
    # The same trial, filmed with the documentation's "Watching a policy"
    # command as written (docs/guide/simulate.md): one quick-start run
    # serves both, each a Ray session and a trial less to start.
    film_as_the_docs_say(tmp_path)


def film_as_the_docs_say(home):
    """The simulate command of docs/guide/simulate.md on the one trial
    under ``home``/ray_results, run in ``home`` (the video goes where the
    user runs the command), with ``home`` as HOME."""
    import shlex
    import imageio.v3 as iio
    from conftest import run_cli, trial_dirs
    (trial_dir,) = trial_dirs(home / 'ray_results')
    with open(os.path.join(REPO_ROOT, 'docs', 'guide', 'simulate.md')) as f:
        section = f.read()
    (command,) = re.findall(
        r'^softlearning simulate ~/ray_results/gym/Pendulum/v1/.*$', section,
        re.MULTILINE)
    words = shlex.split(command)
    assert words[2] == (
        '~/ray_results/gym/Pendulum/v1/<timestamp>-experiment/<trial>')
    words[2] = trial_dir
    result = run_cli(*words[1:], timeout=300, cwd=home,
                     env={'HOME': str(home)})
    assert result.returncode == 0, result.stderr[-3000:]
    frames = iio.imread(home / 'pendulum.mp4')
    assert frames.shape[0] == 201 and frames.std() > 1.0


def test_keywords_are_the_command_lines_options():
    by_keywords = experiments.variant_spec(
        algorithm='TD3', domain='HalfCheetah', task='v5', n_epochs=7,
        seed=3, cpus=2, num_samplers=2, policy='recurrent',
        config={'algorithm_params.config.tau': 0.01})
    by_command_line = variant_for(
        '--algorithm', 'TD3', '--domain', 'HalfCheetah', '--task', 'v5',
        '--n-epochs', '7', '--seed', '3', '--num-samplers', '2',
        '--policy', 'recurrent',
        '--config', 'algorithm_params.config.tau=0.01')
    assert by_keywords == by_command_line
    assert by_keywords['algorithm_params']['config']['n_epochs'] == 7
    assert by_keywords['policy_params']['class_name'] == (
        'RecurrentDeterministicPolicy')


@pytest.mark.parametrize('keywords, message', [
    ({'n_epoch': 3}, "Unknown option(s) 'n_epoch'. Valid choices: "),
    ({'algorithm': 'TD4'}, "algorithm='TD4' is not one of SAC, SQL, TD3"),
    ({'config': {'algorithm_params.config.discont': 0.9}},
     "Did you mean 'discount'?"),
    ({'run': 'remote'}, "run 'remote' is not one of local, cluster, debug"),
    ({'run': 'debug', 'num_samples': 3},
     'run_example_debug cannot honour num_samples=3'),
])
def test_bad_keywords_are_one_clear_error(keywords, message):
    with pytest.raises(experiments.ExperimentError) as error:
        experiments.experiment(**keywords)
    assert message in str(error.value)


def test_presets_do_not_repeat_constructor_defaults():
    """A preset value equal to its constructor's default would be noise:
    the variant gets those from the constructors."""
    import importlib
    from softlearning.algorithms import ALGORITHMS
    from softlearning.experiments.config import presets
    from softlearning.experiments.config.config_keys import _registries
    from softlearning.experiments.config.variants import merge
    from softlearning.utils.registry import lookup
    from softlearning.utils.signatures import NO_LITERAL_DEFAULT
    registries = _registries()
    for algorithm in ALGORITHMS:
        preset = presets.get(algorithm)
        common = importlib.import_module(
            'softlearning.experiments.config.presets.common')
        variant = merge(common.VARIANT, preset.VARIANT)
        for family, params in variant.items():
            if family not in registries or 'class_name' not in params:
                continue
            kind, registry, read = registries[family]
            parameters, _ = read(lookup(registry, params['class_name'], kind))
            for key, value in (params.get('config') or {}).items():
                default = parameters.get(key, NO_LITERAL_DEFAULT)
                assert default is NO_LITERAL_DEFAULT or default != value, (
                    algorithm, family, key)


def test_params_record_the_constructors_defaults():
    variant = experiments.variant_spec(
        algorithm='SAC', domain='HalfCheetah', task='v5', seed=1, cpus=2)
    config = variant['algorithm_params']['config']
    # Not in any preset: SAC's own defaults.
    assert config['policy_lr'] == 3e-4 and config['tau'] == 5e-3
    assert config['target_entropy'] == 'auto'
    assert variant['policy_params']['config']['hidden_layer_sizes'] == (
        256, 256)


def test_checkpoints_whose_variant_left_out_the_defaults_still_fit(tmp_path):
    """Variants written before the constructors' defaults were recorded:
    a checkpoint of one still fits the same settings today."""
    from softlearning.experiments.trial.trainable import check_restorable
    from softlearning.utils import checkpoints
    variant = experiments.sample_variant(
        experiments.variant_spec(seed=1, cpus=2))
    old = experiments.sample_variant(experiments.variant_spec(seed=1, cpus=2))
    for family in ('policy_params', 'Q_params'):
        old[family]['config'] = {
            'hidden_layer_sizes': [256, 256], 'activation': 'relu'}
    checkpoints.atomic_json(str(tmp_path / checkpoints.VARIANT_FILE), old)
    check_restorable(str(tmp_path), variant)
    old['policy_params']['config']['hidden_layer_sizes'] = [64, 64]
    checkpoints.atomic_json(str(tmp_path / checkpoints.VARIANT_FILE), old)
    with pytest.raises(checkpoints.CheckpointError, match='policy_params'):
        check_restorable(str(tmp_path), variant)


def test_settings_a_constructor_fixes_itself_are_refused():
    """DDPG is TD3 without smoothing or delay: it sets them itself."""
    with pytest.raises(experiments.ExperimentError,
                       match="Unknown key 'policy_delay'"):
        experiments.experiment(
            algorithm='DDPG',
            config={'algorithm_params.config.policy_delay': 3})
