"""Benchmark suites: a suite file read and checked (suites), run as one
Tune experiment, and a part of it (suite_part).

May import every other room of softlearning.experiments, and its public
API.
"""


def __getattr__(name):
    """1.0's module softlearning.experiments.benchmark became this room:
    its names (a suite pickled by 1.0 holds suite_experiment's functions
    by that path) are looked up in the room's modules."""
    import importlib
    import importlib.util
    if importlib.util.find_spec(f'{__name__}.{name}') is not None:
        return importlib.import_module(f'{__name__}.{name}')
    for module in ('suites', 'suite_experiment'):
        module = importlib.import_module(f'{__name__}.{module}')
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
