"""FastTD3 (Seo et al. 2025, "FastTD3: Simple, Fast, and Capable
Reinforcement Learning for Humanoid Control"): TD3 with categorical twin
critics, running observation normalization, a per-episode exploration noise,
n-step returns, AdamW and large batches (algorithms/fast_td3.py).

The authors' settings (github younggyoseo/FastTD3, fast_td3/hyperparams.py
and train.py: their defaults, HumanoidBench's) kept: two updates at a
time, the policy on every second; tau 0.1, the critics' copies
moving every update and no target policy; learning rates 3e-4 with AdamW's
weight decay 0.1; discount 0.99; 101 atoms on [-250, 250] (the authors set
the support per task, from +-10 on MuJoCo Playground to +-10,000); target
smoothing noise 0.001 clipped at 0.5; each episode's exploration noise drawn
between 0.001 and 0.4 (policies/exploration_noise.py); observations
normalized by their running mean and variance ('normalized_mlp' networks);
three hidden layers each halving the width. What a 2-core CPU affords
instead (each the authors' value, then ours): 128 to 4,096 environments
stepped at once, 8 (one on Pendulum); 2 updates per step of all of them,
2 per 4 environment steps (per step on Pendulum); batch 32,768, 512;
critics 1024-512-256, 512-256-128; actor 512-256-128, 256-128-64; n-step 1
(HumanoidBench; 3 on DeepMind Control, 8 on IsaacLab locomotion), 3 (as
on DeepMind Control); bfloat16 autocast and torch.compile, float32 and
tf.function. On Pendulum (DOMAINS) the support is [-1600, 0]: its rewards
reach -16 per step, its discounted returns -1600. The rest (buffer,
warm-up, the normalization's epsilon): docs/algorithms/fasttd3.md.
"""

# What a 2-core CPU affords (the authors': 1024-512-256 critics,
# 512-256-128 actor, batch 32,768, n-step 1 on HumanoidBench).
CRITIC_SIZES = (512, 256, 128)
ACTOR_SIZES = (256, 128, 64)
BATCH = 512

CRITICS = {'class_name': 'double_feedforward_Q_function', 'config': {
    'hidden_layer_sizes': CRITIC_SIZES, 'network': 'normalized_mlp',
    'categorical': {'n_atoms': 101, 'v_min': -250.0, 'v_max': 250.0}}}

# Environments per sampler, and the environment steps per pair of updates.
# The authors take 2 updates per step of 128 to 4,096 environments: data
# is nearly free on their GPU simulators, updates are what a run affords.
# On one CPU core these updates run at about 80 per second (an AMD EPYC with
# AVX-512, benchmarks/results/vector/end_to_end.jsonl), about 140,000 in a
# per-hour run's 30 minutes: 2 updates per 4 steps spend them over the
# 300,000 steps such a run may take. 8 environments per sampler collect
# those steps with one policy call per 8 (docs/benchmarks/performance.md);
# any K keeps the ratio.
ENVS_PER_SAMPLER = 8
STEPS_PER_UPDATE_PAIR = 4

# What FastSAC's preset shares (presets/fast_sac.py). (The policy every
# 2nd update: TD3's policy_delay; FastSAC's preset sets it.)
SHARED = {
    'algorithm_params.config': {
        'tau': 0.1, 'batch_size': BATCH, 'n_train_repeat': 2,
        'train_every_n_steps': STEPS_PER_UPDATE_PAIR,
        # 8 vector steps, 32 updates per compiled call.
        'fused_steps': 8 * ENVS_PER_SAMPLER},
    # (3-step returns: the pool's default n_step.)
    'replay_pool_params': {'class_name': 'NStepReplayPool', 'config': {}},
    'sampler_params': {'config': {'envs_per_sampler': ENVS_PER_SAMPLER}},
}

VARIANT = {
    'algorithm_params': {'class_name': 'FastTD3', 'config': {
        **SHARED['algorithm_params.config'], 'target_noise': 0.001}},
    'policy_params': {'class_name': 'FeedforwardDeterministicPolicy',
                      'config': {
                          'hidden_layer_sizes': ACTOR_SIZES,
                          'network': 'normalized_mlp',
                          'exploration_noise': {'std_min': 0.001,
                                                'std_max': 0.4}}},
    'Q_params': CRITICS,
    'replay_pool_params': SHARED['replay_pool_params'],
    'sampler_params': SHARED['sampler_params'],
}

POLICIES = ('deterministic',)


def _support(v_min, v_max):
    return {'Q_params.config.categorical': {
        'n_atoms': 101, 'v_min': v_min, 'v_max': v_max}}


# The support must hold the task's discounted returns (discount 0.99: about
# a hundred steps of reward): targets beyond it are clipped to its ends, and
# critics whose values sit at v_max cannot rank what lies beyond (on
# HalfCheetah-v5 the default +-250 held FastTD3 at about 3,700 from 25,000
# steps on, its mean Q at 243; docs/algorithms/fasttd3.md). Per task, from
# the rewards of good policies: gymnasium's v5 tasks about 17 per step at
# most on HalfCheetah, 5 on Hopper, 7 on Walker2d and Ant, 12 on Humanoid;
# dm_control's at most 1 per frame, 2 with the action repeated twice.
DOMAINS = {
    'dm_control': _support(-50.0, 250.0),
    'gym/HalfCheetah': _support(-500.0, 2000.0),
    'gym/Hopper': _support(-100.0, 600.0),
    'gym/Walker2d': _support(-100.0, 800.0),
    'gym/Ant': _support(-100.0, 800.0),
    'gym/Humanoid': _support(-100.0, 1500.0),
    # Pendulum's updates are cheap and its runs short: one environment,
    # two updates per step (what the learning tests calibrate).
    'gym/Pendulum': {
        **_support(-1600.0, 0.0),
        'algorithm_params.config.eval_n_episodes': 5,
        'sampler_params.config.envs_per_sampler': 1,
        'algorithm_params.config.train_every_n_steps': 1,
        'algorithm_params.config.fused_steps': 50,
    },
}
