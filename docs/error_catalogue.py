"""The one-line errors softlearning's commands end with, each with a command
that produces it, its cause and its fix: the source of the troubleshooting
page (docs/guide/troubleshooting.md, ``<!-- generated: errors -->``).

Every entry's command really ends with its message:
tests/test_troubleshooting.py runs them all (this file as a script) and
compares. Run them yourself with

    python docs/error_catalogue.py            # a report, one line per entry
    python docs/error_catalogue.py --json     # what the test reads

Each command runs in a fresh, empty folder of its own (the entry's
``files`` are written there first), through the same entry point as the
``softlearning`` command, in one process, one after another. A bad input is
refused before Ray or TensorFlow start: here, importing TensorFlow or
starting Ray is an error of the entry.

``message`` is the line after ``softlearning: error: ``; ``…`` stands for
a part left out (a path of the machine, a long list of choices).
"""

import contextlib
import io
import json
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Optional

PREFIX = 'softlearning: error: '
ELLIPSIS = '…'

# The groups of the page, in order: (title, introduction).
GROUPS = {
    'commands': ('Commands and examples', ''),
    'options': ('Options and --config values',
                'Every option and `--config` value is checked before Ray starts, against '
                'the option schema and the constructors of the components it configures '
                '([options](../reference/options.md), [variants](variants.md)).'),
    'algorithms': ('Agents, policies and networks',
                   'Which policies, networks and replay pools each agent can train '
                   '([algorithms](../algorithms/index.md)).'),
    'resources': ('CPUs and sampler actors',
                  'How the trainer and its sampler actors share the CPUs Ray gets '
                  '([parallel sampling](parallel-sampling.md)).'),
    'environments': ('Environments',
                     '[Command line](command-line.md), '
                     '[your own environment](custom-environment.md).'),
    'curriculum': ('Curricula', '[Curricula](curriculum.md).'),
    'checkpoints': ('Checkpoints and resuming',
                    '[Checkpoints and resuming](checkpoints.md), '
                    '[simulate and export](simulate.md).'),
    'debug': ('run_example_debug',
              'One trial in this process, eagerly: what it cannot honour '
              '([command line](command-line.md)).'),
    'sweeps': ('Sweeps', '[Sweeps](sweeps.md).'),
    'clusters': ('Clusters and results storage',
                 '[Clusters and the autoscaler](clusters.md), '
                 '[reading results](results.md).'),
    'trackers': ('Experiment trackers', '[Experiment trackers](results.md#experiment-trackers).'),
    'benchmarks': ('Benchmark suites and reports',
                   '[Benchmarks](../benchmarks/index.md).'),
}


@dataclass
class Entry:
    group: str
    title: str
    command: str
    message: Optional[str]
    cause: str
    fix: str
    # {path: text} written into the command's folder first.
    files: dict = field(default_factory=dict)
    # A function of the folder, run after the files are written.
    setup: Optional[Callable] = None
    # A context manager (a function returning one) the command runs in:
    # the machine it describes, where the message depends on the machine.
    machine: Optional[Callable] = None
    # What the line starts with (a results command names itself).
    prefix: str = PREFIX


def _checkpoint(folder, name='trial/checkpoint_000001', corrupt=False,
                format_version=None, variant='{}'):
    """A small complete checkpoint (manifest and all), optionally spoilt."""
    from softlearning.utils import checkpoints
    path = os.path.join(folder, name)
    os.makedirs(path)
    with open(os.path.join(path, checkpoints.STATE_FILE), 'wb') as f:
        f.write(b'a' * 64)
    with open(os.path.join(path, checkpoints.VARIANT_FILE), 'w') as f:
        f.write(variant)
    checkpoints.write_manifest(path, [], {})
    if corrupt:  # the same size, other bytes
        with open(os.path.join(path, checkpoints.STATE_FILE), 'wb') as f:
            f.write(b'b' * 64)
    if format_version is not None:
        manifest_path = os.path.join(path, checkpoints.MANIFEST_FILE)
        with open(manifest_path) as f:
            manifest = json.load(f)
        manifest['format'] = format_version
        with open(manifest_path, 'w') as f:
            json.dump(manifest, f)


RUN = 'softlearning run_example_local examples.development'


@contextlib.contextmanager
def _cpu_without_bfloat16():
    """This machine as one whose CPU has neither AVX512_BF16 nor AMX-BF16
    (an AMD EPYC with AVX2), with no GPU and no override: the refusal shows
    on any machine."""
    from unittest import mock

    from softlearning.algorithms.precision import ALLOW_ENV
    from softlearning.utils import machine
    cpuinfo = 'model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx avx2 fma\n'
    environ = {key: value for key, value in os.environ.items()
               if key != ALLOW_ENV}
    with mock.patch.object(machine, 'read_cpuinfo', lambda: cpuinfo), \
            mock.patch.object(machine, 'nvidia_gpu_visible',
                              lambda **_: False), \
            mock.patch.dict(os.environ, environ, clear=True):
        yield


def _hopper_variant():
    """A checkpoint's variant.json as HalfCheetah-v5's run would write it,
    but trained on Hopper."""
    from softlearning import experiments
    variant = experiments.variant_spec(domain='HalfCheetah', task='v5')
    variant['environment_params']['training']['domain'] = 'Hopper'
    return json.dumps(variant, default=str)

ENTRIES = [
    # Commands and examples ----------------------------------------------------
    Entry('commands', 'A command without its EXAMPLE',
          'softlearning run_example_local --domain Pendulum',
          "'run_example_local' needs an EXAMPLE module, e.g. 'softlearning "
          "run_example_local examples.development ...'",
          'The `run_example_*` and `launch_example_*` commands take the experiment '
          'definition (a Python module) first, then its options.',
          'Put `examples.development` (softlearning\'s own experiment) after the command.'),
    Entry('commands', 'An example module that cannot be imported',
          'softlearning run_example_local examples.nope',
          "Cannot import example module 'examples.nope' (No module named "
          "'examples.nope'); e.g. use 'examples.development'.",
          'EXAMPLE is a module importable from the folder you run in (as with '
          '`python -m`); `examples.development` always resolves, even without the '
          "repository's `examples/` folder.",
          'Check the module name, and run from the folder that holds your module '
          '(or `pip install` its package).'),
    # Options ------------------------------------------------------------------
    Entry('options', 'An unknown algorithm', f'{RUN} --algorithm TD4',
          "argument --algorithm: invalid choice: 'TD4' (choose from 'SAC', …)",
          '`--algorithm` takes a registered algorithm.',
          'Choose one of the listed names (case matters: `DroQ`, `CrossQ`, `SimbaV2`); '
          '`softlearning --help` lists them too.'),
    Entry('options', 'An unknown universe', f'{RUN} --universe gymm',
          "argument --universe: invalid choice: 'gymm' (choose from 'gym', "
          "'dm_control', 'pybullet')",
          'A universe is the suite an environment comes from.',
          '`gym` (gymnasium), `dm_control` or `pybullet`.'),
    Entry('options', 'A number out of range', f'{RUN} --n-epochs -3',
          'argument --n-epochs: expected a positive integer, got -3',
          'Counts (epochs, steps, samplers) are positive.',
          'Give a positive whole number.'),
    Entry('options', 'Not a number', f'{RUN} --seed abc',
          "argument --seed: invalid int value: 'abc'",
          'The option takes a whole number.', 'Give one, e.g. `--seed 1`.'),
    Entry('options', 'Not a boolean', f'{RUN} --checkpoint-at-end maybe',
          "argument --checkpoint-at-end: invalid boolean value 'maybe' (choose from "
          "True, False)",
          'Switches take an explicit value.',
          '`True` or `False` (`true`/`false`, `1`/`0` work too).'),
    Entry('options', 'Not JSON in a JSON option',
          f"{RUN} --resources-per-trial '{{cpu: 1}}'",
          "argument --resources-per-trial: invalid JSON '{cpu: 1}': Expecting "
          "property name enclosed in double quotes",
          'The option takes a JSON object; JSON needs its keys in double quotes.',
          "Quote the keys, and the whole value for the shell: "
          "`--resources-per-trial '{\"cpu\": 1}'`."),
    Entry('options', 'An option that does not exist',
          f'{RUN} --temp-dir /tmp/ray',
          'unrecognized arguments: --temp-dir /tmp/ray',
          'The option is not one of the command\'s: misspelt, or one of the original '
          "softlearning's that is gone (`--temp-dir`, `--include-webui`, "
          '`--server-port`, `--trial-extra-cpus`).',
          '`softlearning run_example_local examples.development --help` lists the '
          'options ([migrating](migration.md)).'),
    Entry('options', 'A misspelt constructor argument',
          f'{RUN} --config algorithm_params.config.discont=0.9',
          "Unknown key 'discont' in algorithm_params.config: SAC accepts Q_lr, "
          "adam_beta1, adam_epsilon, alpha_lr, …",
          "A `*.config.*` key is a keyword argument of the component's constructor; "
          'they are read from the source before anything starts, so a misspelt key '
          'does not reach a trial.',
          'Use one of the keys listed (`softlearning show-config examples.development` '
          'prints the whole variant, each value with its source).'),
    Entry('options', 'A misspelt variant key',
          f'{RUN} --config algorithm_parms.config.discount=0.9',
          "Unknown variant key 'algorithm_parms' in --config "
          "algorithm_parms.config.discount; valid keys here: ['Q_params', "
          "'algorithm_params', …]",
          "`--config` sets an entry of the variant that exists; the message lists "
          'the valid keys at the level where the path went wrong.',
          'Fix the path; see [variants](variants.md) for the variant\'s layout.'),
    Entry('options', 'A --config value that is not JSON',
          f"{RUN} --config 'algorithm_params.config.discount={{0.9'",
          "--config algorithm_params.config.discount={0.9: the value is not JSON; "
          "write a number (0.9), true/false, a list ([64, 64]), an object, or a "
          "string in quotes (…).",
          '`--config` values are JSON (a bare word counts as a string only where '
          'the entry is a string).',
          'Write the value as JSON, and quote the whole `KEY=VALUE` for the shell.'),
    Entry('options', 'A --config value of the wrong kind',
          f"{RUN} --config 'algorithm_params.config.discount=\"abc\"'",
          '--config algorithm_params.config.discount="abc": '
          'algorithm_params.config.discount takes a number (its default is 0.99).',
          "Values are checked against the kind of the entry's default.",
          'Give a value of that kind (here a number, `0.99`).'),
    Entry('options', 'A search space of the wrong kind',
          f"{RUN} --config 'algorithm_params.config.n_epochs={{\"grid_search\": [1, 2.5]}}'",
          '--config algorithm_params.config.n_epochs={"grid_search": [1, 2.5]}: '
          'algorithm_params.config.n_epochs takes an integer (its default is 10).',
          "Every value a search space can take is checked like a single value.",
          'Make every value of the grid (or the bounds of the distribution) of the '
          "entry's kind."),
    Entry('options', 'A warm-up as long as the run',
          f'{RUN} --n-epochs 2 --epoch-length 100 --config '
          'algorithm_params.config.n_initial_exploration_steps=500',
          'algorithm_params.config.n_initial_exploration_steps=500 is the whole run '
          '(2 epochs of 100 steps): nothing would be trained; give a shorter warm-up '
          'or a longer run.',
          'The uniform-random warm-up you set is as long as the whole run, so no '
          'update would happen. (A default warm-up that does not fit is shortened '
          'with a notice instead.)',
          'Shorten the warm-up or lengthen the run (`--n-epochs`, `--epoch-length`).'),
    # Agents ---------------------------------------------------------------------
    Entry('algorithms', 'A policy the agent cannot train',
          f'{RUN} --algorithm SQL --policy gaussian',
          '--algorithm SQL cannot train --policy gaussian; valid policies for SQL: '
          'sampling',
          "Each agent trains the policies its update is written for (SQL: a "
          'sampling network; TD3 and DDPG: deterministic).',
          'Leave `--policy` out (each agent has its default) or choose a listed one.'),
    Entry('algorithms', 'SimBa networks with a recurrent agent',
          f'{RUN} --policy recurrent --network simba',
          "--network simba reads state observations with feedforward networks; this "
          "agent's policy_params are RecurrentGaussianPolicy (recurrent and pixel "
          "agents: --network mlp).",
          'SimBa and SimbaV2 networks are feedforward networks over states.',
          'Use `--network mlp` with `--policy recurrent` or `--observation pixels`.'),
    Entry('algorithms', 'bfloat16 on a CPU that would emulate it',
          f'{RUN} --precision bfloat16',
          '--precision bfloat16: this CPU has neither AVX512_BF16 nor AMX-BF16 (flags '
          'read from /proc/cpuinfo) and no GPU is visible; bfloat16 matmuls would be '
          'emulated and no faster than float32. Valid choices here: float32 (or set '
          'SOFTLEARNING_ALLOW_BFLOAT16=1 to run it emulated).',
          'bfloat16 mixed precision pays only where the hardware multiplies bfloat16 '
          '(AVX512_BF16, AMX-BF16, a GPU); elsewhere each product goes through '
          'float32 conversions ([precision](precision.md)).',
          'Leave `--precision` out (float32). To run the bfloat16 code path anyway '
          '(tests, a CPU the check does not know), set `SOFTLEARNING_ALLOW_BFLOAT16=1`.',
          machine=_cpu_without_bfloat16),
    Entry('algorithms', 'n-step returns with a recurrent agent',
          f'{RUN} --policy recurrent --n-step 3',
          "--n-step 3 needs transitions from a SimpleReplayPool; this agent's pool is "
          "a SequenceReplayPool (recurrent and pixel agents: --n-step 1).",
          'n-step returns are computed from a pool of single transitions.',
          'Leave `--n-step` out for recurrent and pixel agents.'),
    Entry('algorithms', 'Pixels with another agent',
          f'{RUN} --algorithm TD3 --observation pixels --universe dm_control '
          '--domain cartpole --task swingup',
          '--observation pixels trains SAC with its Gaussian policy; got --algorithm '
          'TD3 --policy deterministic. Valid: --algorithm SAC (--policy gaussian)',
          'The pixel pipeline (encoder, augmentation, frame pool) is built for SAC.',
          'Use `--algorithm SAC` with `--observation pixels`.'),
    Entry('algorithms', '--pomdp-previous-action alone',
          f'{RUN} --pomdp-previous-action true',
          '--pomdp-previous-action needs --pomdp (positions or velocities)',
          'The previous action is an addition to a partial observation.',
          'Add `--pomdp positions` or `--pomdp velocities`.'),
    # Resources ------------------------------------------------------------------
    Entry('resources', 'A trainer larger than Ray',
          f'{RUN} --cpus 1 --trial-cpus 2',
          '--trial-cpus 2 is more than the 1 CPUs Ray gets (--cpus); ask for at most 1.',
          "A trial could never be placed: Tune would wait for ever.",
          'Lower `--trial-cpus`, or raise `--cpus` (default: every CPU of the machine).'),
    Entry('resources', 'Sampler actors that do not fit',
          f'{RUN} --cpus 2 --trial-cpus 1 --num-samplers 2 --sampler-cpus 1',
          '--trial-cpus 1 + --num-samplers 2 x --sampler-cpus 1 is more than the 2 '
          'CPUs Ray gets (--cpus); ask for at most 2 in all.',
          'A trial asks for its trainer and all its sampler actors at once.',
          'Fewer or smaller actors (`--sampler-cpus 0.5`), or more CPUs. Leave '
          '`--trial-cpus` out and the trainer gets what the actors leave.'),
    Entry('resources', 'No CPUs left for sampler actors',
          f'{RUN} --cpus 2 --trial-cpus 2 --num-samplers 2',
          "--num-samplers 2: no CPUs are left for sampler actors beside the "
          "trainer's 2 of the 2 CPUs Ray gets (--cpus); lower --trial-cpus or raise "
          "--cpus.",
          'The trainer takes every CPU, and the actors need some.',
          'Lower `--trial-cpus` (or leave it out), or raise `--cpus`.'),
    # Environments -------------------------------------------------------------
    Entry('environments', 'An unknown domain', f'{RUN} --domain HalfCheeta',
          "Unknown gym domain 'HalfCheeta'. Valid domains: Ant, …",
          "The domain is not one of the universe's continuous-action environments.",
          'Choose a listed domain, or name your own class as `--domain '
          'module:Class` ([your own environment](custom-environment.md)).'),
    Entry('environments', 'An unknown task', f'{RUN} --domain HalfCheetah --task v9',
          "Unknown gym task 'v9' for domain 'HalfCheetah'. Valid tasks: v4, v5",
          "For gym, the task is the environment's version; MuJoCo tasks are v4 and "
          'v5 (a retired mujoco-py version such as v3 runs as the newest, with a '
          'notice).',
          'Choose a listed task (`v5` for MuJoCo).'),
    Entry('environments', 'An unknown dm_control domain',
          f'{RUN} --universe dm_control --domain cheeta --task run',
          "Unknown dm_control domain 'cheeta'. Valid domains: acrobot, ball_in_cup, …",
          "dm_control's domains are lower case.", 'Choose a listed domain.'),
    Entry('environments', 'An unknown dm_control task',
          f'{RUN} --universe dm_control --domain cheetah --task walk',
          "Unknown dm_control task 'walk' for domain 'cheetah'. Valid tasks: run",
          "The task is not one of the domain's in the dm_control suite.",
          'Choose a listed task.'),
    Entry('environments', 'An unknown pybullet domain',
          f'{RUN} --universe pybullet --domain Cheetah --task v0',
          "Unknown pybullet domain 'Cheetah'. Valid domains: AntBulletEnv, "
          "HalfCheetahBulletEnv, …",
          "pybullet's domains are the Bullet locomotion environments' names.",
          'Choose a listed domain (task `v0`).'),
    Entry('environments', 'Discrete actions', f'{RUN} --domain CartPole',
          'CartPole-v1 has a Discrete action space; softlearning trains continuous '
          '(Box) actions only, e.g. Pendulum, MountainCarContinuous, HalfCheetah.',
          "softlearning's agents act in continuous action spaces.",
          'Choose a continuous-control environment.'),
    Entry('environments', 'Actions without finite bounds',
          f'{RUN} --domain unbounded_envs:Unbounded --task v0',
          "gym/unbounded_envs:Unbounded/v0 has actions without finite bounds (low "
          "[-inf], "
          "high [inf]); softlearning's policies act in [-1, 1], scaled to the "
          "bounds: give the action space finite low and high.",
          'The action space is a Box from -inf to inf: a policy acting in [-1, 1] '
          'cannot be scaled onto it (trained anyway, every action would be NaN).',
          "Give the environment's action space the bounds of its actuators, e.g. "
          '`Box(-1.0, 1.0, (n,))`, and scale inside `step`.',
          files={'unbounded_envs.py': (
              'import gymnasium as gym\nimport numpy as np\n\n'
              'class Unbounded(gym.Env):\n'
              '    observation_space = gym.spaces.Box(-1.0, 1.0, (2,))\n'
              '    action_space = gym.spaces.Box(-np.inf, np.inf, (1,))\n\n'
              "gym.register('Unbounded-v0', entry_point=Unbounded, "
              'max_episode_steps=50)\n')}),
    Entry('environments', 'An environment kwarg its constructor does not take',
          f"{RUN} --domain Pendulum --task v1 --config "
          "'environment_params.training.kwargs.gg=5.0'",
          "Unknown environment kwarg 'gg' for gym/Pendulum/v1; valid: g, "
          "max_episode_steps, observation_keys, observation_transform, "
          "render_mode.",
          "`environment_params.training.kwargs` go to the environment's "
          'constructor (through `gymnasium.make`), which is built once before Ray '
          'starts.',
          'Use one of the listed keywords (`g` is the pendulum\'s gravity).'),
    Entry('environments', 'An observation that is not an array',
          f'{RUN} --domain tupled_envs:Tupled --task v0',
          "Tupled-v0's observation 'parts' is a Tuple space; softlearning takes "
          "observations that are arrays (Box, Discrete, MultiBinary, "
          "MultiDiscrete), in Dicts (nested ones too).",
          "A network's input is an array per observation key; a Tuple (or Text, "
          'Graph, Sequence) space has no such form.',
          'Return a Dict of arrays instead (nested Dicts are flattened to keys such '
          'as `robot.position`).',
          files={'tupled_envs.py': (
              'import gymnasium as gym\n\n'
              'class Tupled(gym.Env):\n'
              '    observation_space = gym.spaces.Dict({\'parts\': gym.spaces.Tuple(\n'
              '        (gym.spaces.Box(-1.0, 1.0, (2,)),))})\n'
              '    action_space = gym.spaces.Box(-1.0, 1.0, (1,))\n\n'
              "gym.register('Tupled-v0', entry_point=Tupled, max_episode_steps=50)\n")}),
    Entry('environments', 'Your environment cannot be imported',
          f'{RUN} --domain my_envs:MyPendulum --task v0',
          "Cannot import module 'my_envs' of gym domain 'my_envs:MyPendulum': No "
          "module named 'my_envs'; run from the folder that holds it, or pip install it",
          '`--domain module:Class` imports `module` from the folder you run in (and '
          'records that folder, so sampler actors, `simulate` and `export` find it '
          'too).',
          'Run from the folder that holds `my_envs.py`, or install its package.'),
    Entry('environments', 'Pixels of an environment that cannot render them',
          f'{RUN} --observation pixels --universe pybullet --domain HalfCheetahBulletEnv '
          '--task v0',
          '--observation pixels: pybullet/HalfCheetahBulletEnv cannot render frames of '
          'a chosen size. Choose a dm_control task (…) or a gymnasium MuJoCo one (…)',
          'Pixel agents need frames of a fixed size rendered offscreen.',
          'Use a dm_control task or a gymnasium MuJoCo one ([SAC from '
          'pixels](../algorithms/pixels.md)).'),
    Entry('environments', 'Pixels and a partial observation',
          f'{RUN} --observation pixels --pomdp positions --universe dm_control '
          '--domain cartpole --task swingup',
          '--observation pixels and --pomdp cannot be combined (pixels already hide '
          'the state)',
          'A pixel observation replaces the state, so there is nothing to remove '
          'from it.',
          'Leave one of the two out.'),
    # Curricula ------------------------------------------------------------------
    Entry('curriculum', 'A curriculum file that is not there',
          f'{RUN} --curriculum mass.json',
          "cannot read curriculum file 'mass.json': No such file or directory",
          'The path is read from the folder you run in.',
          'Check the path (an absolute one works from anywhere).'),
    Entry('curriculum', 'A curriculum file that is not JSON',
          f'{RUN} --curriculum mass.json',
          "curriculum file 'mass.json' is not valid JSON: Expecting ',' delimiter "
          "(line 1)",
          'The file is not well-formed JSON (here a closing brace is missing).',
          'Fix the file at the line named; see [curricula](curriculum.md) for the '
          'format.',
          files={'mass.json': '{"mass": {"iters": [0, 10], "range": [1.0, 2.0]}'}),
    Entry('curriculum', 'An unknown key in a schedule',
          f'{RUN} --curriculum mass.json',
          "curriculum parameter 'mass': unknown key(s) 'step'. Valid choices: "
          "iters, range, randomize, center.",
          "A parameter's schedule takes `iters`, `range` and optionally "
          '`randomize` and `center`.',
          'Remove or rename the key.',
          files={'mass.json': '{"mass": {"iters": [0, 10], "range": [1.0, 2.0], '
                              '"step": 1}}'}),
    Entry('curriculum', "'iters' not increasing",
          f'{RUN} --curriculum mass.json',
          "curriculum parameter 'mass': 'iters' must be strictly increasing, got "
          "[10, 0]",
          '`iters` are the iterations at which the schedule moves on; they go '
          'forward.',
          'Sort them, without repeats.',
          files={'mass.json': '{"mass": {"iters": [10, 0], "range": [1.0, 2.0]}}'}),
    Entry('curriculum', 'A parameter the environment does not have',
          f'{RUN} --domain HalfCheetah --task v5 --curriculum gravity.json',
          "Unknown curriculum parameter(s) ['gravity'] for GymnasiumAdapter("
          "gym/HalfCheetah/v5, …); valid: mass, friction, damping, mass/torso, …",
          "The built-in MuJoCo and Bullet environments have `mass`, `friction` and "
          "`damping` multipliers, globally or per body, geom and joint; other "
          "parameters are your environment's own.",
          'Use a listed parameter; your own environment lists its own in '
          '`supported_physical_parameters` ([your own environment](custom-environment.md)).',
          files={'gravity.json': '{"gravity": {"iters": [0, 10], "range": [1.0, 2.0]}}'}),
    # Checkpoints ----------------------------------------------------------------
    Entry('checkpoints', 'A checkpoint that is not there',
          f'{RUN} --restore trial/checkpoint_000001',
          "--restore: Checkpoint path '…/trial/checkpoint_000001' does not exist.",
          'The path is read from the folder you run in.',
          'Give a checkpoint folder (`.../<trial>/checkpoint_000004`), a trial folder '
          '(its latest checkpoint), or an experiment folder (to resume every trial).'),
    Entry('checkpoints', 'A folder without a complete checkpoint',
          f'{RUN} --restore trial/checkpoint_000001',
          "--restore: '…/trial/checkpoint_000001' holds no complete checkpoint (no "
          "manifest.json: not a checkpoint folder, or its save was interrupted).",
          'A checkpoint is complete once its `manifest.json` is written, last; a save '
          'cut short (a killed process, a full disk) leaves none.',
          "Restore the trial's previous checkpoint, or the trial folder (its latest "
          'complete checkpoint).',
          files={'trial/checkpoint_000001/state.pkl': 'x'}),
    Entry('checkpoints', 'A corrupted checkpoint',
          f'{RUN} --restore trial/checkpoint_000001',
          "--restore: Checkpoint file '…/trial/checkpoint_000001/state.pkl' is "
          "corrupted (its contents differ from the checksum saved with it).",
          "A file changed after the checkpoint was written (a bad copy or disk); "
          'sizes and checksums are checked before anything loads.',
          'Restore an earlier checkpoint of the trial, or copy the checkpoint again.',
          setup=lambda folder: _checkpoint(folder, corrupt=True)),
    Entry('checkpoints', 'A checkpoint of another format',
          f'{RUN} --restore trial/checkpoint_000001',
          "--restore: Checkpoint '…/trial/checkpoint_000001' has format 0; this "
          "version reads 1.",
          'The checkpoint was written by a version of softlearning with another '
          'checkpoint format (checkpoints of the original softlearning do not load).',
          'Continue it with the version that wrote it, or train again; a benchmark '
          'suite can start such trials over with `--restart-errored`.',
          setup=lambda folder: _checkpoint(folder, format_version=0)),
    Entry('checkpoints', 'A checkpoint of another environment',
          f'{RUN} --domain HalfCheetah --task v5 --restore trial/checkpoint_000001',
          "--restore: Checkpoint '…/trial/checkpoint_000001' was trained with other "
          "settings: environment_params.training.domain 'Hopper' there, "
          "'HalfCheetah' here.",
          'A new trial starts from a checkpoint only with the environment, networks '
          'and algorithm it was trained with.',
          "Give the checkpoint's own settings (its `params.json`), or another "
          'checkpoint.',
          setup=lambda folder: _checkpoint(folder, variant=_hopper_variant())),
    Entry('checkpoints', 'simulate: a checkpoint that is not there',
          'softlearning simulate trial/checkpoint_000001',
          "Checkpoint path '…/trial/checkpoint_000001' does not exist.",
          '`simulate`, `export`, `plot-policy` and `softlearning.load` take a '
          'checkpoint folder or a trial folder.',
          'Check the path; `ls <trial>` shows its `checkpoint_*` folders.'),
    Entry('checkpoints', 'simulate: an experiment folder of several trials',
          'softlearning simulate experiment',
          "'…/experiment' is an experiment of 2 trials; name one of its trial "
          "folders: trial_a, trial_b.",
          '`simulate`, `export`, `plot-policy` and `softlearning.load` take the '
          'experiment folder that `Results:` prints when it holds one trial; with '
          'several, which one is meant is not known.',
          'Name a trial folder (its latest checkpoint) or a checkpoint folder.',
          setup=lambda folder: (
              _checkpoint(folder, 'experiment/trial_a/checkpoint_000000'),
              _checkpoint(folder, 'experiment/trial_b/checkpoint_000000'))),
    Entry('checkpoints', 'export: a format that does not exist',
          'softlearning export trial/checkpoint_000001 exported --format tflite',
          "argument --format: invalid choice: 'tflite' (choose from 'savedmodel', "
          "'onnx')",
          '`export` writes a TensorFlow SavedModel (the default) or an ONNX model.',
          'Use `--format savedmodel` or `--format onnx` (the `onnx` extra); see '
          '[simulate and export](simulate.md).',
          setup=lambda folder: _checkpoint(folder)),
    Entry('checkpoints', 'simulate: a render mode that does not exist',
          "softlearning simulate trial/checkpoint_000001 --render-kwargs "
          "'{\"mode\": \"video\"}'",
          "--render-kwargs mode 'video' is not one of rgb_array, human.",
          '`rgb_array` renders offscreen (what `--video` films); `human` opens a '
          'window.',
          'Use one of the two, with `width`, `height` or `camera_id` beside it.',
          setup=lambda folder: _checkpoint(folder)),
    # Debug ---------------------------------------------------------------------
    Entry('debug', 'An option debug mode cannot honour',
          'softlearning run_example_debug examples.development --num-samples 3',
          'run_example_debug cannot honour --num-samples 3: it runs one trial. Leave '
          'it out, or use another run_example_* command.',
          'Debug mode runs one trial in this process without Tune; options about '
          'trials, Tune and Ray resources have no meaning there.',
          'Leave the option out, or use `run_example_local`.'),
    Entry('debug', 'A grid in debug mode',
          "softlearning run_example_debug examples.development --config "
          "'run_params.seed={\"grid_search\": [1, 2]}'",
          'The variant is a grid of 2 trials, and run_example_debug runs one: fix the '
          'grid-searched --config values, or use run_example_local.',
          'A grid search is several trials; debug mode runs one (random search '
          'spaces are drawn once).',
          'Give one value, or run the grid with `run_example_local`.'),
    Entry('debug', 'Resuming an experiment in debug mode',
          'softlearning run_example_debug examples.development --restore experiment',
          '--restore experiment: an experiment folder is resumed by run_example_local; '
          'run_example_debug starts from a checkpoint folder (e.g. '
          '.../<trial>/checkpoint_000000).',
          'Resuming a whole experiment is Tune\'s job.',
          'Resume it with `run_example_local --restore`, or start a debug trial from '
          'one of its checkpoints.',
          files={'experiment/tuner.pkl': ''}),
    Entry('debug', 'A trial name template debug mode cannot fill',
          "softlearning run_example_debug examples.development --trial-name-template "
          "'{trial.name}'",
          "--trial-name-template '{trial.name}': AttributeError(…); in debug mode a "
          "trial has .trial_id ('debug') and .config (the variant).",
          "The template is filled with Tune's trial; debug mode's has only these two "
          'attributes.',
          'Use `{trial.trial_id}` and `{trial.config[...]}` in the template.'),
    # Sweeps ----------------------------------------------------------------------
    Entry('sweeps', 'An unknown scheduler', f'{RUN} --scheduler hyperband',
          "argument --scheduler: invalid choice: 'hyperband' (choose from 'fifo', "
          "'asha', 'pbt')",
          'The schedulers softlearning sets up with defaults that fit its epochs.',
          '`asha` for early stopping, `pbt` for population-based training.'),
    Entry('sweeps', 'A sweep file that is not there',
          f'{RUN} --sweep sweep.yaml', '--sweep sweep.yaml: no such file.',
          'The path is read from the folder you run in.',
          'Check the path; `examples/sweeps/` has examples.'),
    Entry('sweeps', 'A sweep file that is not JSON',
          f'{RUN} --sweep sweep.json',
          '--sweep sweep.json is not valid JSON: Expecting property name enclosed in '
          'double quotes at line 1, column 22.',
          'A `.json` sweep file is read as JSON (a trailing comma is not JSON); '
          '`.yaml` and `.yml` files as YAML.',
          'Fix the file at the place named.',
          files={'sweep.json': '{"scheduler": "asha",}'}),
    Entry('sweeps', 'An unknown option in a sweep file',
          f'{RUN} --sweep sweep.yaml',
          "--sweep sweep.yaml: unknown option 'schedular'. Valid: config, address, …",
          "A sweep file holds the command's options by name and a `config` object.",
          'Use a listed option name.',
          files={'sweep.yaml': 'schedular: asha\n'}),
    Entry('sweeps', 'A value a sweep option does not take',
          f'{RUN} --sweep sweep.yaml',
          "--sweep sweep.yaml: scheduler 'hyperband' is not one of fifo, asha, pbt.",
          "Options in a sweep file are checked as on the command line.",
          'Use a listed value.',
          files={'sweep.yaml': 'scheduler: hyperband\n'}),
    Entry('sweeps', 'Settings for the fifo scheduler',
          f"{RUN} --scheduler-config '{{\"grace_period\": 2}}'",
          '--scheduler-config: the fifo scheduler takes no settings; use --scheduler '
          'asha or pbt.',
          '`fifo` (the default) runs every trial to its end.',
          'Add `--scheduler asha` (or `pbt`).'),
    Entry('sweeps', 'A scheduler setting it does not take',
          f"{RUN} --scheduler asha --scheduler-config '{{\"grace\": 2}}'",
          "--scheduler-config: unknown asha setting 'grace'. Valid choices: brackets, "
          "grace_period, max_t, reduction_factor, stop_last_trials, time_attr.",
          "The settings are the Tune scheduler's constructor arguments.",
          'Use a listed one.'),
    Entry('sweeps', 'Optuna without a search space',
          f'{RUN} --search-algorithm optuna',
          "--search-algorithm optuna needs a search space, e.g. --config "
          "'algorithm_params.config.policy_lr={\"loguniform\": [1e-4, 3e-3]}'.",
          'Optuna chooses values of search spaces; the variant has none.',
          'Give at least one search space in `--config` or the sweep file.'),
    Entry('sweeps', 'Optuna over a grid',
          f"{RUN} --search-algorithm optuna --config "
          "'run_params.seed={\"grid_search\": [1, 2]}'",
          '--search-algorithm optuna cannot search a grid (run_params.seed); use '
          '{"choice": [...]} instead.',
          'Tune cannot hand a grid to a search algorithm.',
          'Write the grid as a `choice`.'),
    Entry('sweeps', 'PBT with Optuna',
          f'{RUN} --scheduler pbt --search-algorithm optuna',
          '--scheduler pbt chooses configurations itself; use it with '
          '--search-algorithm random.',
          'Population-based training mutates its trials\' configurations; a search '
          'algorithm would fight it.',
          'Leave `--search-algorithm` out with `--scheduler pbt`.'),
    # Clusters --------------------------------------------------------------------
    Entry('clusters', 'A results folder that cannot be written',
          f'{RUN} --local-dir /proc/results',
          'Cannot write results to --local-dir /proc/results: No such file or '
          'directory; choose a folder you can write to.',
          'The results folder is checked by writing to it before Ray starts.',
          'Choose a folder you can write to (default `~/ray_results`).'),
    Entry('clusters', 'A replay pool checkpointed to object storage',
          f'{RUN} --local-dir s3://bucket/results --checkpoint-replay-pool true',
          "--checkpoint-replay-pool True needs results in a file system (a local or "
          "shared folder), not a URI: the pool pieces are written beside the trial "
          "('s3://bucket/results' given).",
          "The replay pool is saved in pieces next to the trial's checkpoints, which "
          'object storage cannot hold as they are written.',
          'Use a shared folder for `--local-dir` (and `--upload-dir` for a copy in '
          'object storage), or leave the pool out of checkpoints.'),
    Entry('clusters', 'An --address that is not HOST:PORT',
          'softlearning run_example_cluster examples.development --address head-node',
          "--address 'head-node' is not HOST:PORT (e.g. 127.0.0.1:6379).",
          "`--address` is the Ray head node's GCS address.",
          'Add the port (`ray start --head` prints it; 6379 by default).'),
    Entry('clusters', 'No cluster at --address',
          'softlearning run_example_cluster examples.development --address 127.0.0.1:1',
          "No Ray cluster answers at 127.0.0.1:1 (Connection refused): start one "
          "with `ray start --head --port 1`, or pass the head's --address.",
          'Nothing listens there: the cluster is not running, or the address or port '
          'is wrong (a firewall can also refuse it).',
          'Start the head (`ray start --head`), or give its address.'),
    Entry('clusters', 'Launching a cluster without a terminal',
          'softlearning launch_example_cluster examples.development --config-file '
          'cluster.yaml',
          'Standard input is not a terminal, so nobody can confirm starting a '
          '(billed) cluster: pass --confirm-remote False to start it without asking.',
          '`launch_example_*` asks before it starts cloud machines; a script or CI '
          'job cannot answer.',
          'Pass `--confirm-remote False` where no one can answer (or `--dry-run` to '
          'see the commands).'),
    Entry('clusters', 'A cluster config file that is not there',
          'softlearning launch_example_cluster examples.development --confirm-remote '
          'False --config-file cluster.yaml',
          "--config-file 'cluster.yaml' does not exist.",
          '`launch_example_cluster` takes a Ray autoscaler config.',
          "Check the path; `launch_example_gce` and `launch_example_ec2` use "
          "softlearning's own configs."),
    Entry('clusters', 'A file that is not an autoscaler config',
          'softlearning launch_example_cluster examples.development --confirm-remote '
          'False --config-file cluster.yaml',
          "--config-file 'cluster.yaml' is not a valid Ray autoscaler config: "
          "'provider'",
          'The file is YAML but lacks what every autoscaler config has (here its '
          '`provider`).',
          "Start from Ray's example configs or softlearning's "
          '(`softlearning/experiments/cluster/cluster_configs/`).',
          files={'cluster.yaml': 'cluster_name: mine\n'}),
    # Trackers --------------------------------------------------------------------
    Entry('trackers', '--wandb-mode without a project',
          f'{RUN} --wandb-mode offline', '--wandb-mode offline needs --wandb-project.',
          'Weights & Biases logging is turned on by `--wandb-project`.',
          'Add `--wandb-project NAME`.'),
    Entry('trackers', 'W&B online without a login',
          f'{RUN} --wandb-project my-project',
          '--wandb-project my-project: W&B online needs a login (wandb login, or '
          'WANDB_API_KEY); or --wandb-mode offline.',
          'Online runs need credentials, checked before the run starts rather than '
          'in every trial.',
          '`wandb login`, or `--wandb-mode offline` (then `wandb sync` the runs).'),
    Entry('trackers', 'No MLflow server',
          f'{RUN} --mlflow http://127.0.0.1:1',
          "--mlflow http://127.0.0.1:1: no MLflow server answers there ([Errno 111] "
          "Connection refused); start one with 'mlflow server', or give a folder for a "
          "local store.",
          'An HTTP `--mlflow` URI is a tracking server, which is not running there.',
          'Start it (`mlflow server`), or give a folder for a local store.'),
    Entry('trackers', 'An MLflow folder that cannot be created',
          f'{RUN} --mlflow /proc/mlruns',
          '--mlflow /proc/mlruns: cannot create the local store (No such file or '
          'directory).',
          'A folder (or `file:` URI) for `--mlflow` is a local store, created first.',
          'Choose a folder you can write to.'),
    # Benchmarks ------------------------------------------------------------------
    Entry('benchmarks', 'A suite file that is not there',
          'softlearning benchmark suite.yaml', 'suite.yaml: no such suite file.',
          'The path is read from the folder you run in.',
          "Check the path; the repository's suites are in `examples/benchmarks/`."),
    Entry('benchmarks', 'An unknown algorithm in a suite',
          'softlearning benchmark suite.yaml',
          "suite.yaml: algorithm 'TD4' is not one of …",
          "A suite's algorithms are registered algorithms.",
          'Use the listed names.',
          files={'suite.yaml': 'algorithms: [SAC, TD4]\nenvironments: [gym/Pendulum/v1]\n'
                               'seeds: [0]\nsteps: 5000\n'}),
    Entry('benchmarks', 'An unknown entry in a suite',
          'softlearning benchmark suite.yaml',
          "suite.yaml: unknown entry 'episodes'. Valid choices: name, algorithms, "
          "environments, seeds, steps, warmup_steps, evaluation, options, config, label, "
          "budget, environment_kwargs.",
          "A suite file's top-level entries are fixed (the evaluation's settings go "
          'under `evaluation`).',
          'Move or rename the entry (here `evaluation: {episodes: 10}`).',
          files={'suite.yaml': 'algorithms: [SAC]\nenvironments: [gym/Pendulum/v1]\n'
                               'seeds: [0]\nsteps: 5000\nepisodes: 10\n'}),
    Entry('benchmarks', 'Steps that are not whole evaluation intervals',
          'softlearning benchmark suite.yaml',
          'suite.yaml: steps (1000) must be a multiple of evaluation.interval (5000).',
          'A run is evaluated every `evaluation.interval` steps (an epoch), and ends on '
          'an evaluation.',
          'Make `steps` a multiple of the interval, or set a smaller interval.',
          files={'suite.yaml': 'algorithms: [SAC]\nenvironments: [gym/Pendulum/v1]\n'
                               'seeds: [0]\nsteps: 1000\n'}),
    Entry('benchmarks', 'A report of a folder without trials',
          'softlearning report results',
          'No trials under results: a trial is a folder with params.json and '
          'progress.csv (e.g. ~/ray_results/gym/Pendulum/v1/<experiment>).',
          '`report`, `summary` and `plot` read trial folders anywhere below the '
          'folders given.',
          'Give the experiment or suite folder (e.g. `~/ray_results/benchmarks/<suite>`).',
          files={'results/notes.txt': ''}, prefix='softlearning report: error: '),
    Entry('benchmarks', 'A plot size that is not WIDTHxHEIGHT',
          'softlearning plot results -o curves.png --size 800',
          "argument --size: expected WIDTHxHEIGHT in pixels, e.g. 800x500, got '800'",
          'The figure size is in pixels, width and height.', 'Give both: `--size 800x500`.'),
]


# Running the entries --------------------------------------------------------------

class WouldRun(Exception):
    """The command went past its checks: it imported TensorFlow or started
    Ray."""


class _NoTensorFlow:
    """A meta path finder that refuses to import TensorFlow."""

    def find_spec(self, name, path=None, target=None):
        if name == 'tensorflow' or name.startswith('tensorflow.'):
            raise WouldRun(f'imported {name}')
        return None


def _write_files(folder, files):
    for path, text in files.items():
        full = os.path.join(folder, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)


def run_entry(entry, folder):
    """(exit code, stderr, stdout) of the entry's command run in ``folder``
    through ``softlearning.cli.main.main``; exit code None with the error
    in stderr if it went past its checks."""
    from softlearning.cli.main import main
    _write_files(folder, entry.files)
    if entry.setup is not None:
        entry.setup(folder)
    argv = shlex.split(entry.command)
    assert argv[0] == 'softlearning', entry.command
    stdout, stderr = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr), \
                (entry.machine or contextlib.nullcontext)():
            try:
                code = main(argv[1:])
            except SystemExit as exit:
                code = exit.code
    except WouldRun as error:
        return None, f'went past its checks: {error}', stdout.getvalue()
    except Exception as error:  # a traceback instead of one line
        return None, f'raised {error!r}', stdout.getvalue()
    finally:
        os.chdir(cwd)
    return code, stderr.getvalue(), stdout.getvalue()


def pattern(message):
    """The regular expression of a catalogue message (``…``: any text)."""
    return '.*'.join(map(re.escape, message.split(ELLIPSIS)))


def check(entry, code, stderr):
    """The problems with an entry's outcome (an empty list: as catalogued)."""
    if code is None:
        return [stderr]
    # argparse's usage block and notices about defaults are not the error.
    lines = [line for line in stderr.splitlines()
             if line and not line.startswith(('usage:', ' ', '[softlearning] Notice'))]
    problems = [] if code == 2 else [f'exit status {code}, not 2']
    if len(lines) != 1 or not lines[0].startswith(entry.prefix):
        return problems + [f'not one line starting {entry.prefix!r}: '
                           f'{stderr[-2000:]!r}']
    said = lines[0][len(entry.prefix):]
    if entry.message is None:
        return problems + [f'no message catalogued; it says: {said}']
    if not re.fullmatch(pattern(entry.message), said, re.S):
        problems.append(f'says {said!r}, catalogued as {entry.message!r}')
    return problems


def run_all(entries=ENTRIES):
    """[{index, command, code, stderr, problems}] of every entry."""
    import ray
    sys.meta_path.insert(0, _NoTensorFlow())

    def no_ray(*args, **kwargs):
        raise WouldRun('started Ray')
    ray.init = no_ray
    outcomes = []
    with tempfile.TemporaryDirectory(prefix='errors-') as root:
        for index, entry in enumerate(entries):
            folder = os.path.join(root, str(index))
            os.makedirs(folder)
            code, stderr, _ = run_entry(entry, folder)
            outcomes.append({'index': index, 'command': entry.command,
                             'code': code, 'stderr': stderr,
                             'problems': check(entry, code, stderr)})
    return outcomes


# The page ------------------------------------------------------------------------

def _anchor(title):
    return re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')


def markdown(here=''):
    """The troubleshooting page's catalogue, group by group."""
    lines = []
    for group, (title, introduction) in GROUPS.items():
        entries = [entry for entry in ENTRIES if entry.group == group]
        if not entries:
            continue
        lines += [f'## {title}', '']
        if introduction:
            lines += [introduction, '']
        for entry in entries:
            lines += [f'### {entry.title}', '', '```text',
                      f'$ {entry.command}',
                      f'{entry.prefix}{entry.message}', '```', '',
                      f'**Cause.** {entry.cause}', '', f'**Fix.** {entry.fix}', '']
    return '\n'.join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    outcomes = run_all()
    if '--json' in argv:
        print(json.dumps(outcomes))
        return 0
    failed = 0
    for outcome in outcomes:
        status = 'ok' if not outcome['problems'] else 'FAIL'
        failed += bool(outcome['problems'])
        print(f"[{status}] {outcome['command']}")
        for problem in outcome['problems']:
            print(f'    {problem}')
    print(f'{len(outcomes) - failed} of {len(outcomes)} entries as catalogued')
    return 1 if failed else 0


if __name__ == '__main__':
    # This checkout's softlearning, wherever the script is run from.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
