"""The multi-goal example of Soft Q-Learning (Haarnoja et al. 2017, 5.1): a
point mass on the plane with four equally good goals, where a maximum-entropy
policy learns to head for all four (a multimodal policy).

    softlearning run_example_local examples.multi_goal --algorithm SQL
    softlearning plot-policy <checkpoint> --output multi_goal.png

Every option of softlearning's own experiment (``examples.development``)
works; the settings below are defaults that ``--n-epochs``, ``--config``,
the rest and run_example_debug's small epochs override. With
``--algorithm SAC`` the same task trains SAC's unimodal Gaussian policy.
"""

from softlearning.experiments.definition import (get_trainable_class,
                                                 prepare_args)
from softlearning.experiments.definition import (
    get_variant_spec as _get_spec)

DOMAIN = 'examples.multi_goal.multi_goal_env:MultiGoal'
# This example's defaults of softlearning's options (--help shows them).
OPTION_DEFAULTS = {'algorithm': 'SQL', 'universe': 'gym', 'domain': DOMAIN,
                   'task': 'v0'}

# Variant entries (dotted paths, as with --config) per algorithm; the
# command line's --config comes after them and wins.
CONFIG = {
    'SQL': {
        'algorithm_params.config.reward_scale': 0.1,
        'algorithm_params.config.batch_size': 64,
        'algorithm_params.config.value_n_particles': 16,
        'algorithm_params.config.kernel_n_particles': 32,
        'algorithm_params.config.kernel_update_ratio': 0.5,
        'algorithm_params.config.policy_lr': 3e-4,
        'algorithm_params.config.Q_lr': 3e-4,
        # Hard target copies every 1,000 updates, as in the paper.
        'algorithm_params.config.tau': 1.0,
        'algorithm_params.config.target_update_interval': 1000,
    },
    'SAC': {
        'algorithm_params.config.reward_scale': 0.1,
        'algorithm_params.config.batch_size': 64,
    },
}
COMMON_CONFIG = {
    'algorithm_params.config.n_epochs': 20,
    'algorithm_params.config.epoch_length': 1000,
    'algorithm_params.config.max_path_length': 30,
    'algorithm_params.config.n_initial_exploration_steps': 1000,
    'algorithm_params.config.eval_n_episodes': 10,
    'policy_params.config.hidden_layer_sizes': [64, 64],
    'Q_params.config.hidden_layer_sizes': [64, 64],
    'Q_params.class_name': 'feedforward_Q_function',
}


def get_variant_spec(args):
    # The example's settings rank below the command line's and below
    # run_example_debug's small epochs.
    return _get_spec(args, defaults={**COMMON_CONFIG,
                                     **CONFIG.get(args.algorithm, {})})


__all__ = ['OPTION_DEFAULTS', 'get_trainable_class', 'get_variant_spec',
           'prepare_args']
