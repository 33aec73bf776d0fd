"""The critics' target copies and their update.

Q' <- tau * Q + (1 - tau) * Q' over (source, target) variable pairs; the
skeleton (fused_updates.py) runs it every ``target_update_interval``
updates, and an algorithm with a target policy (TD3) adds its pairs.
"""

from softlearning.value_functions import clone_Q_functions


def unique_variables(variables):
    """``variables`` without repeats (twin Q-functions share an encoder)."""
    seen, unique = set(), []
    for variable in variables:
        if variable.ref() not in seen:
            seen.add(variable.ref())
            unique.append(variable)
    return unique


def target_copies(Qs, algorithm, wanted):
    """Target copies of the critics ``Qs``, or () when the algorithm
    ``algorithm`` (a name) bootstraps from its critics themselves
    (``wanted`` False: CrossQ). Critics with batch renormalization are
    refused target copies: the copies' running statistics would never
    move."""
    if not wanted:
        return ()
    if any(getattr(Q, 'batch_renorm', False) for Q in Qs):
        raise ValueError(
            f"Critics with batch renormalization need an algorithm without "
            f"target networks (CrossQ), not {algorithm}.")
    return clone_Q_functions(Qs)


def update_targets(variable_pairs, tau):
    """target <- tau * source + (1 - tau) * target for each pair."""
    for source, target in variable_pairs:
        target.assign(tau * source + (1.0 - tau) * target)
