"""Part of a benchmark suite: some of its algorithms, environments and seeds,
chosen on the command line (``softlearning benchmark --seeds 1,2``,
benchmarks/peers.py alike), e.g. the runs another machine has not done."""

import dataclasses

from softlearning.experiments.benchmark.suites import SuiteError


def entry_names(texts):
    """Command-line entries, commas and/or separate arguments:
    ['SAC,TD3', 'SQL'] -> ['SAC', 'TD3', 'SQL']."""
    return [name for text in texts for name in text.split(',') if name]


def _subset(values, chosen, what):
    """``values`` restricted to ``chosen`` (None: all), in the suite's
    order; a choice the suite does not have is an error."""
    if chosen is None:
        return list(values)
    unknown = [c for c in chosen if c not in values]
    if unknown:
        raise SuiteError(f"{what} {', '.join(map(str, unknown))} not in the "
                         f"suite (it has {', '.join(map(str, values))}).")
    return [value for value in values if value in chosen]


def part_of_suite(suite, algorithms=None, environments=None, seeds=None):
    """The suite restricted to some of its algorithms, environments
    ('gym/Hopper/v5') and seeds (command-line texts, see ``entry_names``;
    None: all), e.g. the runs another machine has not done. Its runs are
    the whole suite's: the same protocol, so their results go together."""
    if seeds is not None:
        try:
            seeds = [int(seed) for seed in entry_names(seeds)]
        except ValueError:
            raise SuiteError(f"--seeds must be integers, got "
                             f"{' '.join(seeds)}.") from None
    by_name = {'/'.join(e): e for e in suite.environments}
    return dataclasses.replace(
        suite,
        algorithms=_subset(suite.algorithms, algorithms and entry_names(
            algorithms), 'Algorithm'),
        environments=[by_name[name] for name in _subset(
            list(by_name), environments and entry_names(environments),
            'Environment')],
        seeds=_subset(suite.seeds, seeds, 'Seed'))
