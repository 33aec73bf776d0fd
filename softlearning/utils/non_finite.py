"""Numbers that must stay finite: what the environment and the policy
return at every step, and the losses of every update.

A non-finite one ends the trial with ``NonFiniteError``, one line that
names what went non-finite, where and when. Tune does not retry it (the
same checkpoint would diverge the same way), and the checkpoint before it
stays the trial's last one: nothing is saved once a number has gone bad,
because the error ends the epoch before its checkpoint.
"""

import math

import numpy as np

HINT = ("The checkpoint before it is kept; check the environment's "
        "observations and rewards, or lower the learning rates.")


class NonFiniteError(Exception):
    """A NaN or an infinity where training cannot go on: its message (one
    line) names the number, where and when."""


def describe(array):
    """Which entry of ``array`` is the first non-finite one ('nan at index
    3'), or None when all are finite (integer arrays always are)."""
    array = np.asarray(array)
    if array.dtype.kind not in 'fc' or np.isfinite(array).all():
        return None
    if array.ndim == 0:
        return str(array.item())
    index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
    return (f'{array[index]} at index '
            f'{index[0] if len(index) == 1 else index}')


def check_step(environment, action, observation, reward, when):
    """Raises NonFiniteError if the policy's ``action`` or the environment's
    ``observation`` (a dict) or ``reward`` is not finite. ``when``: e.g.
    'at step 30 of episode 2'."""
    problem = describe(action)
    if problem is not None:
        raise NonFiniteError(
            f"The policy returned a non-finite action ({problem}) {when} "
            f"of {_name(environment)}. {HINT}")
    check_observation(environment, observation, when)
    if not math.isfinite(reward):
        raise NonFiniteError(
            f"The environment {_name(environment)} returned a non-finite "
            f"reward ({reward}) {when}. {HINT}")


def check_observation(environment, observation, when):
    for key, value in observation.items():
        problem = describe(value)
        if problem is not None:
            raise NonFiniteError(
                f"The environment {_name(environment)} returned a non-finite "
                f"observation '{key}' ({problem}) {when}. {HINT}")


def check_losses(diagnostics, when):
    """Raises NonFiniteError naming the losses among ``diagnostics`` ({name:
    float}) that are not finite."""
    bad = [f'{key} = {value}' for key, value in diagnostics.items()
           if 'loss' in key and not math.isfinite(value)]
    if bad:
        raise NonFiniteError(
            f"Training went non-finite: {', '.join(bad)} {when}. {HINT}")


def message(error):
    """The one line of a NonFiniteError, also when Ray wraps it (a sampler
    actor's: its cause holds it)."""
    cause = getattr(error, 'cause', None)
    if isinstance(cause, NonFiniteError):
        error = cause
    return str(error).splitlines()[0] if str(error) else ''


def _name(environment):
    parts = [getattr(environment, name, None)
             for name in ('universe', 'domain', 'task')]
    if all(parts):
        return '/'.join(map(str, parts))
    return type(environment).__name__
