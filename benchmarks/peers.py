"""SBX's (JAX) and Stable-Baselines3's (PyTorch) SAC and TD3, and SBX's TQC,
DroQ (its SAC with dropout + LayerNorm critics, 20 updates per step, the
policy every 20) and CrossQ (with the preset's critic width), under softlearning's benchmark protocol, each run written
as a softlearning trial folder, so that ``softlearning summary``, ``plot``
and ``report`` read them next to softlearning's own trials. TQC is SBX's:
two critics of 25 quantiles (SBX 0.28's TQCPolicy builds two whatever
``n_critics`` says; ``n_critics`` only sizes the target's atom count, so 5
would keep more atoms than the two critics have and drop none), with the
preset's per-domain drop (2 per critic; 5 on Hopper, 0 on HalfCheetah).
softlearning's TQC preset has five critics: a suite with TQC runs here only
if its ``config`` sets ``Q_params.config.n_Q_functions: 2``, so that both
sides are the same agent (examples/benchmarks/tqc_50k.yaml).

    python benchmarks/peers.py SUITE_FILE \\
        --peer-python /tmp/peers/bin/python [--library sbx|sb3] \\
        [--output DIR] [--parallel N] [--algorithms SAC,TD3] \\
        [--environments gym/Hopper/v5,...] [--seeds 0,1]

Neither peer is a dependency of softlearning. Install them in any Python
environment and point ``--peer-python`` at its interpreter:

    python -m venv /tmp/peers
    /tmp/peers/bin/pip install sbx-rl stable-baselines3 'gymnasium[mujoco]'

The suite file (YAML, or JSON if its name ends in .json) is the one
softlearning's own runner reads; this script reads ``name``,
``algorithms``, ``environments`` (``universe/domain/task``; ``gym`` ones
only, ``gym/HalfCheetah/v5`` is gymnasium's ``HalfCheetah-v5``), ``seeds``,
``steps``, ``warmup_steps`` (default 10,000) and ``evaluation``
(``episodes``, ``first_seed``, ``interval``). ``options`` is ignored, and
``config``'s overrides are softlearning's only: they are not applied here
(TQC's critic count is checked, above).

Each (algorithm, environment, seed) trains in its own process of the peer's
interpreter, one CPU thread each (``--parallel`` runs that many at once),
and writes ``<output>/<library>-<algorithm>-<Domain>-<task>-seed<seed>/``
(``--output`` defaults to ``benchmarks/results/<suite name>/<library>/``):
``params.json`` (the settings, under softlearning's names where they exist,
the peer's constructor arguments and versions) and ``progress.csv``, one row
per evaluation, appended as each finishes: ``epoch`` (the evaluation's
number), ``total_timestep``, ``evaluation/return-mean`` (-std, -min, -max),
``evaluation/episode-length-mean`` (-min, -max), ``time_total_s`` (from the
model's construction, JIT compilation included), ``timesteps_per_second``
(over the interval, its evaluation included, as softlearning's epochs) and
``times/evaluation``. A run whose progress.csv reaches
``steps`` is skipped. After every evaluation but the last, a run saves the
peer's model and replay buffer in ``checkpoint/`` (removed when it
finishes); an unfinished run with the same ``params.json`` continues from
there, its progress.csv cut back to the checkpoint's step and the resume
noted in ``resumes.txt``. A resume is not bit-exact (the environment starts
a new episode and the peer's random streams are reseeded), as a run of the
same seed is not across machines either; without a checkpoint a run starts
over. A failed run leaves its error output in ``error.txt``.

Protocol (softlearning's): ``warmup_steps`` uniform random actions, then one
gradient update per environment step; every ``interval`` environment steps
(after that step's update) ``episodes`` deterministic episodes in a separate
``gym.make(env_id)`` (its default time limit), episode i reset with seed
``first_seed + i`` in every evaluation; the return is the sum of the raw
environment rewards until termination or truncation. The training
environment is ``gym.make(env_id)``, seeded through the model's ``seed``.

Settings (softlearning's presets): 256-256 ReLU networks for the actor and
each of two critics, Adam with learning rates 3e-4 (actor, critics and
SAC's entropy coefficient; 1e-3 on gym/Pendulum, as softlearning's
Pendulum preset; each library's own epsilon), batch 256, a 1e6 replay
buffer, discount 0.99, tau 0.005, time-limit truncations bootstrapped.
SAC: entropy coefficient learned from 1.0 (``ent_coef='auto_1.0'``) towards
the target entropy -|A|, targets updated every update. TD3: Gaussian
exploration noise of standard deviation 0.1 (in actions scaled to [-1, 1]),
target policy noise 0.2 clipped at 0.5, policy and targets updated every 2
updates. SBX's and SB3's defaults that differ and are set here:
``learning_starts`` (100 in both), TD3's ``action_noise`` (none), SB3 TD3's
``net_arch`` ([400, 300]).

What still differs and cannot be set through the peers' arguments:

- Initial weights: Keras (softlearning) draws kernels from Glorot uniform,
  Flax (SBX) from LeCun normal (truncated, variance 1/fan_in), PyTorch
  (SB3) from U(+-1/sqrt(fan_in)), biases included; Keras and Flax start
  biases at zero. (softlearning can draw Flax's: ``kernel_initializer:
  lecun_normal`` in the actor's and critics' config, as
  examples/benchmarks/ablations/sac_walker2d_lecun_init.yaml does.)
- Adam's epsilon: 1e-8 in optax and PyTorch; Keras's 1e-7 is added to the
  square root of the uncorrected second moment, i.e. 1e-7 / sqrt(1 -
  beta_2^t) in optax's and PyTorch's form (3e-6 at the first update, about
  1e-7 after a few thousand).
- SAC's temperature loss: the peers take the gradient of
  -log(alpha) * (log pi + target entropy) with respect to log(alpha),
  softlearning of -alpha * (log pi + target entropy): the step in log(alpha)
  differs by the factor alpha. SB3 also updates alpha first in each update
  and uses the previous alpha in that update's critic and actor losses.
- SBX's TD3 soft-updates its target networks (critics and actor) after
  every critic update, not with the delayed policy update, and its actor
  maximizes the minimum of the two critics instead of the first one
  (softlearning and SB3: the first critic, targets every 2 updates).
- SB3's TD3 critic loss is the sum of the critics' mean squared errors
  without softlearning's factor 0.5 (a scale Adam nearly undoes).
- softlearning collects 50 environment steps with one policy and then runs
  their 50 updates (``fused_steps``); the peers update after every step.
"""

import argparse
import csv
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# SBX's TQC has two critics whatever n_critics says (module docstring);
# softlearning's TQC preset has TQC_PRESET_CRITICS (presets/tqc.py;
# tests/test_peers.py checks they agree), so a suite's softlearning TQC
# must set TQC_CRITICS_KEY to TQC_CRITICS (check_tqc_critics).
TQC_CRITICS = 2
TQC_PRESET_CRITICS = 5
TQC_CRITICS_KEY = 'Q_params.config.n_Q_functions'

# presets/crossq.py's CRITIC_WIDTH (tests/test_peers.py checks they agree;
# this file also runs in the peer's interpreter, without softlearning).
CROSSQ_CRITIC_WIDTH = 256

LIBRARIES = ('sbx', 'sb3')
ALGORITHMS = ('SAC', 'TD3', 'TQC', 'DroQ', 'CrossQ')
# SBX's class of each (DroQ is its SAC with dropout + LayerNorm critics);
# SB3 has SAC and TD3 only.
PEER_CLASSES = {'SAC': 'SAC', 'TD3': 'TD3', 'TQC': 'TQC', 'DroQ': 'SAC',
                'CrossQ': 'CrossQ'}
SB3_ALGORITHMS = ('SAC', 'TD3')
LIBRARY_MODULES = {'sbx': 'sbx', 'sb3': 'stable_baselines3'}
# Versions recorded in params.json: the library's own, then what it ran on.
VERSION_MODULES = {
    'sbx': ('sbx', 'stable_baselines3', 'jax', 'flax', 'optax', 'gymnasium',
            'mujoco'),
    'sb3': ('stable_baselines3', 'torch', 'gymnasium', 'mujoco'),
}
DEFAULT_WARMUP_STEPS = 10000
PARAMS_FILE = 'params.json'
PROGRESS_FILE = 'progress.csv'
ERROR_FILE = 'error.txt'
STDERR_FILE = 'stderr.txt'
# A run's checkpoint: the peer's model and replay buffer at its latest
# evaluation, and CHECKPOINT_FILE saying which (written last: a checkpoint
# exists once it does). Removed when the run finishes.
CHECKPOINT_DIR = 'checkpoint'
CHECKPOINT_FILE = 'checkpoint.json'
# One line per resume: at which step a run continued from its checkpoint.
RESUMES_FILE = 'resumes.txt'

PROGRESS_COLUMNS = (
    'epoch', 'total_timestep',
    'evaluation/return-mean', 'evaluation/return-std',
    'evaluation/return-min', 'evaluation/return-max',
    'evaluation/episode-length-mean', 'evaluation/episode-length-min',
    'evaluation/episode-length-max', 'evaluation/episodes',
    'time_total_s', 'timesteps_per_second',
    'times/epoch', 'times/evaluation',
)

# softlearning's presets (softlearning/experiments/presets/ and the
# constructors' defaults), under softlearning's names where they exist.
COMMON_SETTINGS = {
    'policy_lr': 3e-4,
    'Q_lr': 3e-4,
    'discount': 0.99,
    'tau': 5e-3,
    'batch_size': 256,
    'reward_scale': 1.0,
    'n_train_repeat': 1,
    'train_every_n_steps': 1,
    'hidden_layer_sizes': [256, 256],
    'activation': 'relu',
    'n_Q_functions': 2,
    'replay_pool_max_size': 1000000,
    # Adam with each library's own epsilon (an implementation detail, not
    # a setting softlearning's presets choose): 1e-7 in Keras, 1e-8 in
    # optax and PyTorch.
    'optimizer': 'Adam',
}
ALGORITHM_SETTINGS = {
    'SAC': {
        'alpha_lr': 3e-4,
        'initial_alpha': 1.0,
        'target_entropy': 'auto',   # -|A|
        'target_update_interval': 1,
    },
    'TD3': {
        'exploration_noise': 0.1,
        'target_noise': 0.2,
        'target_noise_clip': 0.5,
        'policy_delay': 2,          # targets are updated with the policy
    },
}
# softlearning's TQC and DroQ presets (presets/tqc.py, droq.py) on SAC's;
# TQC with SBX's two critics (TQC_CRITICS).
ALGORITHM_SETTINGS['TQC'] = {**ALGORITHM_SETTINGS['SAC'],
                             'n_Q_functions': TQC_CRITICS, 'n_quantiles': 25,
                             'top_quantiles_to_drop_per_net': 2}
ALGORITHM_SETTINGS['DroQ'] = {**ALGORITHM_SETTINGS['SAC'],
                              'n_train_repeat': 20, 'policy_delay': 20,
                              'dropout_rate': 0.01, 'layer_norm': True}
# (SBX's CrossQ has batch renormalization in actor and critics, no target
# networks and Adam's beta1 0.5 by default, as the preset.)
ALGORITHM_SETTINGS['CrossQ'] = {
    **{key: value for key, value in ALGORITHM_SETTINGS['SAC'].items()
       if key != 'target_update_interval'},
    'policy_lr': 1e-3, 'Q_lr': 1e-3, 'alpha_lr': 1e-3, 'policy_delay': 3,
    'Q_hidden_layer_sizes': [CROSSQ_CRITIC_WIDTH] * 2}
# softlearning's per-domain presets (learning rates only: the suite sets the
# warm-up, evaluation and length).
DOMAIN_SETTINGS = {
    ('SAC', 'gym/Pendulum'): {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                              'alpha_lr': 1e-3},
    ('TD3', 'gym/Pendulum'): {'policy_lr': 1e-3, 'Q_lr': 1e-3},
    ('TQC', 'gym/Pendulum'): {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                              'alpha_lr': 1e-3},
    ('TQC', 'gym/Hopper'): {'top_quantiles_to_drop_per_net': 5},
    ('TQC', 'gym/HalfCheetah'): {'top_quantiles_to_drop_per_net': 0},
    ('DroQ', 'gym/Pendulum'): {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                               'alpha_lr': 1e-3},
}


class SuiteError(ValueError):
    """A suite file or selection this script cannot run (one line)."""


# The suite -------------------------------------------------------------------

def split_environment(environment):
    """'gym/HalfCheetah/v5' -> ('gym', 'HalfCheetah', 'v5')."""
    parts = environment.split('/') if isinstance(environment, str) else []
    if len(parts) != 3 or not all(parts):
        raise SuiteError(f"Environment {environment!r} is not "
                         "universe/domain/task (e.g. gym/HalfCheetah/v5).")
    return tuple(parts)


def gymnasium_id(environment):
    """'gym/HalfCheetah/v5' -> 'HalfCheetah-v5'."""
    universe, domain, task = split_environment(environment)
    if universe != 'gym':
        raise SuiteError(f"{environment}: the peers run gymnasium "
                         "environments only (universe 'gym').")
    return f'{domain}-{task}'


def _int(value, what, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or (
            value < minimum):
        raise SuiteError(f"Suite {what} must be an integer >= {minimum}, "
                         f"got {value!r}.")
    return value


def _list(suite, key):
    value = suite.get(key)
    if not isinstance(value, list) or not value:
        raise SuiteError(f"Suite '{key}' must be a non-empty list, got "
                         f"{value!r}.")
    return value


def read_suite(path):
    """The suite file as a dict with every key this script reads, checked:
    name, algorithms, environments, seeds, steps, warmup_steps,
    evaluation {episodes, first_seed, interval}, and config (the
    suite's softlearning overrides, {} without)."""
    if path.endswith('.json'):
        load, parse_errors = json.load, (ValueError,)
    else:
        import yaml
        load, parse_errors = yaml.safe_load, (yaml.YAMLError, ValueError)
    try:
        with open(path) as f:
            suite = load(f)
    except OSError as error:
        raise SuiteError(f"Cannot read suite file {path}: "
                         f"{error.strerror}.") from None
    except parse_errors as error:
        first_line = str(error).strip().splitlines()[0]
        raise SuiteError(f"Suite file {path} does not parse: "
                         f"{first_line}") from None
    if not isinstance(suite, dict):
        raise SuiteError(f"Suite file {path} is not a mapping of keys.")
    name = suite.get('name') or os.path.splitext(os.path.basename(path))[0]
    algorithms = [str(a) for a in _list(suite, 'algorithms')]
    environments = _list(suite, 'environments')
    for environment in environments:
        split_environment(environment)
    seeds = [_int(seed, 'seeds', 0) for seed in _list(suite, 'seeds')]
    steps = _int(suite.get('steps'), "'steps'", 1)
    warmup_steps = _int(suite.get('warmup_steps', DEFAULT_WARMUP_STEPS),
                        "'warmup_steps'", 0)
    evaluation = suite.get('evaluation')
    if not isinstance(evaluation, dict):
        raise SuiteError("Suite 'evaluation' must be a mapping with "
                         "episodes, first_seed and interval.")
    for key in ('episodes', 'first_seed', 'interval'):
        if key not in evaluation:
            raise SuiteError(f"Suite 'evaluation' has no '{key}'.")
    evaluation = {
        'episodes': _int(evaluation['episodes'], "'evaluation.episodes'", 1),
        'first_seed': _int(evaluation['first_seed'],
                           "'evaluation.first_seed'", 0),
        'interval': _int(evaluation['interval'], "'evaluation.interval'", 1),
    }
    if steps % evaluation['interval']:
        raise SuiteError(
            f"Suite 'steps' ({steps}) is not a multiple of "
            f"'evaluation.interval' ({evaluation['interval']}): the last "
            "evaluation would not be at the end of training.")
    return {'name': str(name), 'algorithms': algorithms,
            'environments': environments, 'seeds': seeds, 'steps': steps,
            'warmup_steps': warmup_steps, 'evaluation': evaluation,
            'config': dict(suite.get('config') or {})}


def check_tqc_critics(suite, algorithms, library):
    """Refuses to run SBX's TQC against a suite whose softlearning TQC has
    another number of critics than SBX's two."""
    if library != 'sbx' or 'TQC' not in algorithms:
        return
    critics = suite['config'].get(TQC_CRITICS_KEY, TQC_PRESET_CRITICS)
    if critics != TQC_CRITICS:
        raise SuiteError(
            f"SBX's TQC has {TQC_CRITICS} critics; this suite's softlearning "
            f"TQC has {critics} ({TQC_CRITICS_KEY}: the preset's "
            f"{TQC_PRESET_CRITICS} unless the suite's config sets it). Set "
            f"'{TQC_CRITICS_KEY}: {TQC_CRITICS}' in the suite's config for "
            "the same agent on both sides (examples/benchmarks/tqc_50k.yaml), "
            "or leave TQC out (--algorithms).")


def select(values, chosen, what):
    """The suite's ``values`` restricted to ``chosen`` (None: all), in the
    suite's order; an unknown choice is an error."""
    if chosen is None:
        return list(values)
    unknown = [c for c in chosen if c not in values]
    if unknown:
        raise SuiteError(f"{what} {', '.join(map(str, unknown))} not in the "
                         f"suite (it has {', '.join(map(str, values))}).")
    return [value for value in values if value in chosen]


# Settings --------------------------------------------------------------------

def settings(algorithm, environment, suite):
    """Every setting of one run, under softlearning's names where they
    exist (``algorithm_params.config`` of params.json)."""
    universe, domain, _ = split_environment(environment)
    config = {**COMMON_SETTINGS, **ALGORITHM_SETTINGS[algorithm],
              **DOMAIN_SETTINGS.get((algorithm, f'{universe}/{domain}'), {})}
    evaluation = suite['evaluation']
    config.update({
        'n_initial_exploration_steps': suite['warmup_steps'],
        'initial_exploration_policy': 'uniform',
        # One row of progress.csv per evaluation: softlearning's epochs.
        'epoch_length': evaluation['interval'],
        'n_epochs': suite['steps'] // evaluation['interval'],
        'eval_n_episodes': evaluation['episodes'],
        'eval_deterministic': True,
    })
    return config


def constructor_arguments(library, algorithm, config):
    """The peer's SAC/TD3 keyword arguments for ``config``, but for
    ``seed`` (run_params.seed: trials that differ only in it are seeds of
    one configuration). JSON: the peer process turns
    ``policy_kwargs.activation_fn`` and ``action_noise`` into its
    objects."""
    if library == 'sb3' and config['Q_lr'] != config['policy_lr']:
        raise SuiteError("SB3 has one learning rate for actor and critics; "
                         f"got policy_lr {config['policy_lr']} and Q_lr "
                         f"{config['Q_lr']}.")
    if library == 'sb3' and algorithm not in SB3_ALGORITHMS:
        raise SuiteError(f"SB3 has no {algorithm}; use --library sbx.")
    if algorithm == 'TQC' and config['n_Q_functions'] != TQC_CRITICS:
        raise SuiteError(f"SBX's TQC has {TQC_CRITICS} critics, not "
                         f"{config['n_Q_functions']}.")
    if 'alpha_lr' in config and config['alpha_lr'] != config['policy_lr']:
        raise SuiteError("The peers' entropy coefficient learns at the "
                         "actor's learning rate; got alpha_lr "
                         f"{config['alpha_lr']}, policy_lr "
                         f"{config['policy_lr']}.")
    arguments = {
        'learning_rate': config['policy_lr'],
        'buffer_size': config['replay_pool_max_size'],
        'learning_starts': config['n_initial_exploration_steps'],
        'batch_size': config['batch_size'],
        'tau': config['tau'],
        'gamma': config['discount'],
        'train_freq': config['train_every_n_steps'],
        'gradient_steps': config['n_train_repeat'],
        'policy_kwargs': {
            'net_arch': list(config['hidden_layer_sizes']),
            'activation_fn': config['activation'],
            'n_critics': config['n_Q_functions'],
        },
        'verbose': 0,
    }
    if library == 'sbx':
        arguments['qf_learning_rate'] = config['Q_lr']
    else:
        arguments['device'] = 'cpu'
    if algorithm != 'TD3':  # SAC and its family
        arguments['ent_coef'] = f"auto_{float(config['initial_alpha'])}"
        arguments['target_entropy'] = config['target_entropy']
        if library == 'sb3':
            arguments['target_update_interval'] = config[
                'target_update_interval']
        else:
            arguments['policy_delay'] = config.get('policy_delay', 1)
        if algorithm == 'TQC':
            arguments['top_quantiles_to_drop_per_net'] = config[
                'top_quantiles_to_drop_per_net']
            arguments['policy_kwargs']['n_quantiles'] = config['n_quantiles']
        if algorithm == 'DroQ':
            arguments['policy_kwargs'].update(
                dropout_rate=config['dropout_rate'],
                layer_norm=config['layer_norm'])
        if algorithm == 'CrossQ':  # no target networks: no tau
            del arguments['tau']
            arguments['policy_kwargs']['net_arch'] = {
                'pi': list(config['hidden_layer_sizes']),
                'qf': list(config['Q_hidden_layer_sizes'])}
    else:
        arguments.update({
            'policy_delay': config['policy_delay'],
            'target_policy_noise': config['target_noise'],
            'target_noise_clip': config['target_noise_clip'],
            'action_noise': {'class': 'NormalActionNoise', 'mean': 0.0,
                             'sigma': config['exploration_noise']},
        })
    return arguments


def trial_name(library, algorithm, environment, seed):
    _, domain, task = split_environment(environment)
    return f'{library}-{algorithm}-{domain}-{task}-seed{seed}'


def trial_params(suite, library, versions, algorithm, environment, seed):
    """params.json of one run: softlearning's variant layout, plus
    ``benchmark`` (the protocol, the peer's arguments and versions)."""
    universe, domain, task = split_environment(environment)
    config = settings(algorithm, environment, suite)
    return {
        'algorithm_params': {'class_name': algorithm, 'config': config},
        'environment_params': {'training': {
            'universe': universe, 'domain': domain, 'task': task,
            'kwargs': {}}},
        'run_params': {'seed': seed},
        'benchmark': {
            'suite': suite['name'],
            'library': library,
            'library_version': versions.get(LIBRARY_MODULES[library]),
            'versions': versions,
            'algorithm': algorithm,
            'environment': environment,
            'gymnasium_id': gymnasium_id(environment),
            'steps': suite['steps'],
            'warmup_steps': suite['warmup_steps'],
            'evaluation': {**suite['evaluation'], 'deterministic': True,
                           'reward': 'raw environment reward'},
            'constructor': {
                # The module goes with the library, the class with the
                # algorithm: neither names a configuration of its own.
                'module': LIBRARY_MODULES[library],
                'class': PEER_CLASSES[algorithm],
                'policy': 'MlpPolicy',
                'kwargs': constructor_arguments(library, algorithm,
                                                config)},
        },
    }


# The trial folder ------------------------------------------------------------

def write_params(folder, params):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, PARAMS_FILE), 'w') as f:
        json.dump(params, f, indent=2, sort_keys=True)


def evaluation_row(epoch, total_timestep, returns, lengths, time_total_s,
                   epoch_seconds, evaluation_seconds, epoch_steps):
    """One progress.csv row (softlearning's column names; standard
    deviation over the episodes with ddof 0, as softlearning's)."""
    n = len(returns)
    mean = sum(returns) / n
    return {
        'epoch': epoch,
        'total_timestep': total_timestep,
        'evaluation/return-mean': mean,
        'evaluation/return-std': math.sqrt(
            sum((r - mean) ** 2 for r in returns) / n),
        'evaluation/return-min': min(returns),
        'evaluation/return-max': max(returns),
        'evaluation/episode-length-mean': sum(lengths) / n,
        'evaluation/episode-length-min': min(lengths),
        'evaluation/episode-length-max': max(lengths),
        'evaluation/episodes': n,
        'time_total_s': time_total_s,
        'timesteps_per_second': epoch_steps / epoch_seconds,
        'times/epoch': epoch_seconds,
        'times/evaluation': evaluation_seconds,
    }


class ProgressWriter:
    """progress.csv, started afresh (or continued, ``append``); each row
    appended and flushed as it comes, so a killed run leaves a readable
    file."""

    def __init__(self, folder, append=False):
        os.makedirs(folder, exist_ok=True)
        self._file = open(os.path.join(folder, PROGRESS_FILE),
                          'a' if append else 'w', newline='')
        self._writer = csv.DictWriter(self._file, PROGRESS_COLUMNS)
        if not append:
            self._writer.writeheader()
        self._file.flush()

    def write(self, row):
        self._writer.writerow(row)
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self):
        self._file.close()


def complete_rows(folder):
    """[(total_timestep, row)] of progress.csv's complete rows (not those
    cut short by a kill); [] without the file."""
    try:
        with open(os.path.join(folder, PROGRESS_FILE), newline='') as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return []
    complete = []
    for row in rows:
        if any(row.get(column) in (None, '') for column in PROGRESS_COLUMNS):
            continue
        try:
            complete.append((int(float(row['total_timestep'])), row))
        except ValueError:
            continue
    return complete


def last_timestep(folder):
    """The total_timestep of progress.csv's last row; None without one."""
    rows = complete_rows(folder)
    return rows[-1][0] if rows else None


def run_status(folder, steps):
    """'finished' (params.json, a progress.csv reaching ``steps`` and no
    error.txt), 'unfinished' (what a run that stopped before left) or
    'new'."""
    if not os.path.isdir(folder) or not os.listdir(folder):
        return 'new'
    timestep = last_timestep(folder)
    if (os.path.isfile(os.path.join(folder, PARAMS_FILE))
            and not os.path.exists(os.path.join(folder, ERROR_FILE))
            and timestep is not None and timestep >= steps):
        return 'finished'
    return 'unfinished'


def clear_run(folder):
    """Removes what an unfinished run left, checkpoint included: it starts
    over."""
    for name in (PROGRESS_FILE, PARAMS_FILE, ERROR_FILE, STDERR_FILE,
                 RESUMES_FILE):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            os.remove(path)
    remove_checkpoint(folder)


def read_checkpoint(folder):
    """The run's checkpoint record ({'total_timestep', 'epoch',
    'time_total_s', 'model', 'replay_buffer'}: the last two file names in
    CHECKPOINT_DIR), or None if it has no complete one."""
    directory = os.path.join(folder, CHECKPOINT_DIR)
    try:
        with open(os.path.join(directory, CHECKPOINT_FILE)) as f:
            record = json.load(f)
        files = [record['model'], record['replay_buffer']]
        int(record['total_timestep'])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(os.path.isfile(os.path.join(directory, name))
               for name in files):
        return None
    return record


def remove_checkpoint(folder):
    shutil.rmtree(os.path.join(folder, CHECKPOINT_DIR), ignore_errors=True)


def resumable(folder, params):
    """The checkpoint record if the unfinished run in ``folder`` can go on
    from it: same params.json (settings and library versions) and a
    progress.csv reaching the checkpoint's step; else None."""
    record = read_checkpoint(folder)
    if record is None:
        return None
    try:
        with open(os.path.join(folder, PARAMS_FILE)) as f:
            if json.load(f) != json.loads(json.dumps(params)):
                return None
    except (OSError, ValueError):
        return None
    timestep = last_timestep(folder)
    if timestep is None or timestep < int(record['total_timestep']):
        return None
    return record


def rewind_progress(folder, timestep):
    """Keeps progress.csv's complete rows up to ``timestep`` (the
    checkpoint's): the resumed run writes the later ones again."""
    path = os.path.join(folder, PROGRESS_FILE)
    rows = [row for step, row in complete_rows(folder) if step <= timestep]
    with open(path + '.tmp', 'w', newline='') as f:
        writer = csv.DictWriter(f, PROGRESS_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + '.tmp', path)


# In the peer's interpreter ---------------------------------------------------

def evaluate(model, environment, episodes, first_seed):
    """(returns, lengths) of ``episodes`` deterministic episodes, episode i
    reset with seed ``first_seed + i``."""
    returns, lengths = [], []
    for i in range(episodes):
        observation, _ = environment.reset(seed=first_seed + i)
        total, length, done = 0.0, 0, False
        while not done:
            action, _ = model.predict(observation, deterministic=True)
            observation, reward, terminated, truncated, _ = environment.step(
                action)
            total += float(reward)
            length += 1
            done = terminated or truncated
        returns.append(total)
        lengths.append(length)
    return returns, lengths


def save_checkpoint(model, folder, record):
    """The model and its replay buffer at ``record['total_timestep']``;
    the record is written last, then older files are removed."""
    directory = os.path.join(folder, CHECKPOINT_DIR)
    os.makedirs(directory, exist_ok=True)
    step = record['total_timestep']
    record = {**record, 'model': f'model-{step}.zip',
              'replay_buffer': f'replay_buffer-{step}.pkl'}
    model.save(os.path.join(directory, record['model']))
    model.save_replay_buffer(os.path.join(directory, record['replay_buffer']))
    path = os.path.join(directory, CHECKPOINT_FILE)
    with open(path + '.tmp', 'w') as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + '.tmp', path)
    for name in os.listdir(directory):
        if name not in (CHECKPOINT_FILE, record['model'],
                        record['replay_buffer']):
            os.remove(os.path.join(directory, name))


def train_in_peer(spec):
    """Trains one run in the peer's interpreter and writes its progress.csv
    (``spec``: folder, name, library, algorithm, gymnasium_id, steps,
    evaluation, constructor kwargs, and ``resume``: a checkpoint record to
    go on from, or None). A checkpoint follows every evaluation but the
    last."""
    import gymnasium as gym
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    library, algorithm = spec['library'], spec['algorithm']
    kwargs = {**json.loads(json.dumps(spec['kwargs'])),
              'seed': spec['seed']}
    policy_kwargs = kwargs['policy_kwargs']
    if library == 'sbx':
        import flax.linen as nn
        import sbx
        activations = {'relu': nn.relu}
        Algorithm = getattr(sbx, PEER_CLASSES[algorithm])
    else:
        import stable_baselines3
        import torch
        torch.set_num_threads(1)
        activations = {'relu': torch.nn.ReLU}
        Algorithm = getattr(stable_baselines3, algorithm)
    policy_kwargs['activation_fn'] = activations[policy_kwargs[
        'activation_fn']]
    noise = kwargs.pop('action_noise', None)
    environment_id, steps = spec['gymnasium_id'], spec['steps']
    training_environment = gym.make(environment_id)
    if noise is not None:
        import numpy as np
        from stable_baselines3.common.noise import NormalActionNoise
        n = int(np.prod(training_environment.action_space.shape))
        kwargs['action_noise'] = NormalActionNoise(
            mean=np.full(n, noise['mean']), sigma=np.full(n, noise['sigma']))
    evaluation = spec['evaluation']
    evaluation_environment = gym.make(environment_id)
    resume = spec.get('resume')
    progress = ProgressWriter(spec['folder'], append=bool(resume))
    # (Resumed: time_total_s continues from the checkpoint's.)
    start = time.perf_counter() - (resume['time_total_s'] if resume else 0)

    class Evaluation(BaseCallback):
        """Evaluates after the update of every ``interval``-th step: at
        the start of the next collection, or at the end of training."""

        def __init__(self):
            super().__init__()
            self.epoch, self.last_step = ((resume['epoch'],
                                           resume['total_timestep'])
                                          if resume else (0, 0))
            self.last_time = time.perf_counter()

        def _on_step(self):
            return True

        def _on_rollout_start(self):
            self.maybe_evaluate()

        def _on_training_end(self):
            self.maybe_evaluate()

        def maybe_evaluate(self):
            step = self.model.num_timesteps
            if (step == self.last_step
                    or step % evaluation['interval'] != 0):
                return
            evaluation_start = time.perf_counter()
            returns, lengths = evaluate(
                self.model, evaluation_environment, evaluation['episodes'],
                evaluation['first_seed'])
            now = time.perf_counter()
            self.epoch += 1
            row = evaluation_row(
                self.epoch, step, returns, lengths, now - start,
                epoch_seconds=now - self.last_time,
                evaluation_seconds=now - evaluation_start,
                epoch_steps=step - self.last_step)
            progress.write(row)
            print(f"{spec['name']}  step {step}/{steps}  eval return "
                  f"{row['evaluation/return-mean']:.1f} "
                  f"(std {row['evaluation/return-std']:.1f})  "
                  f"{row['timesteps_per_second']:.1f} steps/s", flush=True)
            self.last_step, self.last_time = step, now
            if step < steps:
                save_checkpoint(self.model, spec['folder'], {
                    'total_timestep': step, 'epoch': self.epoch,
                    'time_total_s': now - start})

    # Our progress.csv is the record; without a logger of its own, every
    # learn() would leave an empty SB3-<time> folder in the temp directory.
    silent_logger = Logger(folder=None, output_formats=[])
    if resume:
        # Not bit-exact: the environment starts a new episode here and the
        # peer's random streams are not restored. Everything learned is.
        directory = os.path.join(spec['folder'], CHECKPOINT_DIR)
        kwargs.pop('seed')
        model = Algorithm.load(os.path.join(directory, resume['model']),
                               env=training_environment,
                               **({'action_noise': kwargs['action_noise']}
                                  if 'action_noise' in kwargs else {}))
        model.load_replay_buffer(os.path.join(directory,
                                              resume['replay_buffer']))
        model.set_random_seed(spec['seed'] + model.num_timesteps)
        model.set_logger(silent_logger)
        model.learn(total_timesteps=steps - model.num_timesteps,
                    reset_num_timesteps=False, callback=Evaluation())
    else:
        model = Algorithm('MlpPolicy', training_environment, **kwargs)
        model.set_logger(silent_logger)
        model.learn(total_timesteps=steps, callback=Evaluation())
    progress.close()


# Running the suite -----------------------------------------------------------

# Runs in the peer's interpreter: this file's train_in_peer on one run.
PEER_SCRIPT = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import peers
peers.train_in_peer(json.loads(sys.argv[2]))
'''

# Runs in the peer's interpreter: prints {module: version} or fails.
VERSIONS_SCRIPT = '''
import importlib, json, sys
versions = {}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    versions[name] = getattr(module, "__version__", None)
print(json.dumps(versions))
'''


def peer_process_environment(base=None):
    """The environment of a peer process: one CPU thread, JAX on the CPU."""
    environment = dict(os.environ if base is None else base)
    xla_flags = environment.get('XLA_FLAGS', '')
    environment.update({
        'OMP_NUM_THREADS': '1',
        'MKL_NUM_THREADS': '1',
        'OPENBLAS_NUM_THREADS': '1',
        'JAX_PLATFORMS': 'cpu',
        'CUDA_VISIBLE_DEVICES': '',
        'XLA_FLAGS': (xla_flags + ' --xla_cpu_multi_thread_eigen=false'
                      ' intra_op_parallelism_threads=1').strip(),
        'PYTHONUNBUFFERED': '1',
    })
    return environment


def peer_versions(peer_python, library):
    """{module: version} of the library and what it runs on, from the
    peer's interpreter; SuiteError if it cannot import them."""
    modules = VERSION_MODULES[library]
    try:
        result = subprocess.run(
            [peer_python, '-c', VERSIONS_SCRIPT, *modules],
            capture_output=True, text=True,
            env=peer_process_environment())
    except OSError as error:
        raise SuiteError(f"--peer-python {peer_python}: "
                         f"{error.strerror}.") from None
    if result.returncode:
        last = (result.stderr.strip().splitlines() or ['no output'])[-1]
        raise SuiteError(f"--peer-python {peer_python} cannot import "
                         f"{library}'s modules: {last}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def plan_runs(suite, library, output, algorithms, environments, seeds):
    """The runs to start, as peer specs; prints what is skipped."""
    runs = []
    for algorithm in algorithms:
        if algorithm not in ALGORITHMS:
            print(f"{algorithm}: not run with the peers (only "
                  f"{', '.join(ALGORITHMS)}); skipped.")
            continue
        for environment in environments:
            try:
                environment_id = gymnasium_id(environment)
            except SuiteError as error:
                print(f"{error} Skipped.")
                continue
            for seed in seeds:
                name = trial_name(library, algorithm, environment, seed)
                folder = os.path.join(output, name)
                status = run_status(folder, suite['steps'])
                if status == 'finished':
                    print(f"{name}: finished ({suite['steps']} steps), "
                          "skipped.")
                    continue
                runs.append({
                    'folder': folder, 'name': name, 'library': library,
                    'algorithm': algorithm, 'environment': environment,
                    'gymnasium_id': environment_id, 'seed': seed,
                    'steps': suite['steps'],
                    'evaluation': suite['evaluation']})
    # Seed by seed (as softlearning's suite runs them): an interrupted
    # suite has every algorithm and task for its first seeds.
    runs.sort(key=lambda run: seeds.index(run['seed']))
    return runs


def _start(run, params, peer_python):
    """Starts the run's peer process: from its checkpoint if it has one
    with the same params.json, else from scratch."""
    folder = run['folder']
    resume = resumable(folder, params) if os.path.isdir(folder) else None
    if resume:
        step = int(resume['total_timestep'])
        rewind_progress(folder, step)
        for name in (ERROR_FILE, STDERR_FILE):
            if os.path.exists(os.path.join(folder, name)):
                os.remove(os.path.join(folder, name))
        with open(os.path.join(folder, RESUMES_FILE), 'a') as f:
            f.write(f'resumed from the checkpoint at step {step}\n')
        print(f"{run['name']}: continuing from its checkpoint at step "
              f"{step}.", flush=True)
    else:
        if os.path.isdir(folder) and os.listdir(folder):
            print(f"{run['name']}: unfinished without a usable checkpoint, "
                  "starting over.", flush=True)
        clear_run(folder)
        write_params(folder, params)
    spec = {**run, 'resume': resume,
            'kwargs': params['benchmark']['constructor']['kwargs']}
    stderr = open(os.path.join(run['folder'], STDERR_FILE), 'w')
    process = subprocess.Popen(
        [peer_python, '-c', PEER_SCRIPT, HERE, json.dumps(spec)],
        stdout=None, stderr=stderr, env=peer_process_environment())
    stderr.close()
    print(f"{run['name']}: started ({run['gymnasium_id']}, "
          f"{run['steps']} steps).", flush=True)
    return process


def _finish(run, returncode):
    """Keeps a failed run's error output as error.txt (softlearning's
    analysis then reports the trial as an error); True if it succeeded."""
    stderr = os.path.join(run['folder'], STDERR_FILE)
    if returncode == 0:
        os.remove(stderr)
        remove_checkpoint(run['folder'])
        print(f"{run['name']}: done.", flush=True)
        return True
    error_file = os.path.join(run['folder'], ERROR_FILE)
    os.replace(stderr, error_file)
    with open(error_file) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    cause = (f'killed by signal {-returncode}' if returncode < 0
             else f'exit code {returncode}')
    if returncode < 0 or not lines:
        with open(error_file, 'a') as f:
            f.write(f'The peer process ended: {cause}.\n')
    print(f"{run['name']}: failed ({cause}"
          f"{': ' + lines[-1] if lines else ''}; see {error_file}).",
          flush=True)
    return False


def run_all(runs, suite, library, versions, peer_python, parallel):
    """Runs ``runs``, ``parallel`` at a time; returns how many failed."""
    waiting, running, failed = list(runs), [], 0

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                run = waiting.pop(0)
                params = trial_params(suite, library, versions,
                                      run['algorithm'], run['environment'],
                                      run['seed'])
                running.append((run, _start(run, params, peer_python)))
            time.sleep(0.5)
            still = []
            for run, process in running:
                if process.poll() is None:
                    still.append((run, process))
                elif not _finish(run, process.returncode):
                    failed += 1
            running = still
    except KeyboardInterrupt:
        for run, process in running:
            process.terminate()
        for run, process in running:
            process.wait()
        print("Interrupted: the runs in progress keep the evaluations they "
              "wrote (readable trials) and continue from their latest "
              "checkpoint next time.", flush=True)
        raise SystemExit(130)
    return failed


def _names(text):
    """'SAC,TD3' (commas and/or separate arguments) -> ['SAC', 'TD3']."""
    return [name for part in text for name in part.split(',') if name]


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="SBX's or SB3's SAC and TD3 under softlearning's "
                    "benchmark protocol, written as softlearning trials.")
    parser.add_argument('suite', help='Suite file (YAML, or .json).')
    parser.add_argument('--peer-python', required=True,
                        help='Interpreter with sbx-rl / stable-baselines3 '
                             "and gymnasium[mujoco].")
    parser.add_argument('--library', choices=LIBRARIES, default='sbx')
    parser.add_argument('--output', default=None,
                        help='Folder of the trial folders (default: '
                             'benchmarks/results/<suite name>/<library>/).')
    parser.add_argument('--parallel', type=int, default=1,
                        help='Runs at once, one CPU thread each '
                             '(default: %(default)s).')
    parser.add_argument('--algorithms', nargs='+', default=None,
                        help="A subset of the suite's, e.g. SAC,TD3.")
    parser.add_argument('--environments', nargs='+', default=None,
                        help="A subset of the suite's, e.g. "
                             'gym/Hopper/v5,gym/Walker2d/v5.')
    parser.add_argument('--seeds', nargs='+', default=None,
                        help="A subset of the suite's, e.g. 0,1.")
    args = parser.parse_args(argv)
    if args.parallel < 1:
        parser.error(f'--parallel must be >= 1, got {args.parallel}.')
    try:
        suite = read_suite(args.suite)
        algorithms = select(suite['algorithms'], args.algorithms
                            and _names(args.algorithms), 'Algorithm')
        environments = select(suite['environments'], args.environments
                              and _names(args.environments), 'Environment')
        seeds = args.seeds and _names(args.seeds)
        if seeds is not None:
            try:
                seeds = [int(seed) for seed in seeds]
            except ValueError:
                raise SuiteError(f"--seeds must be integers, got "
                                 f"{' '.join(args.seeds)}.") from None
        seeds = select(suite['seeds'], seeds, 'Seed')
        check_tqc_critics(suite, algorithms, args.library)
    except SuiteError as error:
        parser.error(str(error))
    if suite['config']:
        print("The suite's 'config' overrides are softlearning's only: they "
              "are not applied to the peers.")
    output = args.output or os.path.join(REPO, 'benchmarks', 'results',
                                         suite['name'], args.library)
    runs = plan_runs(suite, args.library, output, algorithms, environments,
                     seeds)
    if not runs:
        print(f"Nothing to run; the trials are in {output}.")
        return
    try:
        versions = peer_versions(args.peer_python, args.library)
    except SuiteError as error:
        parser.error(str(error))
    print(f"{len(runs)} run(s) of {args.library} "
          f"{versions[LIBRARY_MODULES[args.library]]}, {args.parallel} at a "
          f"time, into {output}.", flush=True)
    failed = run_all(runs, suite, args.library, versions, args.peer_python,
                     args.parallel)
    print(f"{len(runs) - failed} of {len(runs)} run(s) finished; the trials "
          f"are in {output} (softlearning summary {output}).")
    if failed:
        sys.exit(1)


if __name__ == '__main__':
    main()
