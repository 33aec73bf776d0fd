"""softlearning's SAC throughput next to Stable-Baselines3 (PyTorch) and SBX
(JAX) on the same machine, in one run; prints one JSON object.

The same setting as throughput.py: SAC on gymnasium HalfCheetah-v5, one
gradient update per environment step, batch 256, 256-256 networks, a 1e6
replay pool, 1,000 warm-up steps; each library's rate is measured over
``--steps`` steps after another 1,000 steps that absorb compilation.

Neither peer is a dependency of softlearning. Install them in any Python
environment with gymnasium[mujoco] and point ``--peer-python`` at it:

    python -m venv /tmp/peers && /tmp/peers/bin/pip install stable-baselines3 sbx-rl 'gymnasium[mujoco]'
    python benchmarks/compare_peers.py --peer-python /tmp/peers/bin/python
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP_STEPS = 1000
COMPILE_STEPS = 1000

# Runs in the peer's interpreter: prints {"env_steps_per_s": ...}.
PEER_SCRIPT = '''
import json, sys, time
library, steps = sys.argv[1], int(sys.argv[2])
if library == "sb3":
    from stable_baselines3 import SAC
    from stable_baselines3.common.callbacks import BaseCallback
else:
    from sbx import SAC
    from stable_baselines3.common.callbacks import BaseCallback
import gymnasium as gym

START = {warmup} + {compile}

class Clock(BaseCallback):
    def _on_step(self):
        if self.num_timesteps == START:
            self.start = time.perf_counter()
        return True

clock = Clock()
model = SAC("MlpPolicy", gym.make("HalfCheetah-v5"), batch_size=256,
            buffer_size=1_000_000, learning_starts={warmup}, train_freq=1,
            gradient_steps=1, policy_kwargs=dict(net_arch=[256, 256]), seed=1)
model.learn(total_timesteps=START + steps, callback=clock)
print(json.dumps({{"env_steps_per_s": steps / (time.perf_counter() - clock.start)}}))
'''.format(warmup=WARMUP_STEPS, compile=COMPILE_STEPS)


def run_json(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1:]
    return json.loads(result.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=5000)
    parser.add_argument('--peer-python', default=sys.executable,
                        help='Interpreter with stable-baselines3 / sbx-rl '
                             '(default: this one).')
    args = parser.parse_args()

    ours, error = run_json([sys.executable, os.path.join(HERE, 'throughput.py'),
                            '--steps', str(args.steps)])
    if ours is None:
        sys.exit(f"throughput.py failed: {error}")
    result = {'softlearning': ours['env_steps_per_s'], 'steps': args.steps,
              'cpu_count': os.cpu_count()}
    for library in ('sb3', 'sbx'):
        peer, error = run_json([args.peer_python, '-c', PEER_SCRIPT, library,
                                str(args.steps)])
        if peer is None:
            result[library] = None
            result[f'{library}_error'] = error
            continue
        result[library] = round(peer['env_steps_per_s'], 1)
        result[f'softlearning_over_{library}'] = round(
            ours['env_steps_per_s'] / peer['env_steps_per_s'], 2)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
