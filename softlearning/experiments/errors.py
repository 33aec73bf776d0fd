"""The one error a bad input ends with: reported by every command as one
line on stderr (``softlearning: error: ...``, exit code 2), no traceback."""


class ExperimentError(ValueError):
    """A bad command line, variant, checkpoint or cluster: its message names
    the bad value and the valid choices."""
