"""A newcomer's first day: the mistakes new users make, each as they would
make it (the real command line), with its exit status and its one line on
stderr, before Ray starts; and what they do next with a trained agent (their
own environment from its own folder, simulate, export, summary, trackers,
``softlearning.load``).

The seconds each command may take are hang guards, far above what it
takes (a bad input is refused in 2-5 s)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO_ROOT, TENSORFLOW_IMPORTED, run_cli
from softlearning.utils import checkpoints

GUARD_S = 120  # a bad input: refused in seconds


def assert_refused(result, *needles):
    """Exit status 2, exactly one line on stderr (no usage block) naming
    the problem, TensorFlow never imported (so neither was Ray started)."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr[-2000:]
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith('softlearning: error: '), lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert TENSORFLOW_IMPORTED not in result.stderr
    assert 'usage:' not in result.stderr + result.stdout


def run(*args, **kwargs):
    return run_cli('run_example_local', 'examples.development', *args,
                   timeout=GUARD_S, **kwargs)


@pytest.mark.parametrize('value, needles', [
    ('{0.9', ('not JSON', 'discount')),
    ('"abc"', ('takes a number', 'discount')),
    ('true', ('takes a number',)),
])
def test_config_values_of_the_wrong_kind_are_refused(value, needles):
    assert_refused(run('--config', f'algorithm_params.config.discount={value}'),
                   *needles)


def test_config_values_fit_lists_and_search_spaces():
    assert_refused(run('--config', 'Q_params.config.hidden_layer_sizes=[64,x]'),
                   'not JSON')
    assert_refused(
        run('--config', 'algorithm_params.config.n_epochs='
                        '{"grid_search": [1, 2.5]}'), 'takes an integer')


@pytest.mark.parametrize('setting, needles', [
    ('algorithm_params.config.discount=1.5', ('discount must be in [0, 1]',
                                             '1.5')),
    ('algorithm_params.config.Q_lr={"uniform": [-1e-3, 1e-3]}',
     ('Q_lr must be above 0',)),
])
def test_config_values_out_of_their_range_are_refused(setting, needles):
    assert_refused(run('--config', setting), *needles)


@pytest.mark.parametrize('key, value, accepted', [
    ('discount', 0.99, True), ('discount', 1.0, True),
    ('discount', -0.1, False), ('tau', 0.0, False), ('tau', 1.0, True),
    ('policy_lr', 0.0, False), ('alpha_lr', 3e-4, True),
    ('batch_size', 0, False), ('hidden_layer_sizes', [256, 0], False),
    ('hidden_layer_sizes', [], True), ('relabeled_goals', 0, True),
    ('discount', {'uniform': [0.9, 1.1]}, False),
    ('discount', {'grid_search': [0.9, 0.99]}, True),
    ('batch_size', {'randint': [0, 64]}, False),
    ('batch_size', {'randint': [1, 64]}, True),
    ('random_action_probability', 0.3, True),
    ('random_action_probability', 1.2, False),
])
def test_ranges_of_config_values(key, value, accepted):
    from softlearning.experiments.config import value_types
    defaults = {'discount': 0.99, 'tau': 5e-3, 'policy_lr': 3e-4,
                'alpha_lr': 3e-4, 'batch_size': 256,
                'hidden_layer_sizes': [256, 256], 'relabeled_goals': 4,
                'random_action_probability': 0.0}
    check = lambda: value_types.check_value(
        f'algorithm_params.config.{key}', value, defaults[key])
    if accepted:
        check()
    else:
        with pytest.raises(ValueError, match=f'{key} must be'):
            check()


def test_a_bare_word_for_a_string_entry_is_still_a_string():
    from softlearning.cli.run import prepare_from_command_line
    experiment = prepare_from_command_line(
        'examples.development',
        ['--config', 'policy_params.config.network=simba',
         '--config', 'algorithm_params.config.target_entropy=-2'], 'local',
        check_storage=False)
    assert experiment.variant_spec['policy_params']['config'][
        'network'] == 'simba'
    assert type(experiment.variant_spec['policy_params']['config'][
        'network']) is str
    assert experiment.variant_spec['algorithm_params']['config'][
        'target_entropy'] == -2


def test_discrete_actions_are_refused_and_not_listed():
    assert_refused(run('--domain', 'CartPole'), 'CartPole-v1',
                   'Discrete action space')
    result = run('--domain', 'Cartpole')
    assert_refused(result, "Unknown gym domain 'Cartpole'", 'Pendulum')
    assert 'CartPole' not in result.stderr
    assert 'Acrobot' not in result.stderr


def test_a_results_folder_that_cannot_be_written_is_refused():
    assert_refused(run('--local-dir', '/proc/x'),
                   'Cannot write results to --local-dir /proc/x')


@pytest.mark.parametrize('option', [
    ['--n-epochs', '-3'], ['--seed', 'abc'], ['--epoch-length', '0'],
    ['--num-samplers', '-1'], ['--universe', 'gymm'],
])
def test_argparse_errors_are_one_line(option):
    assert_refused(run(*option), option[0])


def test_a_checkpoint_corrupted_at_its_own_size_is_refused(tmp_path):
    checkpoint = tmp_path / 'checkpoint_000001'
    checkpoint.mkdir()
    (checkpoint / checkpoints.STATE_FILE).write_bytes(b'a' * 64)
    (checkpoint / checkpoints.VARIANT_FILE).write_text('{}')
    checkpoints.write_manifest(str(checkpoint), [], {})
    checkpoints.read_manifest(str(checkpoint))  # intact
    (checkpoint / checkpoints.STATE_FILE).write_bytes(b'b' * 64)
    assert_refused(run('--restore', str(checkpoint)), 'state.pkl',
                   'corrupted')


def test_a_checkpoint_without_checksums_is_checked_by_size(tmp_path):
    """Checkpoints saved before checksums were recorded still load."""
    (tmp_path / checkpoints.STATE_FILE).write_bytes(b'a' * 8)
    checkpoints.write_manifest(str(tmp_path), [], {})
    manifest_path = tmp_path / checkpoints.MANIFEST_FILE
    manifest = json.loads(manifest_path.read_text())
    del manifest['sha256']
    manifest_path.write_text(json.dumps(manifest))
    (tmp_path / checkpoints.STATE_FILE).write_bytes(b'b' * 8)
    checkpoints.read_manifest(str(tmp_path))
    (tmp_path / checkpoints.STATE_FILE).write_bytes(b'b' * 7)
    with pytest.raises(checkpoints.CheckpointError, match='truncated'):
        checkpoints.read_manifest(str(tmp_path))


def test_a_warm_up_the_user_set_longer_than_the_run_is_refused():
    assert_refused(
        run('--n-epochs', '2', '--epoch-length', '100', '--config',
            'algorithm_params.config.n_initial_exploration_steps=500'),
        'nothing would be trained')


def test_an_examples_defaults_rank_below_debug_sizes_and_the_user():
    from softlearning.cli.run import prepare_from_command_line
    from softlearning.experiments.config.presets import common
    debug = prepare_from_command_line('examples.multi_goal', [], 'debug')
    config = debug.variant_spec['algorithm_params']['config']
    assert config['n_epochs'] == common.DEBUG[
        'algorithm_params.config.n_epochs']
    assert config['epoch_length'] == common.DEBUG[
        'algorithm_params.config.epoch_length']
    local = prepare_from_command_line('examples.multi_goal',
                                      ['--n-epochs', '3'], 'local',
                                      check_storage=False)
    config = local.variant_spec['algorithm_params']['config']
    assert (config['n_epochs'], config['epoch_length'],
            config['max_path_length']) == (3, 1000, 30)


def test_the_repositorys_examples_import_from_any_folder(tmp_path):
    """No PYTHONPATH: softlearning as installed, run from elsewhere."""
    environ = {key: value for key, value in os.environ.items()
               if key != 'PYTHONPATH'}
    code = textwrap.dedent("""
        from softlearning.cli.run import prepare_from_command_line
        experiment = prepare_from_command_line('examples.multi_goal', [],
                                               'debug')
        print(experiment.variant_spec['environment_params']['training'][
            'domain'])
        experiment = prepare_from_command_line('examples.development', [
            '--domain',
            'examples.custom_environment.gravity_pendulum:GravityPendulum',
            '--task', 'v0', '--curriculum', '%s'], 'debug')
        print(experiment.variant_spec['curriculum'])
        """ % os.path.join(REPO_ROOT, 'examples', 'custom_environment',
                           'gravity_curriculum.json'))
    result = subprocess.run(
        [sys.executable, '-c', code], cwd=tmp_path, env=environ,
        capture_output=True, text=True, timeout=GUARD_S)
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'examples.multi_goal.multi_goal_env:MultiGoal' in result.stdout
    assert 'gravity' in result.stdout
