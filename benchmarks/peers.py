"""SBX's (JAX) and Stable-Baselines3's (PyTorch) SAC, TD3 and TQC, and SBX's
DroQ (its SAC with dropout + LayerNorm critics, 20 updates per step, the
policy every 20) and CrossQ (with the preset's critic width), under
softlearning's benchmark protocol, each run written as a softlearning
trial folder, so that ``softlearning summary``, ``plot``
and ``report`` read them next to softlearning's own trials.

TQC has 25 quantiles per critic and the preset's per-domain drop (2 per
critic; 5 on Hopper, 0 on HalfCheetah). SBX's has two critics (SBX 0.28's
TQCPolicy builds two whatever ``n_critics`` says; ``n_critics`` only sizes
the target's atom count, so 5 would keep more atoms than the two critics
have and drop none): softlearning's TQC preset has five, so a suite with
TQC runs with SBX only if its ``config`` sets
``Q_params.config.n_Q_functions: 2``, so that both sides are the same agent
(examples/benchmarks/tqc_50k.yaml). SB3's TQC is sb3-contrib's
(``sb3_contrib.TQC``), which builds ``n_critics`` critics: the preset's
(five), and a suite whose ``config`` changes that count is refused for it.

Goal-conditioned tasks (gymnasium-robotics' Fetch tasks, ``gym/FetchReach/v4``
is ``FetchReach-v4``: Dict observations ``observation``, ``achieved_goal``,
``desired_goal``, a sparse reward, ``info['is_success']``): where the preset
replays with hindsight (``replay_pool_params.class_name:
HindsightReplayPool``), the peer replays with SB3's ``HerReplayBuffer``
(SBX's too), ``n_sampled_goal`` the pool's ``relabeled_goals`` and
``goal_selection_strategy`` its ``strategy``, through ``MultiInputPolicy``
(each observation entry flattened, then concatenated: the same MLP); the
rest as below, the preset's discount, tau, learning rates and sizes. The
peer's interpreter does not have softlearning: its process loads
softlearning's ``environments/adapters/robotics.py`` by its path and calls
``register_robotics_environments()`` before ``gym.make`` of a task gymnasium
does not know by itself (it registers gymnasium-robotics' tasks and patches
them where they fail on recent mujoco), so that both libraries run the same
tasks.

    python benchmarks/peers.py SUITE_FILE \\
        --peer-python /tmp/peers/bin/python [--library sbx|sb3] \\
        [--output DIR] [--parallel N] [--algorithms SAC,TD3] \\
        [--environments gym/Hopper/v5,...] [--seeds 0,1] [--peer-defaults]

Neither peer is a dependency of softlearning. Install them in any Python
environment and point ``--peer-python`` at its interpreter:

    python -m venv /tmp/peers
    /tmp/peers/bin/pip install sbx-rl stable-baselines3 'gymnasium[mujoco]'
    # SB3's TQC, and the goal-conditioned Fetch tasks:
    /tmp/peers/bin/pip install sb3-contrib gymnasium-robotics

The suite file (YAML, or JSON if its name ends in .json) is the one
softlearning's own runner reads, read by its loader
(``softlearning.experiments.benchmark.suites.load_suite``: the same rules and
defaults); this script uses ``name``, ``algorithms``, ``environments``
(``gym`` ones only, ``gym/HalfCheetah/v5`` is gymnasium's
``HalfCheetah-v5``), ``seeds``, ``steps``, ``warmup_steps`` and
``evaluation``. ``options`` is ignored; ``config``'s overrides apply to
the settings the peers take (peer_settings.py), the others are
softlearning's only (TQC's critic count is checked, above).

Each (algorithm, environment, seed) trains in its own process of the peer's
interpreter, one CPU thread each, pinned to a core of its own from the
last one down, at the niceness of Ray's workers (``--parallel`` runs that
many at once; peer_processes.py says why; the cores are those this
process may use, so two invocations at once pin to the same core unless
each is started under its own, e.g. ``taskset -c 0 python
benchmarks/peers.py ...``),
and writes ``<output>/<library>-<algorithm>-<Domain>-<task>-seed<seed>/``
(``--output`` defaults to ``benchmarks/results/<suite name>/<library>/``):
``params.json`` (the settings, under softlearning's names where they exist,
the peer's constructor arguments and versions) and ``progress.csv``, one row
per evaluation, appended as each finishes: ``epoch`` (the evaluation's
number), ``total_timestep``, ``evaluation/return-mean`` (-std, -min, -max),
``evaluation/episode-length-mean`` (-min, -max), ``time_total_s`` (from the
model's construction, JIT compilation included), ``timesteps_per_second``
(over the interval, its evaluation included, as softlearning's epochs),
``times/evaluation``, and where the environment reports successes
(``info['is_success']`` of an episode's last step: the goal-conditioned
tasks) ``evaluation/success-rate``, the fraction of the evaluation's
episodes that ended in one (also printed). A run whose progress.csv reaches
``steps`` is skipped. After every evaluation but the last, a run saves the
peer's model and replay buffer in ``checkpoint/`` (removed when it
finishes; a ``HerReplayBuffer`` gets the model's environment back when
loaded); an unfinished run with the same ``params.json`` continues from
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

Settings: read from softlearning's presets (each cell's variant as
softlearning builds it, constructor defaults included; peer_settings.py)
and passed to the peer worker (peer_worker.py, which imports nothing of
softlearning) as JSON. With today's presets: 256-256 ReLU networks for
the actor and each of two critics, Adam with learning rates 3e-4 (actor,
critics and SAC's entropy coefficient; 1e-3 on gym/Pendulum, as softlearning's
Pendulum preset; each library's own epsilon), batch 256, a 1e6 replay
buffer, discount 0.99, tau 0.005, time-limit truncations bootstrapped.
SAC: entropy coefficient learned from 1.0 (``ent_coef='auto_1.0'``) towards
the target entropy -|A|, targets updated every update. TD3: Gaussian
exploration noise of standard deviation 0.1 (in actions scaled to [-1, 1]),
target policy noise 0.2 clipped at 0.5, policy and targets updated every 2
updates. SBX's and SB3's defaults that differ and are set here:
``learning_starts`` (100 in both), TD3's ``action_noise`` (none), SB3 TD3's
``net_arch`` ([400, 300]).

``--peer-defaults``: the peer at its own defaults instead (SBX's CrossQ:
1024-wide critics, its learning rates and delays), the protocol alone
imposed (the warm-up, the evaluations, the budget); for per-hour suites,
where a budget bounds every run's cost whatever its sizes and each library
runs its own defaults. params.json then records the protocol's settings
and the peer's constructor arguments only. Not for goal-conditioned tasks:
their ``MultiInputPolicy`` and hindsight replay come from the preset, which
``--peer-defaults`` does not read (the peer refuses ``MlpPolicy`` for Dict
observations).

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
- Hindsight replay: SB3's HerReplayBuffer draws from complete episodes
  only and relabels a fixed int(k / (k + 1) * batch) of each minibatch;
  softlearning's pool draws from every stored step (the episode under way
  included) and relabels each with probability k / (k + 1). Both take the
  new goal from the next observation's ``achieved_goal``, 'future' from the
  transition's own step on.
"""


import argparse
import os
import sys

from peer_processes import VERSION_MODULES, peer_versions, run_all
from peer_settings import (
    ALGORITHMS, LIBRARY_MODULES, check_tqc_critics, constructor,
    is_goal_conditioned, preset_settings, settings)
from peer_trial_folder import run_status
from softlearning.experiments import ExperimentError
from softlearning.experiments.benchmark.suites import SuiteError, load_suite
from softlearning.experiments.benchmark.suite_part import part_of_suite

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LIBRARIES = tuple(LIBRARY_MODULES)
# The environment kwargs the peers apply as softlearning's adapters do.
PEER_ENVIRONMENT_KWARGS = ('action_repeat',)
# What goal-conditioned tasks (gymnasium-robotics') run on.
ROBOTICS_PACKAGE = 'gymnasium_robotics'


def gymnasium_id(environment):
    """'gym/HalfCheetah/v5' -> 'HalfCheetah-v5'; a dm_control task,
    'dm_control/dog/run' -> 'dm_control/dog-run' (the worker builds it with
    softlearning's dm_control_gymnasium.py)."""
    universe, domain, task = environment.split('/')
    if universe == 'dm_control':
        return f'dm_control/{domain}-{task}'
    if universe != 'gym':
        raise SuiteError(f"{environment}: the peers run gymnasium and "
                         "dm_control environments only (universes 'gym', "
                         "'dm_control').")
    return f'{domain}-{task}'


def peer_environment_kwargs(suite, environment):
    """The suite's environment kwargs of ``environment`` that the peers
    apply (dm_control's action repeat); any other is a SuiteError."""
    kwargs = suite.kwargs_of(tuple(environment.split('/')))
    unknown = sorted(set(kwargs) - set(PEER_ENVIRONMENT_KWARGS))
    if unknown or (kwargs and not environment.startswith('dm_control/')):
        raise SuiteError(
            f"{environment}: the peers cannot apply the suite's "
            f"environment_kwargs {kwargs}; they take "
            f"{', '.join(PEER_ENVIRONMENT_KWARGS)} on dm_control tasks.")
    return kwargs


def trial_name(library, algorithm, environment, seed):
    _, domain, task = environment.split('/')
    return f'{library}-{algorithm}-{domain}-{task}-seed{seed}'


def plan_runs(suite, library, output, algorithms, environments, seeds,
              peer_defaults=False):
    """The runs to start, each with its settings and the peer's
    constructor (``peer_defaults``: at the peer's own defaults); prints
    what is skipped. SuiteError (before any run starts) for settings the
    peer cannot take."""
    runs, presets = [], {}
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
            environment_kwargs = peer_environment_kwargs(suite, environment)
            for seed in seeds:
                name = trial_name(library, algorithm, environment, seed)
                folder = os.path.join(output, name)
                if run_status(folder, suite.steps,
                              suite.training_seconds) == 'finished':
                    print(f"{name}: finished ("
                          + (f"its budget of {suite.budget['training_minutes']}"
                             " minutes" if suite.budget
                             else f"{suite.steps} steps") + "), skipped.")
                    continue
                cell = (algorithm, environment)
                if cell not in presets:  # one variant per cell
                    presets[cell] = ({'peer_defaults': True} if peer_defaults
                                     else preset_settings(
                                         algorithm, environment, library,
                                         suite.config))
                config = settings(algorithm, environment, suite,
                                  presets[cell])
                runs.append({
                    'folder': folder, 'name': name, 'library': library,
                    'algorithm': algorithm, 'environment': environment,
                    'gymnasium_id': environment_id, 'seed': seed,
                    'environment_kwargs': environment_kwargs,
                    'steps': suite.steps, 'evaluation': suite.evaluation,
                    'training_seconds': suite.training_seconds,
                    'config': config,
                    'constructor': constructor(library, algorithm, config,
                                               peer_defaults)})
    # Seed by seed (as softlearning's suite runs them): an interrupted
    # suite has every algorithm and task for its first seeds.
    runs.sort(key=lambda run: seeds.index(run['seed']))
    return runs


def extra_modules(run):
    """The modules a run needs besides its library's usual ones
    (peer_processes.VERSION_MODULES): sb3-contrib for SB3's TQC,
    gymnasium-robotics for a goal-conditioned task, dm_control for its
    tasks."""
    modules = [run['constructor']['module']]
    if is_goal_conditioned(run['config']):
        modules.append(ROBOTICS_PACKAGE)
    if run['environment'].startswith('dm_control/'):
        modules.append('dm_control')
    return [module for module in modules
            if module not in VERSION_MODULES[run['library']]]


def run_versions(versions, run):
    """The versions a run's params.json records: its library's and what
    it runs on, not the modules only other runs need (whose presence would
    otherwise change its params.json, and stop it resuming)."""
    usual = VERSION_MODULES[run['library']]
    needed = extra_modules(run)
    return {module: version for module, version in versions.items()
            if module in usual or module in needed}


def trial_params(suite, versions, run):
    """params.json of one planned run: softlearning's variant layout, plus
    ``benchmark`` (the protocol, the peer's constructor and versions)."""
    universe, domain, task = run['environment'].split('/')
    library = run['library']
    versions = run_versions(versions, run)
    return {
        'algorithm_params': {'class_name': run['algorithm'],
                             'config': run['config']},
        'environment_params': {'training': {
            'universe': universe, 'domain': domain, 'task': task,
            'kwargs': {}}},
        'run_params': {'seed': run['seed']},
        'benchmark': {
            'suite': suite.name,
            'library': library,
            'library_version': versions.get(LIBRARY_MODULES[library]),
            'versions': versions,
            'algorithm': run['algorithm'],
            'environment': run['environment'],
            'gymnasium_id': run['gymnasium_id'],
            **({'environment_kwargs': run['environment_kwargs']}
               if suite.environment_kwargs else {}),
            'steps': suite.steps,
            'warmup_steps': suite.warmup_steps,
            **({'budget': suite.budget} if suite.budget else {}),
            'evaluation': {**suite.evaluation, 'deterministic': True,
                           'reward': 'raw environment reward'},
            'constructor': run['constructor'],
        },
    }


def _parser():
    parser = argparse.ArgumentParser(
        description="SBX's or SB3's SAC, TD3 and TQC, SBX's DroQ and CrossQ, "
                    "under softlearning's benchmark protocol, written as "
                    "softlearning trials.")
    parser.add_argument('suite', help='Suite file (YAML, or .json).')
    parser.add_argument('--peer-python', required=True,
                        help='Interpreter with sbx-rl / stable-baselines3 '
                             "and gymnasium[mujoco] (sb3-contrib for SB3's TQC, "
                             "gymnasium-robotics for Fetch, dm_control for "
                             "its tasks).")
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
    parser.add_argument('--peer-defaults', action='store_true',
                        help="The peer at its own defaults, the protocol "
                             "alone imposed (per-hour suites), instead of "
                             "softlearning's preset settings.")
    return parser


def _selection(suite, args):
    """(algorithms, environments, seeds) of the suite that
    --algorithms/--environments/--seeds choose."""
    part = part_of_suite(suite, args.algorithms, args.environments,
                         args.seeds)
    check_tqc_critics(suite, part.algorithms, args.library)
    return (part.algorithms, ['/'.join(e) for e in part.environments],
            part.seeds)


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.parallel < 1:
        parser.error(f'--parallel must be >= 1, got {args.parallel}.')
    try:
        suite = load_suite(args.suite)
        algorithms, environments, seeds = _selection(suite, args)
    except ExperimentError as error:
        parser.error(str(error))
    if suite.config:
        print("The suite's 'config' overrides reach the peers through the "
              "settings they take (peer_settings.py); the rest are "
              "softlearning's only.")
    output = args.output or os.path.join(REPO, 'benchmarks', 'results',
                                         suite.name, args.library)
    try:
        runs = plan_runs(suite, args.library, output, algorithms,
                         environments, seeds, args.peer_defaults)
    except ExperimentError as error:
        parser.error(str(error))
    if not runs:
        print(f"Nothing to run; the trials are in {output}.")
        return
    try:
        versions = peer_versions(args.peer_python, args.library, sorted(
            {module for run in runs for module in extra_modules(run)}))
    except SuiteError as error:
        parser.error(str(error))
    print(f"{len(runs)} run(s) of {args.library} "
          f"{versions[LIBRARY_MODULES[args.library]]}, {args.parallel} at a "
          f"time, into {output}.", flush=True)
    failed = run_all(runs, lambda run: trial_params(suite, versions, run),
                     args.peer_python, args.parallel)
    print(f"{len(runs) - failed} of {len(runs)} run(s) finished; the trials "
          f"are in {output} (softlearning summary {output}).")
    if failed:
        sys.exit(1)


if __name__ == '__main__':
    main()
