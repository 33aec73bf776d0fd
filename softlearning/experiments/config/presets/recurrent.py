"""--policy recurrent: the algorithm's recurrent policy and Q-functions (an
LSTM summarizer before the MLP) and a pool of sequences, for partially
observed tasks (--pomdp). Small on purpose: an LSTM update costs about as
much as the sequence is long, and 2-CPU machines are the target."""

# Per algorithm: the recurrent policy and Q-functions.
CLASSES = {
    'SAC': ('RecurrentGaussianPolicy', 'double_recurrent_Q_function'),
    'TD3': ('RecurrentDeterministicPolicy', 'double_recurrent_Q_function'),
    'DDPG': ('RecurrentDeterministicPolicy', 'recurrent_Q_function'),
}

# 64 LSTM units (the constructors' default) before a 128-128 MLP.
NETWORK = {'hidden_layer_sizes': (128, 128)}

VARIANT = {
    'policy_params': {'config': NETWORK},
    'Q_params': {'config': NETWORK},
    # Minibatches of batch_size windows of burn_in + sequence_length steps.
    'algorithm_params': {'config': {'batch_size': 32}},
    # Windows of 8 burn-in + 16 trained steps (the pool's defaults).
    'replay_pool_params': {'class_name': 'SequenceReplayPool'},
}

# Smaller where that learns as well: Pendulum needs two observations to
# tell the angular velocity (positions only), and learns with a third of
# the default's cost per update.
DOMAINS = {
    'gym/Pendulum': {
        'policy_params.config.lstm_units': 32,
        'policy_params.config.hidden_layer_sizes': (64, 64),
        'Q_params.config.lstm_units': 32,
        'Q_params.config.hidden_layer_sizes': (64, 64),
        'replay_pool_params.config.sequence_length': 8,
        'replay_pool_params.config.burn_in': 4,
    },
}


def variant(algorithm):
    """The recurrent form's variant entries for ``algorithm``."""
    policy, Q_function = CLASSES[algorithm]
    return {**VARIANT,
            'policy_params': {**VARIANT['policy_params'],
                              'class_name': policy},
            'Q_params': {**VARIANT['Q_params'], 'class_name': Q_function}}
