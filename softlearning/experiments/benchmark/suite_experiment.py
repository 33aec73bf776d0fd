"""A suite as ONE Tune experiment: its cells' variants merged into one spec
(the cells' settings resolved per trial), its results folder checked for
other runs or another version of the suite, and what the command says
before it runs."""

import dataclasses
import functools
import json
import os

from softlearning.utils import storage

from softlearning.experiments.benchmark.suites import (
    RESULTS_FOLDER, SUITE_COPY, TRIAL_NAME_TEMPLATE, SuiteError,
    benchmark_entry, environment_config, protocol_config)

# What a part of a suite chooses (suite_part.py): folders that differ only
# in these hold other runs of the same protocol.
PART_KEYS = ('algorithms', 'environments', 'seeds')


def _cell_value(values, config):
    """A sample_from function: this trial's cell's value of one entry."""
    return values[config['benchmark']['run']]


def merge_cells(specs):
    """One variant spec for {run name: variant spec}: entries equal in all
    cells are kept; a dict with the same keys in all cells is merged entry
    by entry; anything else becomes the trial's cell's own value (Tune's
    sample_from on ``benchmark.run``, a grid over the cells)."""
    values = list(specs.values())
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, dict) and value.keys() == first.keys()
           for value in values):
        return {key: merge_cells({run: spec[key]
                                  for run, spec in specs.items()})
                for key in first}
    from ray import tune
    return tune.sample_from(functools.partial(_cell_value, dict(specs)))


def experiment_folder(suite, options):
    """(storage path, name): <results root>/benchmarks/<suite name>."""
    from softlearning.experiments.config.results_folder import results_root
    return storage.join(results_root(options), RESULTS_FOLDER), suite.name


def _check_same_suite(folder, suite):
    path = os.path.join(folder, SUITE_COPY)
    if not os.path.isfile(path):
        return
    with open(path) as f:
        before = json.load(f)
    now = json.loads(json.dumps(suite.as_dict()))
    differ = sorted(key for key in set(before) | set(now)
                    if before.get(key) != now.get(key))
    if differ and set(differ) <= set(PART_KEYS):
        # Tune resumes an experiment only with the grid it started with, so
        # another choice of runs cannot join it; the report reads both.
        held = '; '.join(f"{key} {', '.join(map(str, before.get(key, [])))}"
                         for key in differ)
        raise SuiteError(
            f"{folder} holds other runs of suite '{suite.name}' ({held}); "
            "other runs go in a results folder of their own: give "
            "--local-dir DIR or --name NEW (softlearning report reads "
            "several folders together).")
    if differ:
        raise SuiteError(
            f"{folder} holds the results of another version of suite "
            f"'{suite.name}' (it differs in: {', '.join(differ)}); give "
            "--name NEW for a new results folder, or remove that one.")


def prepare_suite(suite, mode='local', **given):
    """The suite as one Experiment (definition, options, merged variant
    spec) ready for tune_runner; ``given``: options of the command line
    (cpus, address, local_dir...), over the suite's own."""
    from softlearning.experiments import experiment as make_experiment
    from softlearning.experiments.cluster.resources import trial_resources
    from softlearning.experiments.config.search_spaces import (
        search_space_entries)
    from softlearning.experiments.tune.sweeps import get_progress_reporter
    # A checkpoint at every evaluation, with the replay pool (incremental):
    # a resumed run goes on exactly where it stopped.
    options = {'checkpoint_frequency': 1, 'checkpoint_replay_pool': True,
               **suite.options, **given}
    config = {**suite.config, **protocol_config(suite)}
    experiments, specs = {}, {}
    for algorithm, environment in suite.cells():
        universe, domain, task = environment
        experiment = make_experiment(
            run=mode, algorithm=algorithm, universe=universe,
            domain=domain, task=task, **options,
            config={**config, **environment_config(suite, environment)})
        spec = experiment.variant_spec
        # (The seed, drawn per trial by default, is the suite's grid.)
        searched = sorted(set(search_space_entries(spec))
                          - {'run_params.seed'})
        if searched:
            raise SuiteError(
                f"Suite '{suite.name}': {searched[0]} is a search space; a "
                "suite runs fixed settings (its grid is algorithms x "
                "environments x seeds).")
        spec['benchmark'] = benchmark_entry(suite, algorithm, environment)
        run = spec['benchmark']['run']
        experiments[run], specs[run] = experiment, spec
    first = next(iter(experiments.values()))
    resources = {run: repr(trial_resources(e.options, e.variant_spec))
                 for run, e in experiments.items()}
    if len(set(resources.values())) > 1:
        raise SuiteError(f"Suite '{suite.name}': its runs need different "
                         f"resources per trial ({resources}); a suite's runs "
                         "share one setting.")
    from ray import tune
    variant_spec = merge_cells(specs)
    variant_spec['benchmark']['run'] = tune.grid_search(list(specs))
    variant_spec['run_params']['seed'] = tune.grid_search(suite.seeds)
    columns = {'benchmark': {'run': variant_spec['benchmark']['run']},
               'run_params': {'seed': variant_spec['run_params']['seed']}}
    experiment = dataclasses.replace(first, variant_spec=variant_spec)
    experiment.options.num_samples = 1
    experiment.options.trial_name_template = TRIAL_NAME_TEMPLATE
    experiment.location = experiment_folder(suite, experiment.options)
    experiment.tune_settings = {
        **first.tune_settings,
        'progress_reporter': get_progress_reporter(
            columns, 'evaluation/return-mean', 'max')}
    folder = storage.join(*experiment.location)
    if storage.exists(storage.join(folder, 'tuner.pkl')):
        _check_same_suite(folder, suite)
        experiment.restore_experiment = folder
        experiment.restore_param_space = _started_entries(variant_spec,
                                                          folder)
    return experiment


def _started_entries(variant_spec, folder):
    """``variant_spec`` with only the entries the experiment started with:
    Tune resumes only a param space of the same entries, and a newer
    softlearning may write more constructor defaults (the trials then get
    those defaults from the constructors)."""
    import ray.cloudpickle as pickle
    with open(os.path.join(folder, 'tuner.pkl'), 'rb') as f:
        keys = pickle.load(f).get('__flattened_param_space_keys')
    if keys is None:
        return variant_spec
    keys = set(keys)

    def prune(node, prefix):
        kept = {}
        for key, value in node.items():
            path = f'{prefix}{key}'
            if path in keys:
                kept[key] = value
            elif isinstance(value, dict) and any(
                    other.startswith(f'{path}/') for other in keys):
                kept[key] = prune(value, f'{path}/')
        return kept
    return prune(variant_spec, '')


def write_suite_copy(suite, experiment):
    """The suite as run, beside its results (a resume checks it)."""
    folder = storage.join(*experiment.location)
    if storage.is_uri(folder):
        return
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, SUITE_COPY), 'w') as f:
        json.dump(suite.as_dict(), f, indent=2)


def results_folder(experiment):
    return storage.join(*experiment.location).split('?')[0]


def describe(suite, experiment):
    """What the suite runs and where, before it runs."""
    runs = len(suite.cells()) * len(suite.seeds)
    evaluation = suite.evaluation
    state = ('a new experiment' if not experiment.restore_experiment
             else 'resuming it (finished trials are kept'
             + (', errored ones start over)' if experiment.restart_errored
                else ')'))
    label = f" ({suite.label})" if suite.label else ''
    return (
        f"Suite {suite.name}: {', '.join(suite.algorithms)}{label} on "
        f"{', '.join('/'.join(e) for e in suite.environments)}, seeds "
        f"{', '.join(map(str, suite.seeds))}: {runs} trials of "
        f"{suite.steps:,} steps ({suite.warmup_steps:,} warm-up), evaluated "
        f"every {evaluation['interval']:,} steps on {evaluation['episodes']} "
        f"episodes (reset seeds {evaluation['first_seed']}-"
        f"{evaluation['first_seed'] + evaluation['episodes'] - 1}).\n"
        f"Results: {results_folder(experiment)} ({state}).")
