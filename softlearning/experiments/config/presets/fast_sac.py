"""FastSAC (Seo et al. 2025, the FastTD3 authors' SAC for massively parallel
simulation): SAC with FastTD3's categorical twin critics, running
observation normalization, n-step returns, AdamW and large batches
(algorithms/fast_sac.py).

The authors' settings (github younggyoseo/FastTD3, branch fastsac:
fast_sac/hyperparams.py and train.py) are FastTD3's (presets/fast_td3.py:
two updates per environment step, the policy and the temperature on every
second, tau 0.1, learning rates 3e-4 with AdamW's weight decay 0.1, discount
0.99, three hidden layers each halving the width) with a squashed Gaussian
policy, an initial temperature of 0.001 and the target entropy -|A|
(the temperature's optimizer plain Adam at 3e-4). That branch's critics
predict the return itself (mean squared error); the later FastSAC of the
authors' humanoid work (github amazon-far/holosoma) has categorical ones,
101 atoms on [-20, 20], as FastTD3's; so does this preset, on FastTD3's
support. Their
policy's log-std lies in [-5, 2] (a tanh squashes it there); ours is
clipped to [-20, 2], as every Gaussian policy's here. The sizes a 2-core
CPU affords are FastTD3's (presets/fast_td3.py).
"""

from . import fast_td3

VARIANT = {
    'algorithm_params': {'class_name': 'FastSAC', 'config': {
        **fast_td3.SHARED['algorithm_params.config'],
        'policy_delay': 2, 'initial_alpha': 0.001}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy', 'config': {
        'hidden_layer_sizes': fast_td3.ACTOR_SIZES,
        'network': 'normalized_mlp'}},
    'Q_params': fast_td3.CRITICS,
    'replay_pool_params': fast_td3.SHARED['replay_pool_params'],
    'sampler_params': fast_td3.SHARED['sampler_params'],
}

POLICIES = ('gaussian',)

DOMAINS = fast_td3.DOMAINS
