"""``softlearning show-config EXAMPLE [options]``: the resolved variant as
YAML, each value annotated with where it came from; bad input fails as in
training; nothing starts Ray or imports TensorFlow."""

import re

import pytest
import yaml

from conftest import (
    TENSORFLOW_IMPORTED, assert_one_line_error, run_cli, run_clis_at_once)
from softlearning import experiments
from softlearning.cli.show_config import resolved_config
from softlearning.experiments.config.provenance import described

SWEEP = 'examples/sweeps/pendulum_lr.json'


def annotations(stdout):
    """{dotted key: source} read back from show-config's YAML lines."""
    sources, path = {}, []
    for line in stdout.splitlines():
        if line.startswith('#'):
            continue
        depth = (len(line) - len(line.lstrip())) // 2
        key = line.strip().split(':', 1)[0]
        path = path[:depth] + [key]
        match = re.search(r'  # from: (.+)$', line)
        if match:
            sources['.'.join(path)] = match.group(1)
    return sources


@pytest.fixture(scope='module')
def shown(tmp_path_factory):
    local_dir = tmp_path_factory.mktemp('results')
    return run_cli(
        'show-config', 'examples.development', '--algorithm', 'TD3',
        '--n-epochs', '5', '--local-dir', local_dir,
        '--config', 'algorithm_params.config.tau=0.01',
        '--config', 'algorithm_params.config.discount={"grid_search": '
                    '[0.98, 0.99]}',
        # The preset's value again: still the --config's.
        '--config', 'replay_pool_params.config.max_size=1000000')


def test_prints_the_variant_training_resolves_to(shown, tmp_path):
    assert shown.returncode == 0, shown.stderr
    assert TENSORFLOW_IMPORTED not in shown.stderr
    variant = experiments.variant_spec(
        algorithm='TD3', n_epochs=5, local_dir=str(tmp_path), config={
            'algorithm_params.config.tau': 0.01,
            'algorithm_params.config.discount': {
                'grid_search': [0.98, 0.99]},
            'replay_pool_params.config.max_size': 1000000})
    # (The shown variant was resolved with its own --local-dir.)
    assert yaml.safe_load(shown.stdout) == described(variant)


def test_each_value_says_where_it_came_from(shown):
    sources = annotations(shown.stdout)
    config = 'algorithm_params.config'
    assert sources[f'{config}.tau'] == '--config'
    assert sources[f'{config}.discount'] == '--config'
    assert sources['replay_pool_params.config.max_size'] == '--config'
    assert sources[f'{config}.n_epochs'] == 'option'
    assert sources['environment_params.training.domain'] == 'option'
    assert sources['algorithm_params.class_name'] == 'preset'
    # gym Pendulum's episodes are 200 steps: TD3's Pendulum override.
    assert sources[f'{config}.max_path_length'] == 'domain override'
    # The sampler's episode length follows the algorithm's.
    assert sources['sampler_params.config.max_path_length'] == 'derived'
    assert sources[f'{config}.target_noise'] == 'constructor default'
    assert sources['run_params.seed'] == 'preset'


def test_sweep_debug_mode_and_example_defaults_are_sources(tmp_path):
    results = ['--local-dir', str(tmp_path)]
    _, sources = resolved_config('examples.development',
                                 ['--sweep', SWEEP, '--cpus', '2', *results])
    assert sources['algorithm_params.config.Q_lr'] == 'sweep'
    _, sources = resolved_config('examples.multi_goal', results, run='debug')
    assert sources['algorithm_params.config.n_epochs'] == 'debug mode'
    assert sources['algorithm_params.config.tau'] == 'example default'
    assert sources['environment_params.training.domain'] == 'option'


def test_nothing_starts_ray(tmp_path):
    import ray
    experiment, _ = resolved_config(
        'examples.development', ['--num-samplers', '2', '--cpus', '2',
                                 '--local-dir', str(tmp_path)])
    assert experiment.variant_spec['sampler_params']['class_name'] == (
        'RemoteSampler')
    assert not ray.is_initialized()


@pytest.mark.parametrize('argv, message', [
    (['--algorithm', 'PPO'], "argument --algorithm: invalid choice: 'PPO'"),
    (['--config', 'algorithm_params.config.discont=0.9'],
     "Unknown key 'discont' in algorithm_params.config"),
    (['--sweep', 'no-such-sweep.json'], '--sweep no-such-sweep.json: no such'),
])
def test_bad_input_fails_as_in_training(argv, message):
    results = run_clis_at_once({
        'shown': ['show-config', 'examples.development', *argv],
        'trained': ['run_example_local', 'examples.development', *argv]})
    shown, trained = results['shown'], results['trained']
    assert_one_line_error(shown, message)
    assert_one_line_error(trained, message)
    assert shown.stderr.splitlines()[-1] == trained.stderr.splitlines()[-1]


def test_run_mode_refusals_are_the_modes():
    shown = run_cli('show-config', 'examples.development', '--run', 'debug',
                    '--num-samples', '2')
    assert_one_line_error(
        shown, 'run_example_debug cannot honour --num-samples 2')

