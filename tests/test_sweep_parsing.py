"""Sweeps before anything runs: search spaces as Tune's, config keys checked
against the constructors, sweep files (the examples' included) and their
one-line errors through the command line."""

import argparse
import glob
import json
import os

import pytest
from ray import tune

from conftest import REPO_ROOT, assert_one_line_error, run_cli
from softlearning.experiments.config.search_spaces import to_search_space


def _parse(*argv):
    from softlearning.cli.run import prepare_from_command_line
    experiment = prepare_from_command_line(
        'examples.development', [str(a) for a in argv], 'local')
    options = argparse.Namespace(**vars(experiment.options),
                                 tune_settings=experiment.tune_settings)
    return options, experiment.variant_spec


# Search spaces ------------------------------------------------------------------

@pytest.mark.parametrize('value, kind', [
    ({'choice': [1, 2]}, tune.search.sample.Categorical),
    ({'uniform': [0.1, 0.2]}, tune.search.sample.Float),
    ({'loguniform': [1e-4, 1e-2]}, tune.search.sample.Float),
    ({'randint': [1, 5]}, tune.search.sample.Integer),
])
def test_search_spaces_map_to_tunes(value, kind):
    space = to_search_space('key', value)
    assert isinstance(space, kind)
    low, high = next(iter(value.values()))[:2]
    for sample in space.sample(size=50):
        assert (sample in (1, 2)) if 'choice' in value else low <= sample <= high


def test_grid_search_and_plain_values():
    assert to_search_space('k', {'grid_search': [1, 2]}) == {
        'grid_search': [1, 2]}
    assert to_search_space('k', {'mass': 1.5}) == {'mass': 1.5}
    assert to_search_space('k', [1, 2]) == [1, 2]


@pytest.mark.parametrize('value, reason', [
    ({'loguniform': [0, 1]}, 'loguniform bounds must be positive'),
    ({'uniform': [1]}, '"uniform" needs two numbers [low, high]'),
    ({'uniform': [2, 1]}, 'low must be less than high'),
    ({'randint': [0.5, 3]}, '"randint" needs two integers'),
    ({'choice': []}, '"choice" needs a non-empty list'),
    ({'grid_serch': [1, 2]}, 'did you mean "grid_search"?'),
])
def test_a_malformed_search_space_names_the_forms(value, reason):
    with pytest.raises(ValueError) as error:
        to_search_space('--config a.b', value)
    message = str(error.value)
    assert reason in message
    assert message.startswith('Bad search space for --config a.b')
    for form in ('grid_search', 'choice', 'uniform', 'loguniform',
                 'randint'):
        assert f'{{"{form}": ' in message


# Config keys against constructors ---------------------------------------------------

def test_accepted_keywords_follow_kwargs_to_base_classes():
    from softlearning.algorithms import SAC
    from softlearning.utils.signatures import accepted_keywords
    from softlearning.value_functions import double_feedforward_Q_function
    accepted = accepted_keywords(SAC)
    assert {'discount', 'tau', 'policy_lr'} <= accepted  # SAC's own
    assert {'n_epochs', 'batch_size', 'fused_steps'} <= accepted  # base's
    assert 'discont' not in accepted
    assert 'hidden_layer_sizes' in accepted_keywords(
        double_feedforward_Q_function)
    assert accepted_keywords(lambda **kwargs: None) is None


def _parse_error(capsys, *argv):
    """The one-line error of a command line that parse_example refuses."""
    from softlearning.experiments import ExperimentError
    try:
        _parse(*argv)
    except SystemExit as exit_:  # parser.error: usage, then the message
        assert exit_.code == 2
        return capsys.readouterr().err.splitlines()[-1]
    except ExperimentError as error:  # reported by the command in one line
        return str(error)
    raise AssertionError(f'{argv} was accepted')


@pytest.mark.parametrize('key, message', [
    ('algorithm_params.config.discont=0.9',
     "Unknown key 'discont' in algorithm_params.config: SAC accepts Q_lr, "
     "adam_beta1, adam_epsilon, alpha_lr, augmentation_pad, batch_size, discount, epoch_length, "
     "eval_deterministic, eval_n_episodes, eval_seed, fused_steps, "
     "initial_alpha, "
     "jit_compile, lr_decay_to, "
     "max_path_length, min_pool_size, n_epochs, n_initial_exploration_steps, "
     "n_train_repeat, policy_delay, policy_lr, precision, "
     "reward_normalization, "
     "reward_scale, target_entropy, target_entropy_per_dimension, "
     "target_update_interval, tau, temperature_loss, train_every_n_steps, "
     "training_seconds. Did you mean "
     "'discount'?"),
    ('Q_params.config.hidden_layer_size=[8]',
     "Did you mean 'hidden_layer_sizes'?"),
    ('replay_pool_params.config.max_sise=10',
     "SimpleReplayPool accepts max_size."),
    ('sampler_params.config.max_path=10',
     "SimpleSampler accepts envs_per_sampler, max_path_length, "
     "store_last_n_paths, vector_mode."),
    ('exploration_policy_params.config.scale=2', "UniformPolicy accepts "),
    ('algorithm_params.config.pool=1', "the runner sets 'pool'"),
    ('algorithm_params.class_name=SACC', "Unknown algorithm 'SACC'"),
    ('algorithm_params.config.taus={"loguniform": [0.001, 0.1]}',
     "Unknown key 'taus' in algorithm_params.config"),
])
def test_config_keys_are_checked_against_the_constructor(key, message,
                                                          capsys):
    assert message in _parse_error(capsys, '--config', key)


# Sweep files -------------------------------------------------------------------

def test_sweep_file_options_and_overrides_with_the_command_line_winning(
        tmp_path):
    sweep = tmp_path / 'sweep.json'
    sweep.write_text(json.dumps({
        'domain': 'Pendulum', 'n_epochs': 3, 'num_samples': 4,
        'scheduler': 'asha', 'metric_mode': 'max',
        'config': {
            'algorithm_params.config.policy_lr': {'loguniform': [1e-4,
                                                                 1e-2]},
            'algorithm_params.config.tau': {'choice': [0.005, 0.02]}}}))
    args, spec = _parse('--sweep', sweep, '--num-samples', '2',
                        '--config', 'algorithm_params.config.tau=0.01')
    assert args.num_samples == 2  # the command line wins
    assert args.scheduler == 'asha' and args.n_epochs == 3
    config = spec['algorithm_params']['config']
    assert config['tau'] == 0.01
    assert isinstance(config['policy_lr'], tune.search.sample.Float)
    assert config['n_epochs'] == 3


def test_yaml_sweep_file_in_examples():
    args, spec = _parse('--sweep', os.path.join(
        REPO_ROOT, 'examples', 'sweeps', 'pendulum_pbt.yaml'))
    assert args.scheduler == 'pbt'
    scheduler = args.tune_settings['tune_config']['scheduler']
    assert scheduler._perturbation_interval == 2000
    assert set(scheduler._hyperparam_mutations['algorithm_params'][
        'config']) == {'policy_lr', 'Q_lr'}


@pytest.mark.parametrize('name', sorted(
    os.path.basename(path) for path in glob.glob(
        os.path.join(REPO_ROOT, 'examples', 'sweeps', '*'))
    if path.endswith(('.json', '.yaml', '.yml'))))  # (not its README)
def test_every_example_sweep_parses(name):
    args, spec = _parse('--sweep', os.path.join(REPO_ROOT, 'examples',
                                                'sweeps', name))
    assert args.num_samples > 1


def test_pbt_mutates_learning_rates_by_default():
    args, _ = _parse('--scheduler', 'pbt')
    scheduler = args.tune_settings['tune_config']['scheduler']
    mutations = scheduler._hyperparam_mutations
    assert set(mutations['algorithm_params']['config']) == {
        'policy_lr', 'Q_lr', 'alpha_lr'}


def test_the_seed_is_not_searched_by_optuna():
    pytest.importorskip('optuna')
    args, spec = _parse('--search-algorithm', 'optuna', '--config',
                        'algorithm_params.config.tau={"uniform": [0.001, '
                        '0.1]}')
    searcher = args.tune_settings['tune_config']['search_alg']
    assert spec['run_params']['seed'] is None  # drawn per trial instead
    searcher.set_search_properties('evaluation/return-mean', 'max', spec)
    suggestion = searcher.suggest('trial_1')
    assert 0.001 <= suggestion['algorithm_params']['config']['tau'] <= 0.1
    assert 0 <= suggestion['run_params']['seed'] < 10000


@pytest.mark.parametrize('args, message', [
    (['--scheduler', 'hyperband'],
     "argument --scheduler: invalid choice: 'hyperband' (choose from 'fifo', "
     "'asha', 'pbt')"),
    (['--search-algorithm', 'bayes'],
     "argument --search-algorithm: invalid choice: 'bayes' (choose from "
     "'random', 'optuna')"),
    (['--config', 'algorithm_params.confg.tau={"choice": [0.1]}'],
     "Unknown variant key 'algorithm_params.confg'"),
    (['--config', 'run_params.sed={"choice": [1, 2]}'],
     "Unknown variant key 'run_params.sed' in --config"),
    (['--scheduler', 'asha', '--scheduler-config', '{"grace": 1}'],
     "--scheduler-config: unknown asha setting 'grace'. Valid choices: "
     "brackets, "),
    (['--scheduler', 'pbt', '--scheduler-config',
      '{"hyperparam_mutations": {"algorithm_params.config.lr": [1, 2]}}'],
     "cannot mutate 'algorithm_params.config.lr'"),
    (['--search-algorithm', 'optuna', '--config',
      'run_params.seed={"grid_search": [1, 2]}'],
     '--search-algorithm optuna cannot search a grid (run_params.seed)'),
    (['--search-algorithm', 'optuna'],
     '--search-algorithm optuna needs a search space'),
    (['--scheduler', 'pbt', '--search-algorithm', 'optuna'],
     '--scheduler pbt chooses configurations itself'),
])
def test_bad_sweep_input_is_one_clear_error(args, message, capsys):
    assert message in _parse_error(capsys, *args)


def test_bad_sweep_files_through_the_command_line(tmp_path):
    broken = tmp_path / 'broken.json'
    broken.write_text('{"num_samples": 2,\n "config": {"a": 1,}}')
    result = run_cli('run_example_local', 'examples.development', '--sweep',
                     broken)
    assert_one_line_error(
        result, f"--sweep {broken} is not valid JSON: Expecting property "
                "name enclosed in double quotes at line 2, column 20.")

    unknown = tmp_path / 'unknown.json'
    unknown.write_text('{"num_sample": 2, "config": {'
                       '"algorithm_params.config.discont": {"choice": [1]}}}')
    result = run_cli('run_example_local', 'examples.development', '--sweep',
                     unknown)
    assert_one_line_error(result,
                          "unknown option 'num_sample'. Valid: config, ")

    misspelled = tmp_path / 'misspelled.json'
    misspelled.write_text('{"config": {'
                          '"algorithm_params.config.discont": {"choice": '
                          '[0.9, 0.99]}}}')
    result = run_cli('run_example_local', 'examples.development', '--sweep',
                     misspelled)
    assert_one_line_error(
        result, "Unknown key 'discont' in algorithm_params.config")
