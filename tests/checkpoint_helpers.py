"""Small variants and in-process runners shared by the checkpoint tests."""

import copy
import json
import math


TINY_CONFIG = {
    'policy_params.config.hidden_layer_sizes': [16, 16],
    'Q_params.config.hidden_layer_sizes': [16, 16],
    'algorithm_params.config.batch_size': 32,
    'algorithm_params.config.eval_n_episodes': 1,
    'algorithm_params.config.fused_steps': 20,
}


def tiny_options(domain='HalfCheetah', task='v5', epochs=3, epoch_length=100,
                 universe='gym', max_path_length=150, exploration=60, seed=7,
                 algorithm='SAC', config=None, **options):
    """Options (the experiments API's keywords) of a run that takes
    seconds; episodes (150 steps) span epoch boundaries so checkpoints fall
    mid-episode. ``config`` and ``options`` add to them."""
    return {
        'algorithm': algorithm, 'universe': universe, 'domain': domain,
        'task': task, 'n_epochs': epochs, 'epoch_length': epoch_length,
        'max_path_length': max_path_length, 'seed': seed,
        'run_eagerly': False,
        'config': {**TINY_CONFIG,
                   'algorithm_params.config.n_initial_exploration_steps':
                       exploration,
                   **(config or {})},
        **options}


def command_line(options):
    """The ``softlearning run_example_*`` options of API keywords."""
    argv = []
    for name, value in options.items():
        if name == 'config':
            for key, setting in value.items():
                argv += ['--config', f'{key}={json.dumps(setting)}']
        else:
            argv += [f"--{name.replace('_', '-')}", str(value)]
    return argv


def tiny_args(**kwargs):
    """``tiny_options`` as command-line options."""
    return command_line(tiny_options(**kwargs))


def tiny_variant(**kwargs):
    """One variant of ``tiny_options``, as a trial gets it."""
    from softlearning import experiments
    variant = experiments.sample_variant(experiments.variant_spec(
        **tiny_options(**kwargs), cpus=2))
    variant['run_params']['tf_num_threads'] = 1
    variant['run_params']['checkpoint_replay_pool'] = True
    return variant


def make_runner(variant):
    from softlearning.experiments.trial.trainable import (
        ExperimentRunner, build_outside_tune)
    return build_outside_tune(ExperimentRunner, copy.deepcopy(variant))


def variant_for(*options):
    """The variant spec of these command-line options, as
    ``softlearning run_example_local examples.development`` builds it."""
    from softlearning.cli.run import prepare_from_command_line
    return prepare_from_command_line(
        'examples.development', [str(o) for o in options] + ['--cpus', '2'],
        'local').variant_spec


def assert_resume_is_exact(variant, checkpoint_path, diagnostic_keys=None,
                           before_save=None, runner=None):
    """Epoch 3 after restoring the checkpoint of epoch 2 == epoch 3 of the
    run that never stopped: the algorithm's diagnostics (``diagnostic_keys``,
    by default every one its update returns), compared with ==, and the
    training and evaluation statistics. ``runner``: one of ``variant``
    already trained, to go on from (building one is most of the cost);
    its next two epochs stand for epochs 2 and 3."""
    if runner is None:
        runner = make_runner(variant)
        runner.train()
    runner.train()
    if before_save is not None:
        before_save(runner)
    runner.save_checkpoint(str(checkpoint_path))
    expected = runner.train()
    restored = make_runner(variant)
    restored.load_checkpoint(str(checkpoint_path))
    result = restored.train()
    assert result['num_train_steps'] > 0
    if diagnostic_keys is None:
        diagnostic_keys = restored.algorithm.training_diagnostic_keys
    for key in diagnostic_keys:
        assert math.isfinite(expected[key]), key
        assert result[key] == expected[key], key
    assert result['training'] == expected['training']
    assert result['evaluation'] == expected['evaluation']
