"""--observation pixels: SAC from rendered frames, the recipe of DrQ
(Kostrikov et al. 2020) and SAC-AE (Yarats et al. 2019) sized for CPUs.

The encoder (models/conv_encoder.py) is DrQ's but for its second stride (2
instead of 1) and 64x64 frames instead of 84x84: ~6x fewer multiply-adds
per frame. DrQ's exact network: --config
environment_params.training.pixels.image_size=84 --config
encoder_params.config.strides=[2,1,1,1]. The per-domain action repeats are
in softlearning/environments/pixels.py.
"""

# What --observation pixels trains (algorithm, policy kind).
TRAINS = ('SAC', 'gaussian')

VARIANT = {
    'environment_params': {'training': {'pixels': {'image_size': 64,
                                                   'frame_stack': 3}}},
    'encoder_params': {'class_name': 'ConvEncoder',
                       'config': {'filters': (32, 32, 32, 32),
                                  'strides': (2, 2, 1, 1),
                                  'feature_size': 50}},
    'replay_pool_params': {'class_name': 'FrameReplayPool',
                           'config': {'max_size': 100000}},
    'algorithm_params': {'config': {
        'batch_size': 128, 'policy_lr': 1e-3, 'Q_lr': 1e-3,
        'alpha_lr': 1e-3, 'initial_alpha': 0.1, 'tau': 0.01,
        'augmentation_pad': 4, 'n_initial_exploration_steps': 1000,
        'eval_n_episodes': 5}},
}

DOMAINS = {}

# Lengths in simulator steps; an epoch and an episode count policy steps,
# each ``action_repeat`` simulator steps (variants.finish_pixels).
SIMULATOR_STEPS = {
    'epoch_length': 8000,
    'max_path_length': 1000,
    'total': 500000,
}
