"""Benchmark suites: a suite file read and checked (suites), run as one
Tune experiment, and a part of it (suite_part).

May import every other room of softlearning.experiments, and its public
API.
"""
