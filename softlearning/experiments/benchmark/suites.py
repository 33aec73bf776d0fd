"""Benchmark suites: algorithms x environments x seeds, each run for the
same number of steps and evaluated by one protocol, as ONE Tune experiment.

A suite file (YAML, or JSON for a .json name):

    name: mujoco_100k                 # results folder; default: the file's stem
    algorithms: [SAC, TD3]
    environments: [gym/HalfCheetah/v5, gym/Hopper/v5]   # universe/domain/task
    seeds: [0, 1, 2, 3, 4]
    steps: 100000                     # environment steps of every run
    warmup_steps: 10000               # uniform random actions first (default 10000)
    evaluation:                       # the protocol (these are the defaults)
      episodes: 10                    # deterministic episodes per evaluation
      first_seed: 1000                # episode i of EVERY evaluation resets with seed first_seed + i
      interval: 5000                  # evaluate every `interval` steps (an epoch)
    options: {trial_cpus: 1}          # any run_example option, by name
    config: {}                        # --config overrides for every run
    label: ''                         # names the overrides in reports; default:
                                      # from config, e.g. "fused_steps=1"
    budget: {training_minutes: 30}    # optional: each run trains this long (wall
                                      # clock of collecting and training; evaluations
                                      # not counted), `steps` at most
    environment_kwargs:               # optional: the environments' own settings,
      dm_control: {action_repeat: 2}  # by universe or universe/domain (training
                                      # and evaluation; the peers apply them too)

Every evaluation runs the same episodes (the same reset seeds) for every
algorithm, seed and peer library (benchmarks/peers.py follows the same
protocol), with the policy's deterministic action and the environment's raw
reward; the protocol is recorded in each trial's ``params.json`` under
``benchmark``. Results go to ``<local dir>/benchmarks/<name>``; running the
same suite again resumes it there: finished trials are kept, unfinished
ones continue from their last checkpoints (taken every evaluation, with
the replay pool).

A suite with ``config`` overrides is an ablation of the defaults: its agents
are reported as "softlearning SAC (fused_steps=1)" beside the default
"softlearning SAC", and compared with it (``softlearning report`` on both
folders).
"""

import dataclasses
import functools
import json
import os

from softlearning.utils.one_line import yaml_problem

from softlearning.experiments.errors import ExperimentError
from softlearning.utils.registry import check_keys

DEFAULT_EVALUATION = {'episodes': 10, 'first_seed': 1000, 'interval': 5000}
DEFAULT_WARMUP_STEPS = 10000
SUITE_KEYS = ('name', 'algorithms', 'environments', 'seeds', 'steps',
              'warmup_steps', 'evaluation', 'options', 'config', 'label',
              'budget', 'environment_kwargs')
BUDGET_KEYS = ('training_minutes',)
# What the suite sets itself, by the variant entries it writes.
PROTOCOL_KEYS = {
    'algorithm_params.config.epoch_length': 'evaluation.interval',
    'algorithm_params.config.n_epochs': 'steps',
    'algorithm_params.config.eval_n_episodes': 'evaluation.episodes',
    'algorithm_params.config.eval_seed': 'evaluation.first_seed',
    'algorithm_params.config.eval_deterministic': 'the protocol',
    'algorithm_params.config.n_initial_exploration_steps': 'warmup_steps',
    'algorithm_params.config.training_seconds': 'budget',
    'run_params.seed': 'seeds',
}
PROTOCOL_OPTIONS = ('algorithm', 'universe', 'domain', 'task', 'seed',
                    'n_epochs', 'epoch_length', 'num_samples', 'restore',
                    'sweep', 'exp_name', 'trial_name_template')
TRIAL_NAME_TEMPLATE = ('{trial.config[benchmark][run]}-seed'
                       '{trial.config[run_params][seed]}_{trial.trial_id}')
RESULTS_FOLDER = 'benchmarks'
SUITE_COPY = 'suite.json'


class SuiteError(ExperimentError):
    """A bad suite file, reported in one line before Ray starts."""


@dataclasses.dataclass
class Suite:
    name: str
    algorithms: list
    environments: list      # [(universe, domain, task)]
    seeds: list
    steps: int
    warmup_steps: int
    evaluation: dict
    options: dict
    config: dict
    label: str = ''         # '' for the defaults
    budget: dict = None     # {'training_minutes': m}, or None: steps alone
    environment_kwargs: dict = None  # {universe[/domain]: {kwarg: value}}

    @property
    def training_seconds(self):
        """Each run's budget of collecting and training, in seconds; None
        without a budget."""
        return (60 * self.budget['training_minutes'] if self.budget
                else None)

    def kwargs_of(self, environment):
        """The environment kwargs of (universe, domain, task): its
        universe's, then its domain's."""
        universe, domain, _ = environment
        entries = self.environment_kwargs or {}
        return {**entries.get(universe, {}),
                **entries.get(f'{universe}/{domain}', {})}

    def cells(self):
        """[(algorithm, (universe, domain, task))], algorithms outermost."""
        return [(algorithm, environment) for algorithm in self.algorithms
                for environment in self.environments]

    def as_dict(self):
        entries = {**dataclasses.asdict(self), 'environments': [
            '/'.join(environment) for environment in self.environments]}
        for key in ('label', 'budget', 'environment_kwargs'):
            # (as suites written before them)
            if not entries[key]:
                del entries[key]
        return entries


# The suite file ----------------------------------------------------------

def _read(path):
    if not os.path.isfile(path):
        raise SuiteError(f"{path}: no such suite file.")
    with open(path) as f:
        text = f.read()
    import yaml
    kind = 'JSON' if path.endswith('.json') else 'YAML'
    try:
        return json.loads(text) if kind == 'JSON' else yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise SuiteError(f"{path} is not valid YAML: "
                         f"{yaml_problem(error)}.") from None
    except ValueError as error:
        raise SuiteError(f"{path} is not valid JSON: {error}.") from None


def _list(path, suite, key, kind, check=None):
    values = suite.get(key)
    if (not isinstance(values, list) or not values or not all(
            isinstance(v, kind) and not isinstance(v, bool) for v in values)):
        raise SuiteError(f"{path}: '{key}' must be a non-empty list of "
                         f"{kind.__name__}s, got {values!r}.")
    if len(set(values)) != len(values):
        raise SuiteError(f"{path}: '{key}' lists a value twice: {values}.")
    for value in values:
        if check:
            check(value)
    return values


def _positive_int(path, key, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SuiteError(f"{path}: '{key}' must be a positive integer, got "
                         f"{value!r}.")
    return value


def _environment(path, text):
    parts = text.split('/')
    if len(parts) != 3 or not all(parts):
        raise SuiteError(f"{path}: environment '{text}' is not "
                         "universe/domain/task, e.g. gym/HalfCheetah/v5.")
    return tuple(parts)


def _check_algorithm(path, name):
    from softlearning.algorithms import ALGORITHMS
    if name not in ALGORITHMS:
        raise SuiteError(f"{path}: algorithm '{name}' is not one of "
                         f"{', '.join(ALGORITHMS)}.")


def load_suite(path, name=None):
    """The Suite of a suite file, every entry checked (one SuiteError)."""
    suite = _read(path)
    if not isinstance(suite, dict):
        raise SuiteError(f"{path}: expected a mapping of {', '.join(SUITE_KEYS)}"
                         f", got {type(suite).__name__}.")
    check_keys(suite, SUITE_KEYS, 'entry', path, error=SuiteError)
    for key in ('algorithms', 'environments', 'seeds', 'steps'):
        if key not in suite:
            raise SuiteError(f"{path}: '{key}' is missing.")
    evaluation = {**DEFAULT_EVALUATION, **(suite.get('evaluation') or {})}
    check_keys(evaluation, DEFAULT_EVALUATION,
               'evaluation entry', path, error=SuiteError)
    for key in ('episodes', 'interval'):
        _positive_int(path, f'evaluation.{key}', evaluation[key])
    if not isinstance(evaluation['first_seed'], int) or evaluation[
            'first_seed'] < 0:
        raise SuiteError(f"{path}: 'evaluation.first_seed' must be a "
                         f"non-negative integer, got "
                         f"{evaluation['first_seed']!r}.")
    steps = _positive_int(path, 'steps', suite['steps'])
    if steps % evaluation['interval']:
        raise SuiteError(
            f"{path}: steps ({steps}) must be a multiple of "
            f"evaluation.interval ({evaluation['interval']}).")
    warmup = suite.get('warmup_steps', DEFAULT_WARMUP_STEPS)
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise SuiteError(f"{path}: 'warmup_steps' must be a non-negative "
                         f"integer, got {warmup!r}.")
    options, config = (suite.get('options') or {}), (suite.get('config') or {})
    for key, value in (('options', options), ('config', config)):
        if not isinstance(value, dict):
            raise SuiteError(f"{path}: '{key}' must be a mapping, got "
                             f"{value!r}.")
    for option in options:
        if option.replace('-', '_') in PROTOCOL_OPTIONS:
            raise SuiteError(f"{path}: options.{option} is the suite's own "
                             "(algorithms, environments, seeds, steps, "
                             "evaluation); set it there.")
    for key in config:
        if key in PROTOCOL_KEYS:
            raise SuiteError(f"{path}: config '{key}' is set by the suite's "
                             f"{PROTOCOL_KEYS[key]}; set it there.")
    label = suite.get('label', config_label(config))
    if not isinstance(label, str):
        raise SuiteError(f"{path}: 'label' must be a string, got {label!r}.")
    budget = _budget(path, suite.get('budget'))
    environment_kwargs = _environment_kwargs(path,
                                             suite.get('environment_kwargs'))
    return Suite(
        name=name or suite.get('name') or os.path.splitext(
            os.path.basename(path))[0],
        algorithms=_list(path, suite, 'algorithms', str,
                         functools.partial(_check_algorithm, path)),
        environments=[_environment(path, text) for text in _list(
            path, suite, 'environments', str)],
        seeds=_list(path, suite, 'seeds', int),
        steps=steps, warmup_steps=warmup, evaluation=evaluation,
        options={key.replace('-', '_'): value
                 for key, value in options.items()},
        config=dict(config), label=label.strip(), budget=budget,
        environment_kwargs=environment_kwargs)


def _environment_kwargs(path, entries):
    if entries is None:
        return None
    if not isinstance(entries, dict) or not all(
            isinstance(key, str) and 1 <= len(key.split('/')) <= 2
            and isinstance(value, dict) for key, value in entries.items()):
        raise SuiteError(f"{path}: 'environment_kwargs' must map a universe "
                         "or universe/domain to a mapping of the "
                         f"environments' keyword arguments, got {entries!r}.")
    return {key: dict(value) for key, value in entries.items()}


def _budget(path, budget):
    if budget is None:
        return None
    if not isinstance(budget, dict) or set(budget) != set(BUDGET_KEYS):
        raise SuiteError(f"{path}: 'budget' must be a mapping of "
                         f"{', '.join(BUDGET_KEYS)}, got {budget!r}.")
    minutes = budget['training_minutes']
    if (not isinstance(minutes, (int, float)) or isinstance(minutes, bool)
            or not minutes > 0):
        raise SuiteError(f"{path}: 'budget.training_minutes' must be a "
                         f"positive number, got {minutes!r}.")
    return {'training_minutes': minutes}


def config_label(config):
    """A short name for config overrides: each entry by the shortest end of
    its name that no other entry shares, and its value; 'fused_steps=1' for
    {'algorithm_params.config.fused_steps': 1}."""
    def short(key):
        parts = key.split('.')
        for start in range(len(parts) - 1, -1, -1):
            end = '.'.join(parts[start:])
            if sum(other.endswith(end) for other in config) == 1:
                return end
        return key
    return ', '.join(f"{short(key)}={value}"
                     for key, value in config.items())


# The Tune experiment -------------------------------------------------------

def protocol_config(suite):
    """The variant entries every run of the suite gets."""
    evaluation = suite.evaluation
    return {
        'algorithm_params.config.epoch_length': evaluation['interval'],
        'algorithm_params.config.n_epochs': (
            suite.steps // evaluation['interval']),
        'algorithm_params.config.eval_n_episodes': evaluation['episodes'],
        'algorithm_params.config.eval_seed': evaluation['first_seed'],
        'algorithm_params.config.eval_deterministic': True,
        'algorithm_params.config.n_initial_exploration_steps': (
            suite.warmup_steps),
        **({'algorithm_params.config.training_seconds':
            suite.training_seconds} if suite.budget else {}),
    }


def environment_config(suite, environment):
    """The variant entries of one environment's kwargs in the suite (the
    evaluation environment follows the training one's)."""
    return {f'environment_params.training.kwargs.{key}': value
            for key, value in suite.kwargs_of(environment).items()}


def benchmark_entry(suite, algorithm, environment, library='softlearning'):
    """The ``benchmark`` section of a trial's params.json: what the report
    groups by, and the protocol (peers write the same)."""
    import softlearning
    universe, domain, task = environment
    label = {'label': suite.label} if suite.label else {}
    return {
        'suite': suite.name, 'library': library, **label,
        'library_version': softlearning.__version__,
        'algorithm': algorithm, 'environment': '/'.join(environment),
        'run': f'{algorithm}-{domain}-{task}',
        'steps': suite.steps, 'warmup_steps': suite.warmup_steps,
        **({'budget': suite.budget} if suite.budget else {}),
        **({'environment_kwargs': suite.kwargs_of(environment)}
           if suite.environment_kwargs else {}),
        'evaluation': {**suite.evaluation, 'deterministic': True,
                       'reward': 'raw environment reward'},
    }
