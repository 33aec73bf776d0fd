"""The console of a run: one line per epoch, printed by the command itself.

The lines are made from the results Tune hands the driver
(``EpochConsole``, a Tune callback), not printed by the trials: a trial's
prints reach the terminal through Ray's log forwarding, asynchronously,
and the last of them are lost when the command ends first. Here every
epoch's line is printed before the command can end, whatever the
machine's speed, and a fresh, a resumed, a sweep and a cluster run print
the same console. The in-process runner (debug mode) prints the same
lines with ``format_progress``.
"""

import sys

from ray import tune

# A categorical critic's targets beyond its support are clipped to its ends
# (algorithms/critic_heads.py): past this share of their mass the critics
# cannot rank what lies beyond, and learning stalls with no error.
CLIPPED_TARGETS_FLAGGED = 0.1


def format_progress(diagnostics, n_epochs, total_steps=None,
                    training_seconds=None):
    """One line per epoch, so a run's progress reads at a glance; with
    ``total_steps``, the time left at this epoch's pace, or, for a run with
    a ``training_seconds`` budget that ends first, the budget's time left;
    no estimate while the warm-up has taken no update."""
    evaluation = diagnostics.get('evaluation', {})
    training = diagnostics.get('training', {})

    def number(stats, key):
        return f"{stats[key]:9.1f}" if key in stats else '        -'

    line = (f"epoch {diagnostics['epoch']:>5}/{n_epochs}"
            f" | steps {diagnostics['total_timestep']:>9}"
            f" | eval return {number(evaluation, 'return-mean')}")
    if 'success-rate' in evaluation:
        # Goal-conditioned tasks: the fraction of evaluation episodes that
        # ended at their goal, which a sparse reward's return hides.
        line += f" | eval success {evaluation['success-rate']:4.2f}"
    line += (f" | train return {number(training, 'return-mean')}"
             f" | {diagnostics['timesteps_per_second']:7.1f} steps/s")
    clipped = diagnostics.get('Q_target-clipped', 0.0)
    if clipped >= CLIPPED_TARGETS_FLAGGED:
        line += (f" | {clipped:.0%} of the Q targets' mass beyond the "
                 "critics' support: widen Q_params.config.categorical")
    if diagnostics.get('num_train_steps') == 0:
        # Warm-up steps take no updates, so their pace says nothing of
        # the time training will take.
        return line + ' | warm-up'
    left = (total_steps or 0) - diagnostics['total_timestep']
    pace = diagnostics['timesteps_per_second']
    seconds_left = left / pace if left > 0 and pace > 0 else None
    if training_seconds is not None:
        budget_left = training_seconds - diagnostics.get(
            'training_seconds', 0.0)
        if seconds_left is not None and budget_left < seconds_left:
            return line + (f" | {_duration(max(budget_left, 0))}"
                           " of training budget left")
    if seconds_left is not None:
        line += f" | {_duration(seconds_left)} left"
    return line


def _duration(seconds):
    minutes, seconds = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def progress_line(variant, diagnostics):
    """``format_progress`` of an epoch's diagnostics, with the run's length
    and budget read from the trial's variant."""
    config = variant['algorithm_params']['config']
    n_epochs = config['n_epochs']
    return format_progress(
        diagnostics, n_epochs,
        total_steps=n_epochs * config.get('epoch_length', 1000),
        training_seconds=config.get('training_seconds'))


class EpochConsole(tune.Callback):
    """Prints each trial's epoch line as its result reaches the driver. With
    more than one trial in the experiment, each line starts with the
    trial's name."""

    def __init__(self, stream=None):
        self._stream = stream

    def _print(self, line):
        print(line, file=self._stream or sys.stdout, flush=True)

    def on_trial_result(self, iteration, trials, trial, result, **info):
        if 'epoch' not in result or 'total_timestep' not in result:
            return  # not an epoch's result (nothing else reports)
        line = progress_line(trial.config, result)
        if len(trials) > 1:
            line = f"[{trial}] {line}"
        self._print(line)

    def on_trial_recover(self, iteration, trials, trial, **info):
        # A lost process or node: Tune starts the trial again from its
        # last checkpoint (--max-failures). The user should know that the
        # epochs that follow repeat some.
        self._print(f"Trial {trial} failed ({_error_line(trial)}); "
                    "starting it again from its last checkpoint.")


def _error_line(trial):
    """The last line of a trial's error as Tune recorded it."""
    path = getattr(trial, 'error_file', None)
    try:
        with open(path) as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
        return lines[-1].strip()[:200] if lines else 'no error recorded'
    except (OSError, TypeError):
        return 'its process ended'
