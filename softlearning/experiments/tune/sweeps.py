"""Sweeps in Tune: schedulers, search algorithms and the console table,
built from the options and the variant spec before Ray starts (the sweep
file itself is read by config/sweep_files.py)."""

import os

from softlearning.utils.signatures import accepted_keywords

from softlearning.experiments.config.search_spaces import (
    grid_search_keys, search_space_entries, to_search_space)
from softlearning.experiments.config.sweep_files import (  # noqa: F401
    DEFAULT_METRIC, DEFAULT_MODE, SCHEDULERS, SEARCH_ALGORITHMS, SweepError)
from softlearning.experiments.config.value_types import MISSING, lookup
from softlearning.utils.registry import check_keys

# Schedulers measure a trial's progress in environment steps.
TIME_ATTRIBUTE = 'total_timestep'
# PBT does not mutate the seed, and a model-based search does not search it.
SEED_KEY = 'run_params.seed'
# The console table's result columns.
METRIC_COLUMNS = {'epoch': 'epoch', 'total_timestep': 'steps',
                  'evaluation/return-mean': 'eval return',
                  'training/return-mean': 'train return'}


# Tune objects -----------------------------------------------------------------

def _number(variant_spec, key):
    value = variant_spec['algorithm_params']['config'][key]
    if not isinstance(value, (int, float)):
        raise SweepError(
            f"The scheduler's default times need a fixed {key}; give them "
            "in --scheduler-config instead.")
    return value


def _training_steps(variant_spec):
    """(steps of one epoch, steps of the whole run)."""
    epoch_length = _number(variant_spec, 'epoch_length')
    return epoch_length, epoch_length * _number(variant_spec, 'n_epochs')


def _tenth_of_run(variant_spec):
    """A tenth of the run, in whole epochs (at least one), in steps."""
    epoch_length, total = _training_steps(variant_spec)
    return max(1, round(total / 10 / epoch_length)) * epoch_length


def _nested(dotted_values):
    nested = {}
    for dotted_key, value in dotted_values.items():
        node = nested
        *parents, last = dotted_key.split('.')
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return nested


def _key_exists(variant_spec, dotted_key):
    return lookup(variant_spec, dotted_key) is not MISSING


def _mutation(key, value):
    """A PBT mutation: a search space, or a list of values to pick from."""
    value = to_search_space(key, value)
    if isinstance(value, dict) and set(value) == {'grid_search'}:
        return list(value['grid_search'])
    return value


def _default_mutations(variant_spec):
    """What PBT perturbs: the searched entries (except the seed), or else
    the algorithm's learning rates within a factor of 10 of their values."""
    from ray import tune
    searched = {key: _mutation(key, value) for key, value
                in search_space_entries(variant_spec).items()
                if key != SEED_KEY}
    if searched:
        return searched
    config = variant_spec['algorithm_params']['config']
    return {f'algorithm_params.config.{key}': tune.loguniform(
                value / 10, value * 10)
            for key, value in config.items()
            if key.endswith('_lr') and isinstance(value, (int, float))}


def _pbt_mutations(variant_spec, given):
    if given is None:
        mutations = _default_mutations(variant_spec)
    else:
        if not isinstance(given, dict) or not given:
            raise SweepError(
                '--scheduler-config: "hyperparam_mutations" must be an '
                'object {"dotted.key": search space or [values], ...}.')
        mutations = {key: _mutation(key, value)
                     for key, value in given.items()}
    for key in mutations:
        if not _key_exists(variant_spec, key):
            raise SweepError(
                f"--scheduler pbt: cannot mutate '{key}', which is not an "
                "entry of the variant.")
    if not mutations:
        raise SweepError(
            "--scheduler pbt: nothing to mutate; give search spaces with "
            '--config, or "hyperparam_mutations" in --scheduler-config.')
    return _nested(mutations)


def _scheduler_defaults(name, variant_spec, given):
    """Defaults of the settings not ``given``; times from the variant's
    epochs."""
    fixed = ({'reduction_factor': 4} if name == 'asha' else
             {'quantile_fraction': 0.25, 'resample_probability': 0.25})
    timed = (('max_t', 'grace_period') if name == 'asha'
             else ('perturbation_interval',))
    if all(key in given for key in timed):
        return fixed
    _, total = _training_steps(variant_spec)
    tenth = _tenth_of_run(variant_spec)
    times = ({'max_t': total, 'grace_period': min(tenth, total)}
             if name == 'asha' else {'perturbation_interval': tenth})
    return {**fixed, **times}


def get_scheduler(args, variant_spec):
    """The Tune scheduler of ``--scheduler``, on ``TIME_ATTRIBUTE`` (metric
    and mode go to TuneConfig)."""
    name = args.scheduler
    given = dict(args.scheduler_config or {})
    if name == 'fifo':
        if given:
            raise SweepError("--scheduler-config: the fifo scheduler takes "
                             "no settings; use --scheduler asha or pbt.")
        return None
    from ray.tune.schedulers import ASHAScheduler, PopulationBasedTraining
    scheduler_class = {'asha': ASHAScheduler,
                       'pbt': PopulationBasedTraining}[name]
    settings = {'time_attr': TIME_ATTRIBUTE,
                **_scheduler_defaults(name, variant_spec, given), **given}
    if name == 'pbt':
        settings['hyperparam_mutations'] = _pbt_mutations(
            variant_spec, given.get('hyperparam_mutations'))
    accepted = accepted_keywords(scheduler_class) - {'metric', 'mode'}
    check_keys(settings, sorted(accepted), f'{name} setting',
               '--scheduler-config', error=SweepError)
    try:
        return scheduler_class(**settings)
    except (AssertionError, TypeError, ValueError) as error:
        raise SweepError(f"--scheduler {name} with {settings}: "
                         f"{error or 'invalid settings'}") from None


def reuses_processes(scheduler):
    """Whether a trial's process may go on to another trial (Tune's
    reuse_actors): yes, except under synchronous PBT, which stalled with it
    in Ray 2.60."""
    return not getattr(scheduler, '_synch', False)


def prepare_search(args, variant_spec):
    """The search algorithm of ``--search-algorithm`` (None: Tune's random
    and grid search). May replace the spec's random seed, which a
    model-based search must not tune, by one drawn per trial."""
    if args.search_algorithm == 'random':
        return None
    if args.scheduler == 'pbt':
        raise SweepError(
            "--scheduler pbt chooses configurations itself; use it with "
            "--search-algorithm random.")
    grids = grid_search_keys(variant_spec)
    if grids:
        raise SweepError(
            f"--search-algorithm optuna cannot search a grid ({grids[0]}); "
            'use {"choice": [...]} instead.')
    entries = search_space_entries(variant_spec)
    seed = entries.pop(SEED_KEY, None)
    if not entries:
        raise SweepError(
            "--search-algorithm optuna needs a search space, e.g. --config "
            '\'algorithm_params.config.policy_lr={"loguniform": '
            "[1e-4, 3e-3]}'.")
    try:
        from softlearning.experiments.tune.optuna_search import (
            OptunaSearchWithSeeds)
    except ImportError:
        raise SweepError(
            "--search-algorithm optuna needs optuna: pip install -e "
            "'.[sweeps]' (or pip install optuna).") from None
    if seed is not None:
        variant_spec['run_params']['seed'] = None  # drawn per trial
    return OptunaSearchWithSeeds(seed_space=seed)


def get_progress_reporter(variant_spec, metric, mode, told_by_tune=False):
    """Tune's console table with the results that matter (steps, returns,
    ``metric``) and the searched entries as columns. ``metric`` and
    ``mode`` also name the best trial; Tune passes them on itself when a
    scheduler or search algorithm optimizes them (``told_by_tune``)."""
    # Tune's newer console output infers its columns from the first results
    # (here: losses); this table is Tune's CLIReporter, which it uses with
    # RAY_AIR_NEW_OUTPUT=0.
    os.environ.setdefault('RAY_AIR_NEW_OUTPUT', '0')
    if os.environ['RAY_AIR_NEW_OUTPUT'] != '0':
        return None
    from ray.tune import CLIReporter
    parameters = {}
    for key in search_space_entries(variant_spec):
        label = key.split('.')[-1]
        parameters[key.replace('.', '/')] = (
            label if label not in parameters.values() else key)
    metric_columns = dict(METRIC_COLUMNS)
    metric_columns.setdefault(metric, metric)
    best = {} if told_by_tune else {'metric': metric, 'mode': mode}
    # print_intermediate_tables given: Tune's default reads the verbosity
    # the process's previous Tune run left behind (a second experiment in
    # one Python session would print its tables or not by the first's).
    return CLIReporter(metric_columns=metric_columns,
                       parameter_columns=parameters,
                       max_report_frequency=30,
                       print_intermediate_tables=True, **best)


def check_metric(metric):
    if not metric or metric.startswith('/') or metric.endswith('/'):
        raise SweepError(f"--metric '{metric}': expected a result name such "
                         f"as {DEFAULT_METRIC}.")
