"""Decoupled weight decay (Loshchilov and Hutter 2019, AdamW) of the
critics' and the policy's weights, as FastTD3 and FastSAC (Seo et al. 2025)
train them with torch.optim.AdamW (weight decay 0.1).

Mixed in before an algorithm (``class FastTD3(WeightDecay, TD3)``), it adds
the ``weight_decay`` keyword; the update skeleton (fused_updates.py) gives
it to the critics' and the policy's optimizers, whose every step then
starts with

    w <- w - learning_rate * weight_decay * w

(Keras's Adam with ``weight_decay``, the same arithmetic as PyTorch's
AdamW) on every trainable weight, biases included, as the authors'. Other
optimizers (SAC's temperature) stay plain Adam, as the authors' are.
Running statistics (observation normalization) are not trainable and not
decayed.
"""


class WeightDecay:

    def __init__(self, *args, weight_decay=0.1, **kwargs):
        """``weight_decay``: the decay per unit of learning rate (0 or None
        for none: plain Adam)."""
        self.weight_decay = float(weight_decay) if weight_decay else None
        super().__init__(*args, **kwargs)
