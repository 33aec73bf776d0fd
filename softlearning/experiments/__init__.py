"""The experiments API: what every ``softlearning`` command runs.

    from softlearning import experiments

    experiment = experiments.experiment(
        algorithm='SAC', universe='gym', domain='Pendulum', task='v1',
        n_epochs=3, seed=1, config={'algorithm_params.config.tau': 0.01})
    results = experiments.run(experiment)         # Tune's ResultGrid
    trial_dir = experiments.run_in_process(experiment)  # or: no Tune
    policy = experiments.load_trained_policy(results[0].checkpoint.path)
    policy.action(policy.environment.reset(seed=0))

``experiment`` takes the command line's options by their names
(``softlearning run_example_local --help`` lists them: ``--n-epochs`` is
``n_epochs``); ``config`` is {dotted variant key: value}. Bad input raises
ExperimentError before Ray or TensorFlow start.
"""

import importlib
import importlib.abc
import importlib.util
import sys

from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.trial.policy_loading import load_trained_policy
from softlearning.experiments.tune.prepare import (
    Experiment, load_definition, prepare)

RUNS = ('local', 'cluster', 'debug')


# The module paths of softlearning 1.0, before the rooms: Tune pickles an
# experiment's trainable, callbacks and sample_from functions by module path
# (tuner.pkl, its state files), so an experiment started with 1.0 resumes
# only where those paths still import.
MOVED_SINCE_1_0 = {
    'trainable': 'trial.trainable', 'build': 'trial.build',
    'console': 'trial.console', 'debug_runner': 'trial.debug_runner',
    'policy_loading': 'trial.policy_loading', 'simulate': 'trial.simulate',
    'variants': 'config.variants', 'presets': 'config.presets',
    'provenance': 'config.provenance', 'config_keys': 'config.config_keys',
    'search_spaces': 'config.search_spaces',
    'value_types': 'config.value_types', 'option_types': 'config.option_types',
    'option_schema': 'config.option_schema',
    'options_of_the_run': 'config.options_of_the_run',
    'options_of_the_variant': 'config.options_of_the_variant',
    'resources': 'cluster.resources', 'launch': 'cluster.launch',
    'tune_runner': 'tune.runner', 'tune_behaviour': 'tune.behaviour',
    'tune_state': 'tune.state', 'sweeps': 'tune.sweeps',
    'optuna_search': 'tune.optuna_search',
    'pending_trials': 'tune.pending_trials', 'tracking': 'tune.tracking',
    'suite_part': 'benchmark.suite_part',
}


def _moved(name):
    """The module a 1.0 module path (``softlearning.experiments.trainable``,
    ``...presets.sac``) became, or None."""
    head, _, rest = name[len(__name__) + 1:].partition('.')
    if not name.startswith(__name__ + '.') or head not in MOVED_SINCE_1_0:
        return None
    return f'{__name__}.{MOVED_SINCE_1_0[head]}' + (f'.{rest}' if rest else '')


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a 1.0 module path as the module it became."""

    def find_spec(self, name, path=None, target=None):
        if _moved(name) is None:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module(_moved(spec.name))

    def exec_module(self, module):
        pass  # (the module it became is imported already)


sys.meta_path.append(_MovedModules())


def options(definition=None, **given):
    """The options (a namespace, one attribute per option of the schema,
    option_schema.py): their defaults (the definition's over the
    schema's), a sweep file's options over them (``sweep=PATH``), then
    ``given``. Unknown names and values outside an option's choices are an
    ExperimentError."""
    # (Here: the schema's tables import Tune's names, which importing
    # softlearning.experiments need not.)
    from softlearning.experiments.config import option_schema
    definition = _definition(definition)
    sweep_options, sweep_config = option_schema.sweep_file(
        given.get('sweep'))
    values = {**sweep_options, **given}
    if isinstance(values.get('config'), dict):
        values['config'] = list(values['config'].items())
    namespace = option_schema.namespace(definition, **values)
    namespace.sweep_config = sweep_config
    return namespace


def experiment(definition=None, run='local', **given):
    """An Experiment ready to ``run`` ('local': a Ray instance started here,
    'cluster': a running cluster, 'debug': in this process, debug-sized)
    from options by name; see the module docstring."""
    if run not in RUNS:
        raise ExperimentError(f"run '{run}' is not one of {', '.join(RUNS)}.")
    definition = _definition(definition)
    return prepare(definition, options(definition, **given), run,
                   given={name: f'{name}={value!r}'
                          for name, value in given.items()})


def variant_spec(definition=None, **given):
    """The variant spec of the options (may hold Tune search spaces)."""
    return experiment(definition, **given).variant_spec


def run(experiment):
    """Runs a 'local' or 'cluster' Experiment with Tune. Returns Tune's
    ResultGrid (``.experiment_path``: where its results are)."""
    from softlearning.experiments.tune import runner as tune_runner
    if experiment.mode == 'debug':
        raise ExperimentError(
            "run() runs Tune experiments; a 'debug' experiment runs with "
            "run_in_process().")
    runner = (tune_runner.run_on_cluster if experiment.mode == 'cluster'
              else tune_runner.run_local)
    return runner(experiment).results


def run_in_process(experiment):
    """Runs the Experiment's one trial in this process, without Tune.
    Returns its trial folder."""
    from softlearning.experiments.trial.debug_runner import (
        run_in_process as run_trial)
    return run_trial(experiment)


def sample_variant(variant_spec):
    """One variant drawn from a spec, as a trial would get it."""
    from softlearning.experiments.trial.debug_runner import (
        sample_variant as sample)
    return sample(variant_spec)


def _definition(definition):
    if definition is None or isinstance(definition, str):
        return load_definition(definition)
    return definition


__all__ = ['Experiment', 'ExperimentError', 'experiment',
           'load_definition', 'load_trained_policy', 'options', 'prepare',
           'run', 'run_in_process', 'sample_variant', 'variant_spec']
