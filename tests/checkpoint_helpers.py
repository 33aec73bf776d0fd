"""Small variants and in-process runners shared by the checkpoint tests."""

import copy
import math


TINY = ['--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
        '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
        '--config', 'algorithm_params.config.batch_size=32',
        '--config', 'algorithm_params.config.eval_n_episodes=1',
        '--config', 'algorithm_params.config.fused_steps=20']


def tiny_args(domain='HalfCheetah', task='v5', epochs=3, epoch_length=100,
              universe='gym',
              max_path_length=150, exploration=60, seed=7, algorithm='SAC',
              extra=()):
    """CLI options of a run that takes seconds; episodes (150 steps) span
    epoch boundaries so checkpoints fall mid-episode."""
    return [*extra, '--algorithm', algorithm,
            '--universe', universe, '--domain', domain, '--task', task,
            '--n-epochs', epochs, '--epoch-length', epoch_length,
            '--max-path-length', max_path_length, '--seed', seed,
            '--run-eagerly', 'False',
            '--config', f'algorithm_params.config.n_initial_exploration_steps'
                        f'={exploration}',
            '--config', 'algorithm_params.config.eval_n_episodes=1',
            *TINY]


def tiny_variant(**kwargs):
    from examples.development import get_parser, get_variant_spec
    from examples.instrument import _resolve_variant
    args = get_parser().parse_args([str(a) for a in tiny_args(**kwargs)])
    variant = _resolve_variant(get_variant_spec(args))
    variant['run_params']['tf_num_threads'] = 1
    variant['run_params']['checkpoint_replay_pool'] = True
    return variant


def make_runner(variant):
    from examples.development.main import ExperimentRunner
    return ExperimentRunner(config=copy.deepcopy(variant))


def variant_for(*options):
    """The development example's variant spec for these CLI options."""
    from examples.development import get_parser, get_variant_spec
    return get_variant_spec(get_parser().parse_args([str(o) for o in options]))


def assert_resume_is_exact(variant, checkpoint_path, diagnostic_keys,
                           before_save=None):
    """Epoch 3 after restoring the checkpoint of epoch 2 == epoch 3 of the
    run that never stopped: the algorithm's diagnostics, compared with ==,
    and the training and evaluation statistics."""
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
    for key in diagnostic_keys:
        assert math.isfinite(expected[key]), key
        assert result[key] == expected[key], key
    assert result['training'] == expected['training']
    assert result['evaluation'] == expected['evaluation']
