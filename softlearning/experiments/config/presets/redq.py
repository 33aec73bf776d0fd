"""REDQ (Chen et al. 2021): SAC with 10 Q-functions, the target's minimum
over a random 2 of them, 20 updates per environment step and the policy
updated every 20 (algorithms/redq.py). 20 updates per step cost 20 times
SAC's per step: on a 2-core CPU a HalfCheetah run of 100,000 steps takes
hours. The rest is SAC's."""

from . import sac

VARIANT = {
    'algorithm_params': {'class_name': 'REDQ', 'config': {
        # (and target_subset_size 2, the constructor's default)
        'n_train_repeat': 20, 'policy_delay': 20,
        # XLA fuses the ten critics' small ops: 50.2 against 47.5 env
        # steps/s at the preset's sizes, 334 against 217 with 64-64
        # networks and 3 updates per step (benchmarks/throughput.py
        # --algorithm REDQ --threads 1).
        'jit_compile': True}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy'},
    'Q_params': {'class_name': 'feedforward_Q_functions',
                 'config': {'n_Q_functions': 10}},
}

POLICIES = ('gaussian',)

DOMAINS = sac.DOMAINS
