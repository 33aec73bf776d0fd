"""DroQ (Hiraoka et al. 2022): REDQ's update and settings (presets/redq.py:
20 updates per environment step, the policy every 20) on two Q-functions
whose hidden layers have dropout (0.01) and LayerNorm instead of REDQ's
ensemble of ten, as SBX runs it. 20 updates per step cost 20 times SAC's per
step. The rest is SAC's."""

from . import redq

VARIANT = {
    **redq.VARIANT,
    # Without REDQ's XLA: dropout masks drawn under XLA ran at 5.9 env
    # steps/s against 91 without it.
    'algorithm_params': {'class_name': 'DroQ', 'config': {
        key: value for key, value
        in redq.VARIANT['algorithm_params']['config'].items()
        if key != 'jit_compile'}},
    # (two of them: the default n_Q_functions)
    'Q_params': {'class_name': 'feedforward_Q_functions',
                 'config': {'dropout_rate': 0.01, 'layer_norm': True}},
}

POLICIES = redq.POLICIES

DOMAINS = redq.DOMAINS
