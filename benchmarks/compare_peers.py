"""softlearning next to Stable-Baselines3 (PyTorch) and SBX (JAX) on the same
machine, in one run; prints one JSON object.

Throughput (default):
The same setting as throughput.py: SAC (or ``--algorithm TQC``, with two
critics of 25 quantiles, ``--algorithm CrossQ``, with the preset's critic
width, ``--algorithm DroQ``, ``--algorithm SimBa``: SAC with SimBa
networks of one block of 128, ``--algorithm SimbaV2``: the preset, against
SBX's SAC with SimBa networks of the same widths (SBX has no SimbaV2), or
``--algorithm categorical``: SAC with categorical critics of 101 atoms,
against SBX's SAC, whose critics are scalar: the cost of the atoms; each
against SBX's) on gymnasium HalfCheetah-v5, one
gradient update per environment step, batch 256, 256-256 networks, a 1e6
replay pool, 1,000 warm-up steps; each library's rate is measured over
``--steps`` steps after another 1,000 steps that absorb compilation.

``--side-by-side``: as the suites run them, each library on one CPU thread
pinned to a core of its own (the first and the last), the two at the same
time (every peer then starts beside softlearning's run; SAC's SB3 row after
SBX's), so that the machine's drift hits both; without it, one after the
other with every thread. (Unpinned, a JAX process takes more than one
core: its dispatch thread overlaps the environment with the update.)

Neither peer is a dependency of softlearning. Install them in any Python
environment with gymnasium[mujoco] and point ``--peer-python`` at it:

    python -m venv /tmp/peers && /tmp/peers/bin/pip install stable-baselines3 sbx-rl 'gymnasium[mujoco]'
    python benchmarks/compare_peers.py --peer-python /tmp/peers/bin/python

Learning (``--learning TD3``): TD3 on HalfCheetah-v5 for ``--learning-steps``
environment steps (100,000 by default) in softlearning (the development
example's TD3 variant through the CLI) and in SB3 with the same settings:
256-256 networks, batch 256, learning rates 3e-4, discount 0.99, tau 0.005,
10,000 uniform warm-up steps, Gaussian exploration noise 0.1, target noise
0.2 clipped at 0.5, policy delay 2, one update per step, one CPU thread
each, the two running side by side. Both final policies are then evaluated
by this script on the same start states (resets seeded 1000, 1001, ...,
deterministic actions, 1,000 steps).

    python benchmarks/compare_peers.py --peer-python /tmp/peers/bin/python --learning TD3 --seed 1
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from softlearning.experiments.config.presets import (  # noqa: E402,E501
    simbav2 as simbav2_preset)
from softlearning.experiments.config.presets.crossq import (  # noqa: E402
    CRITIC_WIDTH)
from softlearning.experiments.config.variants import SIMBA_SIZES  # noqa: E402
from softlearning.utils.machine import cpu_model  # noqa: E402
from throughput import EPOCH_LENGTH, WARMUP_STEPS  # noqa: E402  (this folder)
# throughput.py's second epoch compiles; the peers skip the same steps.
COMPILE_STEPS = EPOCH_LENGTH
# --network simba's default: one block of 128 for the actor and each critic.
(SIMBA_WIDTH,) = set(sum(SIMBA_SIZES.values(), ()))
# The SimbaV2 preset's blocks (actor, critics), which SBX's SimBa copies.
SIMBAV2_SIZES = {name: tuple(simbav2_preset.VARIANT[name]['config'][
    'hidden_layer_sizes']) for name in ('policy_params', 'Q_params')}

# Runs in the peer's interpreter: prints {"env_steps_per_s": ...}. TQC and
# CrossQ are SBX's only (sb3-contrib is not a peer here): TQC with two
# critics of 25 quantiles and 2 dropped per critic (its defaults), CrossQ
# with its defaults (learning rates 1e-3, policy delay 3, Adam beta1 0.5,
# batch renormalization in actor and critics) and the critic width of ours,
# DroQ as SBX runs it: its SAC with dropout (0.01) + LayerNorm critics and
# the policy every 20 updates (at one update per step here, as ours); SimBa
# as SBX's SAC "SimbaPolicy" (the same blocks; it has no running observation
# normalization, which ours adds).
PEER_SCRIPT = '''
import json, sys, time
library, algorithm, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
critic_width = int(sys.argv[4])
if library == "sb3":
    from stable_baselines3 import SAC
else:
    from sbx import SAC, TQC, CrossQ
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger
import gymnasium as gym

START = {warmup} + {compile}

class Clock(BaseCallback):
    def _on_step(self):
        if self.num_timesteps == START:
            self.start = time.perf_counter()
        return True

clock = Clock()
network = dict(net_arch=[256, 256])
settings = {{}}
policy = "MlpPolicy"
if algorithm == "TQC":
    agent = TQC
    network.update(n_critics=2, n_quantiles=25)
elif algorithm == "CrossQ":
    agent = CrossQ
    network = dict(net_arch=dict(pi=[256, 256], qf=[critic_width] * 2))
elif algorithm == "DroQ":
    agent = SAC
    network.update(dropout_rate=0.01, layer_norm=True)
    settings = dict(policy_delay=20)
elif algorithm == "SimBa":
    agent, policy = SAC, "SimbaPolicy"
    network = dict(net_arch=[{simba_width}])
elif algorithm == "SimbaV2":
    agent, policy = SAC, "SimbaPolicy"
    network = dict(net_arch=dict(pi={simbav2_actor}, qf={simbav2_critic}))
else:
    agent = SAC
model = agent(policy, gym.make("HalfCheetah-v5"), batch_size=256,
              buffer_size=1_000_000, learning_starts={warmup}, train_freq=1,
              gradient_steps=1, policy_kwargs=network, seed=1, **settings)
model.set_logger(Logger(folder=None, output_formats=[]))  # no temp folders
model.learn(total_timesteps=START + steps, callback=clock)
print(json.dumps({{"env_steps_per_s": steps / (time.perf_counter() - clock.start)}}))
'''.format(warmup=WARMUP_STEPS, compile=COMPILE_STEPS,
           simba_width=SIMBA_WIDTH,
           simbav2_actor=list(SIMBAV2_SIZES['policy_params']),
           simbav2_critic=list(SIMBAV2_SIZES['Q_params']))
# softlearning's setting of the same agent (throughput.py's --algorithm and
# --config).
SOFTLEARNING_ALGORITHM = {'SimBa': 'SAC', 'categorical': 'SAC'}
SOFTLEARNING_CONFIG = {
    'SAC': [], 'TQC': ['Q_params.config.n_Q_functions=2'], 'CrossQ': [],
    'DroQ': [], 'SimbaV2': [],
    'categorical': ['Q_params.config.categorical='
                    '{"n_atoms": 101, "v_min": -5, "v_max": 5}'],
    # (--network simba's settings: its widths, and XLA where faster.)
    'SimBa': [f'{network}_params.config.{key}={value}'
              for network in ('policy', 'Q')
              for key, value in (('network', 'simba'),
                                 ('hidden_layer_sizes', f'[{SIMBA_WIDTH}]'))]
             + ['algorithm_params.config.jit_compile="auto"']}
PEERS = {'SAC': ('sb3', 'sbx'), 'TQC': ('sbx',), 'CrossQ': ('sbx',),
         'DroQ': ('sbx',), 'SimBa': ('sbx',), 'SimbaV2': ('sbx',),
         'categorical': ('sbx',)}


EVALUATION_SEEDS = tuple(range(1000, 1010))
TD3_SETTINGS = dict(learning_rate=3e-4, batch_size=256, gamma=0.99, tau=5e-3,
                    learning_starts=10000, policy_delay=2,
                    target_policy_noise=0.2, target_noise_clip=0.5,
                    exploration_noise=0.1, net_arch=[256, 256])

# Runs in the peer's interpreter: trains SB3's TD3, evaluates it on the
# given start states, prints {"returns": [...], "seconds": ...}.
PEER_TD3_SCRIPT = '''
import json, sys, time
import numpy as np, torch, gymnasium as gym
from stable_baselines3 import TD3
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.noise import NormalActionNoise
torch.set_num_threads(1)
steps, seed, settings, eval_seeds = (int(sys.argv[1]), int(sys.argv[2]),
                                     json.loads(sys.argv[3]),
                                     json.loads(sys.argv[4]))
env = gym.make("HalfCheetah-v5")
n = env.action_space.shape[0]
# Actions are in [-1, 1] for HalfCheetah, so the noise scales match ours.
noise = NormalActionNoise(np.zeros(n), settings["exploration_noise"] * np.ones(n))
start = time.perf_counter()
model = TD3("MlpPolicy", env, learning_rate=settings["learning_rate"],
            batch_size=settings["batch_size"], gamma=settings["gamma"],
            tau=settings["tau"], learning_starts=settings["learning_starts"],
            policy_delay=settings["policy_delay"],
            target_policy_noise=settings["target_policy_noise"],
            target_noise_clip=settings["target_noise_clip"],
            action_noise=noise, train_freq=1, gradient_steps=1,
            buffer_size=1_000_000, seed=seed,
            policy_kwargs=dict(net_arch=settings["net_arch"]))
model.set_logger(Logger(folder=None, output_formats=[]))  # no temp folders
model.learn(total_timesteps=steps)
seconds = time.perf_counter() - start
returns = []
for eval_seed in eval_seeds:
    observation, _ = env.reset(seed=eval_seed)
    total, done = 0.0, False
    while not done:
        action, _ = model.predict(observation, deterministic=True)
        observation, reward, terminated, truncated, _ = env.step(action)
        total += reward
        done = terminated or truncated
    returns.append(total)
print(json.dumps({"returns": returns, "seconds": seconds}))
'''


# Where each of TD3_SETTINGS goes in softlearning's variant.
TD3_VARIANT_KEYS = {
    'learning_rate': ('algorithm_params.config.policy_lr',
                      'algorithm_params.config.Q_lr'),
    'batch_size': ('algorithm_params.config.batch_size',),
    'gamma': ('algorithm_params.config.discount',),
    'tau': ('algorithm_params.config.tau',),
    'learning_starts': ('algorithm_params.config.n_initial_exploration_steps',),
    'policy_delay': ('algorithm_params.config.policy_delay',),
    'target_policy_noise': ('algorithm_params.config.target_noise',),
    'target_noise_clip': ('algorithm_params.config.target_noise_clip',),
    'exploration_noise': ('policy_params.config.exploration_noise',),
    'net_arch': ('policy_params.config.hidden_layer_sizes',
                 'Q_params.config.hidden_layer_sizes'),
}


def softlearning_td3_command(steps, seed, local_dir):
    overrides = [option
                 for name, keys in TD3_VARIANT_KEYS.items() for key in keys
                 for option in ('--config', f"{key}="
                                f"{json.dumps(TD3_SETTINGS[name])}")]
    return [
        sys.executable, '-m', 'softlearning.cli',
        'run_example_local', 'examples.development', '--algorithm', 'TD3',
        '--universe', 'gym', '--domain', 'HalfCheetah', '--task', 'v5',
        '--n-epochs', str(steps // 1000), '--seed', str(seed),
        '--local-dir', local_dir, '--cpus', '1', '--trial-cpus', '1',
        '--verbose', '0', *overrides]


def evaluate_checkpoint(trial_dir):
    """Deterministic returns of the trial's final policy (numpy, as
    ``softlearning simulate`` acts) on EVALUATION_SEEDS' start states."""
    sys.path.insert(0, os.path.dirname(HERE))
    from softlearning.experiments.trial.policy_loading import (
        build_environment, load_checkpoint_variant, load_numpy_policy)
    from softlearning.samplers import rollouts
    checkpoint_dir, variant = load_checkpoint_variant(trial_dir)
    environment = build_environment(variant)
    policy = load_numpy_policy(checkpoint_dir, variant, environment)
    returns = []
    with policy.set_deterministic(True):
        for seed in EVALUATION_SEEDS:
            (path,) = rollouts(1, environment, policy, 1000, seed=seed)
            returns.append(path['return'])
    return returns


def compare_td3_learning(args):
    import glob
    import tempfile
    import time
    from peer_processes import pinned_to, side_by_side_cores
    local_dir = tempfile.mkdtemp(prefix='td3_learning_')
    our_core, peer_core = side_by_side_cores()
    start = time.perf_counter()
    ours = subprocess.Popen(
        softlearning_td3_command(args.learning_steps, args.seed, local_dir),
        cwd=os.path.dirname(HERE), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, 'PYTHONPATH': os.path.dirname(HERE)},
        preexec_fn=pinned_to(our_core))
    peer = subprocess.Popen(
        [args.peer_python, '-c', PEER_TD3_SCRIPT, str(args.learning_steps),
         str(args.seed), json.dumps(TD3_SETTINGS),
         json.dumps(EVALUATION_SEEDS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=pinned_to(peer_core))
    our_out, our_err = ours.communicate()
    our_seconds = time.perf_counter() - start
    peer_out, peer_err = peer.communicate()
    if ours.returncode:
        sys.exit(f"softlearning TD3 failed: {our_err[-2000:]}")
    if peer.returncode:
        sys.exit(f"SB3 TD3 failed: {peer_err[-2000:]}")
    (progress,) = glob.glob(os.path.join(local_dir, '**', 'progress.csv'),
                            recursive=True)
    our_returns = evaluate_checkpoint(os.path.dirname(progress))
    peer_result = json.loads(peer_out.strip().splitlines()[-1])

    def summary(returns, seconds):
        return {'eval_return_mean': round(float(sum(returns) / len(returns)), 1),
                'eval_returns': [round(float(r), 1) for r in returns],
                'train_seconds': round(seconds, 1)}

    print(json.dumps({
        'benchmark': 'td3_halfcheetah_learning', 'steps': args.learning_steps,
        'seed': args.seed, 'settings': TD3_SETTINGS,
        'evaluation_seeds': list(EVALUATION_SEEDS),
        'softlearning': summary(our_returns, our_seconds),
        'sb3': summary(peer_result['returns'], peer_result['seconds']),
        'results_dir': local_dir}))


def run_json(command):
    result = subprocess.run(command, capture_output=True, text=True)
    return _parsed(result, result.stdout, result.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=5000)
    parser.add_argument('--algorithm', choices=tuple(PEERS), default='SAC',
                        help='The agent compared in throughput (TQC: with '
                             "two critics, SBX's default; CrossQ: with the "
                             "preset's critic width; SimBa: SAC with SimBa "
                             'networks; SimbaV2: the preset, against SBX\'s '
                             'SimBa of its widths; categorical: SAC with '
                             'categorical critics).')
    parser.add_argument('--side-by-side', action='store_true',
                        help='One CPU thread each, the two libraries at '
                             'the same time (as the suites run them).')
    parser.add_argument('--peer-python', default=sys.executable,
                        help='Interpreter with stable-baselines3 / sbx-rl '
                             '(default: this one).')
    parser.add_argument('--learning', choices=('TD3',), default=None,
                        help='Compare learning instead of throughput.')
    parser.add_argument('--learning-steps', type=int, default=100000)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--record', metavar='FILE.jsonl', default=None,
                        help='Also append the result, with the date, the '
                             'commit and the peers\' versions, to this file '
                             '(the committed measurements: '
                             'benchmarks/results/speed/, which the docs\' '
                             'speed tables are generated from).')
    args = parser.parse_args()
    if not args.learning and (args.steps < EPOCH_LENGTH
                              or args.steps % EPOCH_LENGTH):
        parser.error(f'--steps must be a positive multiple of {EPOCH_LENGTH} '
                     f'(throughput.py measures whole epochs), got {args.steps}.')
    if args.learning:
        compare_td3_learning(args)
        return

    our_command = [
        sys.executable, os.path.join(HERE, 'throughput.py'),
        '--algorithm', SOFTLEARNING_ALGORITHM.get(args.algorithm,
                                                  args.algorithm),
        '--steps', str(args.steps),
        *[option for setting in SOFTLEARNING_CONFIG[args.algorithm]
          for option in ('--config', setting)]]
    peer_commands = {library: [args.peer_python, '-c', PEER_SCRIPT, library,
                               args.algorithm, str(args.steps),
                               str(CRITIC_WIDTH)]
                     for library in PEERS[args.algorithm]}
    if args.side_by_side:
        ours, peers = side_by_side(our_command, peer_commands)
    else:
        ours = run_json(our_command)
        peers = {library: run_json(command)
                 for library, command in peer_commands.items()}
    ours, error = ours
    if ours is None:
        sys.exit(f"throughput.py failed: {error}")
    result = {'algorithm': args.algorithm,
              'softlearning': ours['env_steps_per_s'], 'steps': args.steps,
              'cpu_count': os.cpu_count(), 'cpu': cpu_model(),
              'side_by_side': args.side_by_side}
    for library, (peer, error) in peers.items():
        if peer is None:
            result[library] = None
            result[f'{library}_error'] = error
            continue
        result[library] = round(peer['env_steps_per_s'], 1)
        result[f'softlearning_over_{library}'] = round(
            ours['env_steps_per_s'] / peer['env_steps_per_s'], 2)
    print(json.dumps(result))
    if args.record:
        record(args.record, result, args.peer_python)


def record(path, result, peer_python):
    """Appends ``result`` to ``path`` (JSON lines) with when, at which
    commit and with which versions it was measured."""
    import datetime
    commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                            cwd=HERE, capture_output=True, text=True)
    versions = subprocess.run(
        [peer_python, '-c', PEER_VERSIONS], capture_output=True, text=True)
    result = {**result,
              'date': datetime.date.today().isoformat(),
              'commit': commit.stdout.strip() or None,
              'peer_versions': (json.loads(versions.stdout)
                                if versions.returncode == 0 else None)}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'a') as f:
        f.write(json.dumps(result) + '\n')


PEER_VERSIONS = '''
import importlib.metadata as metadata, json
versions = {}
for name in ('sbx-rl', 'stable-baselines3', 'jax', 'torch'):
    try:
        versions[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
print(json.dumps(versions))
'''


def side_by_side(our_command, peer_commands):
    """softlearning's run beside each peer's in turn, one CPU thread each
    (a second run of ours beside the second peer): ({...} or None, error)
    of ours (the mean over its runs) and of each peer."""
    from peer_processes import (
        peer_process_environment, pinned_to, side_by_side_cores)
    our_command = [*our_command, '--threads', '1']
    our_core, peer_core = side_by_side_cores()
    ours, peers = [], {}
    for library, command in peer_commands.items():
        mine = subprocess.Popen(our_command, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=pinned_to(our_core))
        theirs = subprocess.Popen(command, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True,
                                  env=peer_process_environment(),
                                  preexec_fn=pinned_to(peer_core))
        ours.append(_parsed(mine, *mine.communicate()))
        peers[library] = _parsed(theirs, *theirs.communicate())
    rates = [result['env_steps_per_s'] for result, _ in ours if result]
    if len(rates) < len(ours):
        return next(pair for pair in ours if pair[0] is None), peers
    return ({'env_steps_per_s': round(sum(rates) / len(rates), 1)}, None), \
        peers


def _parsed(process, stdout, stderr):
    if process.returncode != 0:
        return None, stderr.strip().splitlines()[-1:]
    return json.loads(stdout.strip().splitlines()[-1]), None


if __name__ == '__main__':
    main()
