"""CrossQ (Bhatt et al. 2024): SAC without target networks, with batch
renormalization in the critics and the actor and one joint pass over the
current and next state-actions (algorithms/crossq.py). The paper's
settings: learning rates 1e-3, Adam's beta1 0.5, the policy (and
temperature) updated every 3 critic updates, and wide critics: 2048-2048 in
the paper (a GPU setting), 1024-1024 in SBX. On a 2-core CPU the preset's
critics are CRITIC_WIDTH wide, as SAC's: 512 costs 3 times the time per
update, 1024 11 times (docs/benchmarks/performance.md); --config
Q_params.config.hidden_layer_sizes=[1024,1024] for SBX's. The rest is
SAC's."""

from . import common, sac

# (The constructors' default width, so the variant below need not say it.)
CRITIC_WIDTH = 256

VARIANT = {
    'algorithm_params': {'class_name': 'CrossQ', 'config': {
        'policy_lr': 1e-3, 'Q_lr': 1e-3, 'alpha_lr': 1e-3,
        'adam_beta1': 0.5, 'policy_delay': 3,
        # XLA fuses batch renormalization's elementwise work: 196 updates/s
        # against 100 without it on a 2-core CPU (benchmarks/throughput.py).
        'jit_compile': True}},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy',
                      'config': {'batch_renorm': True}},
    'Q_params': {'class_name': 'double_feedforward_Q_function',
                 'config': {'batch_renorm': True}},
}

POLICIES = ('gaussian',)

DOMAINS = {
    **sac.DOMAINS,
    # Batch renormalization normalizes the inputs itself: not SAC's
    # normalized_mlp on the Fetch manipulation tasks.
    **{f'gym/Fetch{task}': sac.FETCH_ALPHA_LR
       for task in common.FETCH_MANIPULATION_TASKS},
    # The critics' batch renormalization never leaves its warm-up (batch
    # normalization with the minibatch's statistics throughout): on
    # Humanoid-v5 the preset's runs fell back once it switched to
    # renormalizing after 100,000 updates; without the switch their last
    # five evaluations to 200,000 steps averaged 3,097 and 3,327, against
    # 687 and 839 with it (seeds 10, 11; examples/benchmarks/ablations/
    # crossq_humanoid_renorm_warmup.yaml, docs/benchmarks/frontier-hard.md).
    'gym/Humanoid': {'Q_params.config.batch_renorm': {'warmup_steps': None}},
    # dog's touch sensors read below about 2,000 in most steps and up to
    # 75,000 in a few; with them the first epoch's critics' loss reached
    # 2.7e7 and 6.3e9 and the critics diverged in the hour (seed 0 after
    # 170,000 steps, seed 1 by 100,000). Through symlog: 41 and 37, and the
    # critics held to 230,000 steps (seed 0) and 200,000 (seed 1)
    # (examples/benchmarks/ablations/crossq_dog_symlog.yaml,
    # docs/benchmarks/frontier-hard.md). Evaluation sees what training does;
    # 'none' turns it off. With symlog alone seed 1's critics still ran
    # away between 200,000 and 210,000 steps (mean Q 21 to 122, evaluations
    # 100 to 13); with the temperature's loss on log(alpha) as well, as
    # SB3's and SBX's, they held to 230,000 (mean Q 19, evaluation 110;
    # examples/benchmarks/ablations/crossq_dog_log_alpha.yaml). Both were
    # found while the policy's log-probability of a sampled action lost its
    # precision under XLA (policies/gaussian_policy.py), which then diverged
    # a run that had both; ablations/crossq_dog_log_prob_fix.yaml asks
    # whether they are still needed without that fault.
    'dm_control/dog': {
        **{f'environment_params.{which}.kwargs.observation_transform':
           'symlog' for which in ('training', 'evaluation')},
        'algorithm_params.config.temperature_loss': 'log_alpha'},
}
