"""Ray instances and clusters: how the trainer and sampler actors share the
CPUs and GPUs (resources), joining a running cluster (connection), and
starting one with the autoscaler (launch, and its cluster_configs).

May import config, trial and errors; not tune or benchmark.
"""
