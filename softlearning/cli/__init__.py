"""The ``softlearning`` command: argparse only. Each command maps its
options onto the experiments API (softlearning/experiments/) or the
analysis functions (softlearning/analysis/); ``main.py`` dispatches."""

import os as _os
import sys as _sys

# Set before Ray is imported (it reads them then): every trial's epoch lines
# as printed (Ray folds similar lines of several trials into one), and no
# colour codes in output that goes to a file.
_os.environ.setdefault('RAY_DEDUP_LOGS', '0')
if not _sys.stdout.isatty():
    _os.environ.setdefault('RAY_COLOR_PREFIX', '0')
