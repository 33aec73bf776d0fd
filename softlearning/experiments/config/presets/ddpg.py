"""DDPG (Lillicrap et al. 2016) as TD3 without its three changes
(algorithms/td3.py): one Q-function, no target smoothing, no delay."""

from . import td3

VARIANT = {
    'algorithm_params': {'class_name': 'DDPG'},
    'policy_params': {'class_name': 'FeedforwardDeterministicPolicy'},
    'Q_params': {'class_name': 'feedforward_Q_function'},
}

POLICIES = td3.POLICIES

DOMAINS = td3.DOMAINS
