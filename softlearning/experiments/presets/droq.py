"""DroQ (Hiraoka et al. 2022): REDQ's update (algorithms/redq.py) with two
Q-functions whose hidden layers have dropout (0.01) and LayerNorm instead
of REDQ's ensemble of ten; 20 updates per environment step, the policy
every 20 (as SBX runs it). 20 updates per step cost 20 times SAC's per
step. The rest is SAC's."""

from . import sac

VARIANT = {
    'algorithm_params': {'class_name': 'DroQ', 'config': {
        # (and target_subset_size 2, the constructor's default: both)
        'n_train_repeat': 20, 'policy_delay': 20}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy'},
    'Q_params': {'class_name': 'feedforward_Q_functions',
                 # (two of them: the default n_Q_functions)
                 'config': {'dropout_rate': 0.01, 'layer_norm': True}},
}

POLICIES = ('gaussian',)

DOMAINS = sac.DOMAINS
