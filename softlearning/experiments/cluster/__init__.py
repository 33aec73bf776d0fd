"""Ray instances and clusters: how the trainer and sampler actors share the
CPUs and GPUs (resources), joining a running cluster (connection), and
starting one with the autoscaler (launch, and its cluster_configs).

May import config, trial and errors; not tune or benchmark.
"""


def __getattr__(name):
    """1.0's module softlearning.experiments.cluster is this room's
    connection.py now."""
    import importlib
    import importlib.util
    if importlib.util.find_spec(f'{__name__}.{name}') is not None:
        return importlib.import_module(f'{__name__}.{name}')
    for module in ('connection',):
        module = importlib.import_module(f'{__name__}.{module}')
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
