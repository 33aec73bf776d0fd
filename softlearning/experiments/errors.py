"""The one error a bad input ends with: reported by every command as one
line on stderr (``softlearning: error: ...``, exit code 2), no traceback."""


class ExperimentError(ValueError):
    """A bad command line, variant, checkpoint or cluster: its message names
    the bad value and the valid choices."""


class TrialBuildError(Exception):
    """A trial that cannot be built from its variant (its environment,
    components or checkpoint): a retry would fail the same way, so Tune
    ends the trial at once (tune_behaviour.py). Its message is one line."""
