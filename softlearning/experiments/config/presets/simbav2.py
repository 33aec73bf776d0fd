"""SimbaV2 (Lee et al. 2025, "Hyperspherical Normalization for Scalable
Deep Reinforcement Learning"): SAC on SimbaV2 networks (models/simbav2.py:
running observation normalization, hyperspherical weights and features,
learned scalers, LERP residual blocks) with categorical critics
(algorithms/categorical_critics.py: 101 atoms on [-5, 5], the target from
the twin whose expected value is the smaller, cross-entropy loss).

The paper's settings kept: learning rates 1e-4 for the actor, the critics
and the temperature, each decayed linearly to half (5e-5) over the run's
updates (algorithms/learning_rate_decay.py), initial temperature 0.01,
target entropy -|A| / 2, tau 0.005, batch 256, one update per environment
step (the paper's MuJoCo setting; its DMC runs update twice per step, one
per repeated action), twin critics with clipped double Q (the paper's
setting for episodic tasks), the discount from the episode length
(algorithms/discounts.py: 0.975 for Pendulum's 200 steps, 0.995 for
MuJoCo's 1,000), and an actor whose mean and log-std have a head each
(models/simbav2.py's HypersphericalHeads). The log-std is clipped to
[-20, 2] as every Gaussian policy's here (the authors squash it into
[-10, 2] with a tanh). The widths (a 2-core CPU setting): the actor has one
block of 128 as the paper's; the critics have two blocks of 128 (the paper:
two of 512), --config Q_params.config.hidden_layer_sizes=[512,512] for
theirs.

Rewards: divided by the running spread of the discounted return, bounded
so that every return seen stays within +-5, the critics' support
(algorithms/reward_normalization.py), as the paper's.
"""

VARIANT = {
    'algorithm_params': {'class_name': 'SimbaV2', 'config': {
        'policy_lr': 1e-4, 'Q_lr': 1e-4, 'alpha_lr': 1e-4,
        'initial_alpha': 0.01, 'target_entropy_per_dimension': -0.5,
        'lr_decay_to': 0.5, 'discount': 'auto',
        # XLA fuses the hyperspherical normalizations' elementwise work:
        # 32.4 env steps/s against 28.4 without it on one thread of a 2-core
        # CPU (benchmarks/throughput.py --algorithm SimbaV2 --threads 1).
        'jit_compile': True,
        'reward_normalization': {'g_max': 5.0}}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy', 'config': {
        'network': 'simbav2', 'hidden_layer_sizes': (128,)}},  # paper: (128,)
    'Q_params': {'class_name': 'double_feedforward_Q_function', 'config': {
        'network': 'simbav2',
        'hidden_layer_sizes': (128, 128),  # paper: (512, 512)
        'categorical': {'n_atoms': 101, 'v_min': -5.0, 'v_max': 5.0}}},
}

POLICIES = ('gaussian',)

DOMAINS = {
    'gym/Pendulum': {'algorithm_params.config.eval_n_episodes': 5},
}
