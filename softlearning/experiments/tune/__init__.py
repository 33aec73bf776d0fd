"""Running experiments with Ray Tune: an experiment prepared from its
options (prepare), the runner (runner), where softlearning's runs differ
from Tune's defaults (behaviour), sweeps' schedulers and search
algorithms, Tune's state files, trials that no longer fit a cluster
(pending_trials) and the experiment trackers.

May import config, trial, cluster and errors; not benchmark.
"""
