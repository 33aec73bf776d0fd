"""FastSAC (Seo et al. 2025; the FastTD3 authors' SAC for massively
parallel simulation): SAC (sac.py) with AdamW (weight_decay.py).

One update on a minibatch (s, a, r, d, s') is SAC's, with categorical
critics when the critics are (categorical_critics.py):

  a' ~ pi(.|s'),  k = argmin_i Q'_i(s', a')   (per sample)
  m   = the projection of p'_k at clip(c * sum_j gamma^j r_j
        + gamma^n (1 - d) (z - alpha * log pi(a'|s')), v_min, v_max)
  L_Q = sum_i mean(-sum_j m_j log p_ij(s, a))
  every update:          Q'_i <- tau * Q_i + (1 - tau) * Q'_i
  every policy_delay updates:
    L_pi    = mean(alpha * log pi(a~|s) - min_i Q_i(s, a~))
    L_alpha = -mean(alpha * (log pi(a~|s) + target_entropy))

with the critic and policy steps AdamW's, the temperature's Adam's (as the
authors'). What else makes FastSAC is its preset (presets/fast_sac.py):
FastTD3's categorical critics, running observation normalization, n-step
returns, large batches, two updates per environment step, tau 0.1 and a
small initial temperature (0.001).
"""

from .sac import SAC
from .weight_decay import WeightDecay


class FastSAC(WeightDecay, SAC):
    """SAC, its critics' and policy's optimizers AdamW's."""
