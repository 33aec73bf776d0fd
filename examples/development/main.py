"""``python examples/development/main.py [options]``: the same as
``softlearning run_example_local examples.development [options]``."""

import sys

from softlearning.cli.options import report_errors
from softlearning.cli.run import run_example_local

if __name__ == '__main__':
    sys.exit(report_errors(run_example_local, 'examples.development',
                           sys.argv[1:]))
