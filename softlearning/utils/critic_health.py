"""Critics that diverge without a NaN: a run can train on to its end with
its critics' loss a million times what it was, its evaluations fallen to a
random policy's, and every number finite (non_finite.py beside it stops only
non-finite ones). The end-of-run report names such a run instead of
letting it pass as a plain [OK].

The sign: the critics' loss of the last epoch (``Q_loss``, the epoch's
mean) at least DIVERGENCE_RATIO times the median over the run's epochs
after the first (the first holds the warm-up's outliers). Over the
committed runs of benchmarks/results (186 of ours with that column: SAC,
TD3, TQC, CrossQ, REDQ, FastSAC and the others, MuJoCo, dm_control and
Fetch), the runs that stayed healthy end at most 4.1 times their median;
the seven whose critics ran away (dog-run, before the log-probability fix
and in the ablations) end 280 times it or more, most above 70,000 times.
``python -m softlearning.utils.critic_health benchmarks/results``
lists every run's ratio again.
"""

import math
import statistics
import sys

DIVERGENCE_RATIO = 100.0
COLUMN = 'Q_loss'


def divergence(losses):
    """``losses``: a run's critics' loss, one per epoch in order. Returns
    {'last', 'median', 'ratio'} when the last is DIVERGENCE_RATIO times the
    median of the epochs after the first or more, else None (also for
    fewer than three epochs, or no finite losses)."""
    found = measure(losses)
    if found is None or found['ratio'] < DIVERGENCE_RATIO:
        return None
    return found


def measure(losses):
    """{'last', 'median', 'ratio'} of ``losses`` (their finite values;
    the median over all but the first), or None below three of them."""
    values = [float(value) for value in losses
              if value is not None and math.isfinite(float(value))]
    if len(values) < 3:
        return None
    median, last = statistics.median(values[1:]), values[-1]
    return {'last': last, 'median': median, 'ratio': ratio_of(last, median)}


def ratio_of(last, median):
    """last / median, for losses (never negative): a loss that leaves
    zero is infinitely far from it, one that stays there is not."""
    if median > 0:
        return last / median
    return math.inf if last > 0 else 1.0


def warning(losses):
    """One line for the run report when ``losses`` diverged, else None."""
    found = divergence(losses)
    if found is None:
        return None
    return (f"warning: the critics' loss ended at {found['last']:.3g}, "
            f"{found['ratio']:,.0f} times its median over the run "
            f"({found['median']:.3g}): the critics may have diverged "
            f"(progress.csv's {COLUMN}; docs: Troubleshooting)")


def _ratios(root):
    """(ratio, progress.csv) of every run of ours under ``root``."""
    import glob
    import os

    import pandas as pd
    for path in sorted(glob.glob(os.path.join(root, '**', 'progress.csv'),
                                 recursive=True)):
        columns = pd.read_csv(path, nrows=0).columns
        if COLUMN not in columns:
            continue  # a peer's run, or an agent without critics
        found = measure(pd.read_csv(path, usecols=[COLUMN])[COLUMN])
        if found is not None:
            yield found['ratio'], path


if __name__ == '__main__':
    for ratio, path in sorted(_ratios(sys.argv[1]), reverse=True):
        print(f"{ratio:14,.1f}  {path}")
