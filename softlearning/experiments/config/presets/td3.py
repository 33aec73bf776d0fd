"""TD3 (Fujimoto et al. 2018): a deterministic policy with Gaussian
exploration noise (0.1), twin Q-functions, target smoothing noise 0.2
clipped at 0.5, the policy and targets updated every 2 updates; learning
rates 3e-4 as in the authors' later code (1e-3 in the paper, used on
Pendulum). Those are the constructors' defaults (algorithms/td3.py)."""

from . import common

VARIANT = {
    'algorithm_params': {'class_name': 'TD3'},
    'policy_params': {'class_name': 'FeedforwardDeterministicPolicy'},
    'Q_params': {'class_name': 'double_feedforward_Q_function'},
}

POLICIES = ('deterministic', 'recurrent')

DOMAINS = {
    'gym/Pendulum': {
        'algorithm_params.config.policy_lr': 1e-3,
        'algorithm_params.config.Q_lr': 1e-3,
        'algorithm_params.config.eval_n_episodes': 5,
    },
    **{f'gym/Fetch{task}': common.FETCH_NORMALIZED_INPUTS
       for task in common.FETCH_MANIPULATION_TASKS},
}
