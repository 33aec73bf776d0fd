"""FastTD3 (Seo et al. 2025, "FastTD3: Simple, Fast, and Capable
Reinforcement Learning for Humanoid Control"): TD3 (td3.py) with
categorical twin critics, no target policy, the policy climbing the
smaller critic, and AdamW.

One update on a minibatch (s, a, r, d, s'), n-step when the pool gives
n-step transitions (replay_pools/n_step_replay_pool.py), deterministic
policy mu:

  eps ~ clip(N(0, target_noise^2), -target_noise_clip, target_noise_clip)
  a'  = clip(mu(s') + eps, -1, 1)       (the policy itself: no target copy)
  k   = argmin_i Q'_i(s', a')           (per sample, on expected values)
  m   = the projection of p'_k at clip(c * sum_j gamma^j r_j
        + gamma^n (1 - d) z, v_min, v_max) onto the atoms z
  L_Q = sum_i mean(-sum_j m_j log p_ij(s, a))   (categorical_critics.py)
  every update:          Q'_i <- tau * Q_i + (1 - tau) * Q'_i
  every policy_delay updates:
    L_mu = -mean(min_i Q_i(s, mu(s)))   (expected values)

with every critic and policy step AdamW's (weight_decay.py). What else makes
FastTD3 is its preset's parts (presets/fast_td3.py): the categorical
critics, running observation normalization ('normalized_mlp' networks), a
per-episode exploration noise between std_min and std_max
(policies/exploration_noise.py), n-step returns, large batches, two updates
per environment step and tau 0.1.
"""

from .td3 import TD3
from .weight_decay import WeightDecay


class FastTD3(WeightDecay, TD3):

    # The authors' targets read the policy itself, and their critics'
    # copies move every update (fast_td3/train.py: no target actor,
    # soft_update after every critic step).
    target_policy = False
    # Their policy climbs min(Q_1, Q_2) (use_cdq).
    policy_critics = None
