"""Soft Actor-Critic (Haarnoja et al. 2018) with automatic entropy tuning:
a Gaussian policy squashed by tanh and twin Q-functions of 256-256 units.
Its learning rates (3e-4), discount (0.99), target smoothing (tau 0.005),
initial temperature (1) and target entropy (-|A|) are the constructors'
defaults (algorithms/sac.py, fused_updates.py)."""

from . import common

VARIANT = {
    'algorithm_params': {'class_name': 'SAC'},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy'},
    'Q_params': {'class_name': 'double_feedforward_Q_function'},
}

# The policies SAC trains (--policy); the first is the default.
POLICIES = ('gaussian', 'recurrent')

# The temperature's learning rate beside the others' on the Fetch tasks
# (presets/common.py), as SB3's single learning rate has it.
FETCH_ALPHA_LR = {'algorithm_params.config.alpha_lr': 1e-3}

DOMAINS = {
    # Pendulum's 200-step episodes and small state learn faster with a
    # larger learning rate (as in common tuned SAC settings).
    'gym/Pendulum': {
        'algorithm_params.config.policy_lr': 1e-3,
        'algorithm_params.config.Q_lr': 1e-3,
        'algorithm_params.config.alpha_lr': 1e-3,
        'algorithm_params.config.eval_n_episodes': 5,
    },
    'gym/FetchReach': FETCH_ALPHA_LR,
    # Observations and goals normalized by running statistics on the
    # manipulation tasks (presets/common.py's FETCH_MANIPULATION).
    **{f'gym/Fetch{task}': {**FETCH_ALPHA_LR,
                            **common.FETCH_NORMALIZED_INPUTS}
       for task in common.FETCH_MANIPULATION_TASKS},
}
