"""What a critic's outputs are, and so how its targets and loss are formed.

The update skeleton (fused_updates.py) holds one head for all its critics,
chosen from the critics themselves (``critic_head``):

- ``ScalarHead``: each output is Q(s, a), (B, 1); the target is
  y = r + discount * (1 - d) * (min_i Q'_i(s', a') - next_entropy) and the
  loss 0.5 * mean((Q(s, a) - y)^2);
- ``CategoricalHead``: each output is the logits of the return's
  distribution on fixed atoms (categorical_critics.py); Q(s, a) is its
  expected value, the target the projected distribution of the smallest
  target critic and the loss the cross-entropy to it.

A head's ``targets`` takes the Bellman backup as a function (``bellman``,
the skeleton's ``_bellman_targets`` of one minibatch), so n-step returns
and reward scaling stay the skeleton's and are the same for every head.
A head may report diagnostics of the targets it formed in an update
(``diagnostics``, read in the same trace after the update): a categorical
head the share of the target distribution's mass backed up beyond its
support ('Q_target-clipped'), which the projection clips to the support's
ends. Returns that outgrow the support stall learning with no error (the
critics cannot rank what lies beyond v_max), so the console flags it.

A new kind of critic output is a new head here; an algorithm whose targets
and losses are wholly its own (TQC's quantiles) overrides ``_Q_loss`` and
its targets instead.
"""

import tensorflow as tf

from .categorical_critics import (critics_support, cross_entropy,
                                  expected_values, project_onto_support,
                                  smallest_critic_probabilities)


class ScalarHead:
    """Critics whose outputs are Q(s, a)."""

    support = None

    def diagnostics(self):
        """Nothing to report of scalar targets."""
        return {}

    def estimate(self, outputs):
        """Q(s, a) from one critic's outputs: the outputs themselves."""
        return outputs

    def targets(self, target_outputs, next_entropy, bellman):
        """y (B, 1) from the target critics' outputs at (s', a')."""
        return bellman(tf.reduce_min(tf.stack(target_outputs), axis=0)
                       - next_entropy)

    def loss(self, outputs, y, mean):
        """0.5 * mean((Q(s, a) - y)^2), ``mean`` the minibatch's (masked)
        mean."""
        return 0.5 * mean((outputs - y) ** 2)


class CategoricalHead:
    """Critics whose outputs are logits over ``support``'s atoms."""

    def __init__(self, support):
        self.support = support
        self._diagnostics = {}

    def diagnostics(self):
        """{'Q_target-clipped': the mean share of the target distribution's
        mass whose backed-up atom fell outside the support} of the targets
        formed last in this trace; {} where none were."""
        diagnostics, self._diagnostics = self._diagnostics, {}
        return diagnostics

    def estimate(self, outputs):
        """Q(s, a): the expected value of the outputs' distribution."""
        return expected_values(outputs, self.support)

    def targets(self, target_outputs, next_entropy, bellman):
        """The target distribution (B, N): the smallest target critic's
        probabilities, moved to the backed-up atoms and projected back onto
        the support."""
        probabilities = smallest_critic_probabilities(
            tf.stack(target_outputs), self.support)
        atoms = bellman(self.support[None] - next_entropy)
        outside = tf.cast((atoms > self.support[-1])
                          | (atoms < self.support[0]), probabilities.dtype)
        self._diagnostics = {'Q_target-clipped': tf.reduce_mean(
            tf.reduce_sum(probabilities * outside, axis=-1))}
        return tf.stop_gradient(project_onto_support(
            probabilities, atoms, self.support))

    def loss(self, outputs, y, mean):
        """The cross-entropy of the outputs to the target distribution."""
        return mean(cross_entropy(outputs, y))


def critic_head(Qs, algorithm, trains_categorical):
    """The head of critics ``Qs``: categorical when they carry a support
    (all on one, else a ValueError), scalar otherwise. ``algorithm`` (a
    name) with ``trains_categorical`` False refuses categorical critics."""
    support = critics_support(Qs)
    if support is None:
        return ScalarHead()
    if not trains_categorical:
        raise ValueError(
            f"{algorithm} does not train categorical critics "
            f"(Q_params.config.categorical); SAC, TD3, DDPG, FastTD3 and "
            f"FastSAC do.")
    return CategoricalHead(support)
