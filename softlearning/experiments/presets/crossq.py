"""CrossQ (Bhatt et al. 2024): SAC without target networks, with batch
renormalization in the critics and the actor and one joint pass over the
current and next state-actions (algorithms/crossq.py). The paper's
settings: learning rates 1e-3, Adam's beta1 0.5, the policy (and
temperature) updated every 3 critic updates, the actor 256-256, and wide
critics: 2048-2048 in the paper (a GPU setting), 1024-1024 in SBX. On a
2-core CPU CRITIC_WIDTH below is what the update rate affords
(README, Performance); --config Q_params.config.hidden_layer_sizes=[2048,2048]
for the paper's. The rest is SAC's."""

from . import sac

CRITIC_WIDTH = 512

VARIANT = {
    'algorithm_params': {'class_name': 'CrossQ', 'config': {
        'policy_lr': 1e-3, 'Q_lr': 1e-3, 'alpha_lr': 1e-3,
        'adam_beta1': 0.5, 'policy_delay': 3}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy',
                      'config': {'batch_renorm': True}},
    'Q_params': {'class_name': 'double_feedforward_Q_function', 'config': {
        'batch_renorm': True,
        'hidden_layer_sizes': (CRITIC_WIDTH, CRITIC_WIDTH)}},
}

POLICIES = ('gaussian',)

DOMAINS = sac.DOMAINS
