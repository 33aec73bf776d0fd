"""The ``softlearning`` command: argparse only. Each command maps its
options onto the experiments API (softlearning/experiments/) or the
analysis functions (softlearning/analysis/); ``main.py`` dispatches."""
