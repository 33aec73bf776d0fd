"""What every algorithm's variant starts from: the environment, warm-up
policy, replay pool, sampler and run settings, and the training lengths per
universe and domain.

Values equal to a constructor's default are not written here: the variant
gets them from the constructors (``variants.with_constructor_defaults``), so
``params.json`` still records every value a trial ran with.
"""

VARIANT = {
    'exploration_policy_params': {'class_name': 'UniformPolicy',
                                  'config': {}},
    'replay_pool_params': {'class_name': 'SimpleReplayPool',
                           'config': {'max_size': int(1e6)}},
    'sampler_params': {'class_name': 'SimpleSampler', 'config': {}},
    'algorithm_params': {'config': {
        # Environment steps collected between fused update calls (see
        # algorithms/rl_algorithm.py): one compiled call per 50 steps.
        'fused_steps': 50,
        'eval_n_episodes': 3,
        # Epochs of 1,000 steps (the constructor's epoch_length), episodes
        # of at most 1,000 (max_path_length), 10,000 uniform warm-up steps.
        'n_epochs': 200,
        'n_initial_exploration_steps': 10000,
    }},
    # Environment-parameter curriculum (softlearning/curriculum/), or None.
    'curriculum': None,
    'run_params': {
        'checkpoint_at_end': True,
        'checkpoint_frequency': 0,
        'checkpoint_replay_pool': False,
        # A checkpoint folder a new trial starts from (--restore).
        'restore': None,
        'run_eagerly': False,
        # tf.config.experimental.enable_op_determinism (--deterministic-ops).
        'deterministic_ops': False,
        'tf_num_threads': None,
    },
}

# Per universe, then per universe/domain: variant entries by their dotted
# paths, as with --config.
DOMAINS = {
    'gym/Pendulum': {
        # 10,000 steps: the quick start.
        'algorithm_params.config.n_epochs': 10,
        'algorithm_params.config.max_path_length': 200,
        'algorithm_params.config.n_initial_exploration_steps': 1000,
    },
    'gym/HalfCheetah': {'algorithm_params.config.n_epochs': 3000},
    'gym/Hopper': {'algorithm_params.config.n_epochs': 1000},
    'gym/Walker2d': {'algorithm_params.config.n_epochs': 3000},
    'gym/Ant': {'algorithm_params.config.n_epochs': 3000},
    'gym/Humanoid': {'algorithm_params.config.n_epochs': 10000},
    'dm_control': {'algorithm_params.config.n_epochs': 1000},
    'pybullet': {'algorithm_params.config.n_epochs': 1000},
}

# gymnasium-robotics' Fetch tasks (sparse rewards, 50-step episodes, goals in
# the observations): hindsight relabeling (HINDSIGHT_DOMAINS), discount 0.95
# and learning rates 1e-3, as rl-baselines3-zoo's settings for them and the
# HER papers; Reach: 1,000 warm-up steps and 20,000 in all (the zoo's).
# Push, PickAndPlace and Slide (1,000,000 steps) as the HER papers'
# many-worker DDPG sees them: three layers of 256, target smoothing 0.05, and
# much more data per update with far fewer updates per step: 8 environments
# per sampler, one update of 1,024 transitions per 4 steps, observations and
# goals normalized by running statistics in front of the actor and the
# critics (a normalized_mlp; presets/sac.py, td3.py). One environment with
# one update of 256 per step never left the at-goal start's share of
# successes on FetchPush in 300,000 steps; with these settings two of the
# fetch_her suite's three seeds did within 100,000
# (docs/benchmarks/fetch-her.md). The zoo's TQC has 512 x 3 and batches of
# 2,048: a GPU's setting.
FETCH = {
    'algorithm_params.config.discount': 0.95,
    'algorithm_params.config.policy_lr': 1e-3,
    'algorithm_params.config.Q_lr': 1e-3,
    'algorithm_params.config.max_path_length': 50,
    'algorithm_params.config.n_initial_exploration_steps': 1000,
    'algorithm_params.config.eval_n_episodes': 10,
}
FETCH_MANIPULATION = {
    **FETCH,
    'algorithm_params.config.n_epochs': 1000,
    'algorithm_params.config.tau': 0.05,
    # 1,000 uniform random steps per environment.
    'algorithm_params.config.n_initial_exploration_steps': 8000,
    'algorithm_params.config.batch_size': 1024,
    'algorithm_params.config.train_every_n_steps': 4,
    # A multiple of the update interval and of the environments per sampler.
    'algorithm_params.config.fused_steps': 64,
    'sampler_params.config.envs_per_sampler': 8,
    'policy_params.config.hidden_layer_sizes': (256, 256, 256),
    'Q_params.config.hidden_layer_sizes': (256, 256, 256),
}
FETCH_MANIPULATION_TASKS = ('Push', 'PickAndPlace', 'Slide')
# For the agents whose networks are plain MLPs (SAC's and TD3's presets and
# theirs): others keep their own (CrossQ's batch renormalization, SimbaV2's).
FETCH_NORMALIZED_INPUTS = {
    'policy_params.config.network': 'normalized_mlp',
    'Q_params.config.network': 'normalized_mlp',
}
FETCH_DOMAINS = {
    'gym/FetchReach': {**FETCH, 'algorithm_params.config.n_epochs': 20},
    **{f'gym/Fetch{task}': FETCH_MANIPULATION
       for task in FETCH_MANIPULATION_TASKS},
}
DOMAINS.update(FETCH_DOMAINS)
# Goal-conditioned domains: an agent whose pool is a SimpleReplayPool gets
# a HindsightReplayPool relabeling 'future' goals, 4 per real one (--her;
# variants.set_hindsight).
HINDSIGHT_DOMAINS = {name: 'future' for name in FETCH_DOMAINS}

# run_example_debug: eager TensorFlow runs ~10 updates/s, so epochs are tiny.
DEBUG = {
    'algorithm_params.config.n_epochs': 2,
    'algorithm_params.config.epoch_length': 100,
    'algorithm_params.config.n_initial_exploration_steps': 50,
    'algorithm_params.config.eval_n_episodes': 1,
    'run_params.run_eagerly': True,
}
