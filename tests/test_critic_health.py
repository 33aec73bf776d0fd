"""The end-of-run warning for critics that diverged with every number
finite (softlearning/utils/critic_health.py): its sign on series of losses,
its threshold against every committed run, and its line in the results
list."""

import math
import os
import types

import pandas as pd
import pytest

from softlearning.utils import critic_health

RESULTS = os.path.join(os.path.dirname(__file__), '..', 'benchmarks',
                       'results')

# The committed runs whose critics ran away (dog-run, made before the
# log-probability fix; docs/benchmarks/frontier-hard.md).
DIVERGED = {
    'frontier_hard_probes/softlearning/CrossQ-dog-run-seed0',
    'frontier_hard_probes/softlearning/CrossQ-dog-run-seed0-xla-log-prob',
    'frontier_hard_probes/softlearning/CrossQ-dog-run-seed1',
    'frontier_hard_dog_before_fix/softlearning/CrossQ-dog-run-seed1',
    'crossq_dog_renorm_warmup/softlearning/CrossQ-dog-run-seed0',
    'crossq_dog_symlog/softlearning/CrossQ-dog-run-seed1',
    'crossq_dog_lecun_init/softlearning/CrossQ-dog-run-seed0',
}


@pytest.mark.parametrize('losses', [
    [40.0, 0.2, 0.3, 0.25, 0.4, 0.9],       # a warm-up outlier, then calm
    [1.0, 2.0, 4.0, 8.0, 16.0, 32.0],       # growing with the returns
    [0.0, 0.0, 0.0],                         # nothing to learn
    [5.0, 1e9],                              # too short to say
    [float('nan'), 0.1, float('inf'), 0.2],  # non-finite ones are another check's
])
def test_healthy_or_unknown_losses_give_no_warning(losses):
    assert critic_health.divergence(losses) is None
    assert critic_health.warning(losses) is None


def test_a_loss_that_ran_away_is_named_with_its_ratio():
    losses = [41.0, 0.3, 0.2, 0.4, 0.3, 121.0, 5.8e5]
    found = critic_health.divergence(losses)
    assert found == {'last': 5.8e5, 'median': 0.35,
                     'ratio': pytest.approx(5.8e5 / 0.35)}
    line = critic_health.warning(losses)
    assert line.startswith("warning: the critics' loss ended at 5.8e+05, "
                           "1,657,143 times its median over the run (0.35)")
    assert critic_health.divergence([0.0, 0.0, 0.0, 2.0])['ratio'] \
        == math.inf


def test_the_threshold_separates_the_committed_runs():
    ratios = {os.path.relpath(os.path.dirname(path), RESULTS): ratio
              for ratio, path in critic_health._ratios(RESULTS)}
    assert len(ratios) > 150
    flagged = {run for run, ratio in ratios.items()
               if ratio >= critic_health.DIVERGENCE_RATIO}
    assert flagged == DIVERGED
    healthy = max(ratio for run, ratio in ratios.items()
                  if run not in DIVERGED)
    # The threshold sits well clear of both: the wildest healthy run ten
    # times below half of it, the calmest diverged run above twice it.
    assert healthy * 10 < critic_health.DIVERGENCE_RATIO * 0.5
    assert min(ratios[run] for run in DIVERGED) \
        > critic_health.DIVERGENCE_RATIO * 2


def test_the_results_list_warns_under_an_ok_trial(capsys):
    from softlearning.experiments.tune.runner import report
    histories = [[41.0, 0.3, 0.2, 0.4, 1e4], [41.0, 0.3, 0.2, 0.4, 0.5]]
    results = [types.SimpleNamespace(
        metrics={'done': True, 'epoch': 5,
                 'evaluation': {'return-mean': 3.0}},
        metrics_dataframe=pd.DataFrame({critic_health.COLUMN: losses}),
        error=None, path=f'/results/trial_{i}')
        for i, losses in enumerate(histories)]
    run = types.SimpleNamespace(results=results, folder='/results',
                                interrupted=False)
    assert report(run) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3].startswith('  [OK] /results/trial_0')
    assert lines[-2].startswith(
        "    warning: the critics' loss ended at 1e+04, 28,571 times")
    assert lines[-1].startswith('  [OK] /results/trial_1')
