"""``python -m examples.development.simulate_policy CHECKPOINT_DIR ...``: the
original softlearning's way to watch a policy, the same as ``softlearning
simulate CHECKPOINT_DIR ...``."""

import sys

from softlearning.cli.simulate import main

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
