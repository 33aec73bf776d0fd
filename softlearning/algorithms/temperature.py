"""The forms of SAC's temperature loss (``temperature_loss``), checked
without TensorFlow: by the algorithm when built, and by the variant before
a run starts (experiments/config/value_types.py).

Both push log(alpha) the same way, down while the policy's entropy is above
its target and up while below; they differ in the step's size:

- 'alpha': L = -alpha * (log pi + target entropy), as CleanRL's and the
  SAC paper's; its gradient in log(alpha) is alpha times the entropy's
  shortfall, so a small temperature moves slowly;
- 'log_alpha': L = -log(alpha) * (log pi + target entropy), as SB3's and
  SBX's; the gradient is the shortfall itself, at any temperature.
"""

from softlearning.utils.registry import check_choice

TEMPERATURE_LOSSES = ('alpha', 'log_alpha')


def check_temperature_loss(value):
    """``value``, or one ValueError naming the valid forms."""
    return check_choice(value, TEMPERATURE_LOSSES, 'temperature_loss')
