"""Soft Q-Learning (Haarnoja et al. 2017) as in the original softlearning
code: a sampling-network policy trained by amortized SVGD, 128-128 networks
and batches of 128 (its update evaluates the networks on many particles per
state). For SQL the reward scale is the inverse temperature (alpha is 1):
the original per-domain values below."""

VARIANT = {
    # 16 uniform actions per next state for the soft value V(s'), 16 policy
    # samples per state for SVGD, half of them updated: the constructor's
    # defaults (algorithms/sql.py).
    'algorithm_params': {'class_name': 'SQL', 'config': {'batch_size': 128}},
    'policy_params': {'class_name': 'FeedforwardSamplingPolicy',
                      'config': {'hidden_layer_sizes': (128, 128)}},
    'Q_params': {'class_name': 'double_feedforward_Q_function',
                 'config': {'hidden_layer_sizes': (128, 128)}},
}

POLICIES = ('sampling',)

DOMAINS = {
    'gym/Swimmer': {'algorithm_params.config.reward_scale': 30},
    'gym/Hopper': {'algorithm_params.config.reward_scale': 30},
    'gym/HalfCheetah': {'algorithm_params.config.reward_scale': 30},
    'gym/Walker2d': {'algorithm_params.config.reward_scale': 10},
    'gym/Ant': {'algorithm_params.config.reward_scale': 300},
    'gym/Humanoid': {'algorithm_params.config.reward_scale': 100},
    'gym/Pendulum': {
        'algorithm_params.config.policy_lr': 1e-3,
        'algorithm_params.config.Q_lr': 1e-3,
        'algorithm_params.config.eval_n_episodes': 5,
    },
}
