"""SAC from pixels: update and collection speed; prints one JSON object.

Setting: the development example's pixel variant (--observation pixels) on
dm_control cartpole-swingup: 64x64 frames, 3 stacked (64x64x9 uint8),
action repeat 8, the convolutional encoder shared by the policy and the
Q-functions, random-shift augmentation, batch 128. ``--image-size 84
--drq`` measures DrQ's own network instead (84x84, strides 2-1-1-1).

- updates_per_s: SAC updates at batch 128, ``--fused-updates`` per
  compiled call (minibatches of real collected frames), after the first
  call (which traces and compiles);
- collection (per number of sampler actors, 1 and 2): policy steps per
  second that the actors deliver to the learner's pool, acting with the
  numpy conv policy and rendering with OSMesa; each policy step is
  ``action_repeat`` simulator steps (simulator_steps_per_s);
- peers (``--peer-python``): Stable-Baselines3's SAC updates per second at
  the same image size and batch, with its ``CnnPolicy`` (NatureCNN, actor
  and critic each with their own extractor) and with this encoder
  (the same layers, one extractor shared by actor and critic, as SB3
  shares it), measured the same way (its ``train`` on a buffer of
  random frames). Run alone: both use every core.

    python benchmarks/pixels_throughput.py [--peer-python /tmp/peers/bin/python]
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from softlearning.utils.machine import cpu_model  # noqa: E402


def build_runner(args, num_samplers):
    from softlearning import experiments
    from softlearning.experiments.trial.trainable import (
        ExperimentRunner, build_outside_tune)
    config = {'environment_params.training.pixels.image_size':
              args.image_size}
    if args.drq:
        config['encoder_params.config.strides'] = [2, 1, 1, 1]
    variant = experiments.sample_variant(experiments.variant_spec(
        algorithm='SAC', universe='dm_control', domain='cartpole',
        task='swingup', observation='pixels', num_samplers=num_samplers,
        sampler_cpus=2 / num_samplers, seed=1, cpus=2, config=config))
    variant['algorithm_params']['config']['eval_n_episodes'] = 0
    variant['run_params']['tf_num_threads'] = args.threads
    return build_outside_tune(ExperimentRunner, variant)


def collection_rate(runner, steps):
    """Policy steps/s the actors deliver with the learner's policy."""
    runner.sampler.sample(50, runner.policy)  # actors start and render once
    start = time.perf_counter()
    runner.sampler.sample(steps, runner.policy)
    return steps / (time.perf_counter() - start)


def update_rate(runner, fused_updates, calls):
    algorithm, pool = runner.algorithm, runner.pool
    batch_size = runner._variant['algorithm_params']['config']['batch_size']
    algorithm._do_training(pool.random_batches(fused_updates, batch_size))
    seconds = 0.0
    for _ in range(calls):
        batches = pool.random_batches(fused_updates, batch_size)
        start = time.perf_counter()
        algorithm._do_training(batches)
        seconds += time.perf_counter() - start
    return fused_updates * calls / seconds


PEER_SCRIPT = r'''
import json, sys, time
import gymnasium as gym
import numpy as np
import torch
from torch import nn
from stable_baselines3 import SAC
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

size, batch, fused, calls, encoder = (int(sys.argv[1]), int(sys.argv[2]),
                                      int(sys.argv[3]), int(sys.argv[4]),
                                      sys.argv[5])
torch.set_num_threads(int(sys.argv[6]))


class Frames(gym.Env):
    observation_space = gym.spaces.Box(0, 255, (9, size, size), np.uint8)
    action_space = gym.spaces.Box(-1, 1, (1,), np.float32)

    def reset(self, seed=None, options=None):
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


class Ours(BaseFeaturesExtractor):
    """softlearning's pixel encoder: 3x3 convs of 32, strides 2-2-1-1,
    Dense 50, LayerNorm, tanh."""
    def __init__(self, space, features_dim=50):
        super().__init__(space, features_dim)
        layers, channels = [], space.shape[0]
        for stride in (2, 2, 1, 1):
            layers += [nn.Conv2d(channels, 32, 3, stride), nn.ReLU()]
            channels = 32
        self.convs = nn.Sequential(*layers, nn.Flatten())
        with torch.no_grad():
            flat = self.convs(torch.zeros(1, *space.shape)).shape[1]
        self.head = nn.Sequential(nn.Linear(flat, features_dim),
                                  nn.LayerNorm(features_dim), nn.Tanh())

    def forward(self, x):
        return self.head(self.convs(x))


kwargs = {}
if encoder == 'ours':
    kwargs = dict(features_extractor_class=Ours,
                  share_features_extractor=True, net_arch=[256, 256])
model = SAC('CnnPolicy', Frames(), batch_size=batch, buffer_size=5000,
            learning_starts=600, policy_kwargs=kwargs, verbose=0)
model.learn(600)  # fills the buffer with 600 random frames, no updates
model.train(gradient_steps=fused, batch_size=batch)
start = time.perf_counter()
for _ in range(calls):
    model.train(gradient_steps=fused, batch_size=batch)
print(json.dumps({'updates_per_s': fused * calls
                  / (time.perf_counter() - start)}))
'''


def peer_update_rate(args, encoder):
    result = subprocess.run(
        [args.peer_python, '-c', PEER_SCRIPT, str(args.image_size),
         str(args.batch_size), str(args.fused_updates), str(args.calls),
         encoder, str(args.threads)],
        capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])[
        'updates_per_s']


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--image-size', type=int, default=64)
    parser.add_argument('--drq', action='store_true',
                        help="DrQ's network (strides 2-1-1-1)")
    parser.add_argument('--batch-size', type=int, default=128)
    parser.add_argument('--fused-updates', type=int, default=25)
    parser.add_argument('--calls', type=int, default=4)
    parser.add_argument('--collect-steps', type=int, default=400)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--peer-python', default=None)
    args = parser.parse_args(argv)

    import ray
    os.environ.setdefault('RAY_USAGE_STATS_ENABLED', '0')
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={'env_vars': {'PYTHONPATH': ROOT}})
    results = {'benchmark': 'pixels_throughput', 'image_size': args.image_size,
               'encoder': 'drq' if args.drq else 'default',
               'batch_size': args.batch_size, 'cpus': os.cpu_count(),
               'cpu': cpu_model(),
               'collection': {}}
    try:
        for num_samplers in (1, 2):
            runner = build_runner(args, num_samplers)
            if args.batch_size:
                runner._variant['algorithm_params']['config'][
                    'batch_size'] = args.batch_size
            repeat = runner._variant['environment_params']['training'][
                'pixels']['action_repeat']
            rate = collection_rate(runner, args.collect_steps)
            results['collection'][f'{num_samplers}_actors'] = {
                'policy_steps_per_s': round(rate, 1),
                'simulator_steps_per_s': round(rate * repeat, 1)}
            if num_samplers == 1:
                results['action_repeat'] = repeat
                results['pool_bytes_per_transition'] = (
                    runner.pool.bytes_per_transition)
                results['updates_per_s'] = round(update_rate(
                    runner, args.fused_updates, args.calls), 2)
            runner.cleanup()
    finally:
        ray.shutdown()
    if args.peer_python:
        results['sb3'] = {
            'cnn_policy_updates_per_s': round(
                peer_update_rate(args, 'nature'), 2),
            'our_encoder_updates_per_s': round(
                peer_update_rate(args, 'ours'), 2)}
        results['ratio_vs_sb3_cnn_policy'] = round(
            results['updates_per_s']
            / results['sb3']['cnn_policy_updates_per_s'], 2)
        results['ratio_vs_sb3_same_encoder'] = round(
            results['updates_per_s']
            / results['sb3']['our_encoder_updates_per_s'], 2)
    print(json.dumps(results, indent=1))


if __name__ == '__main__':
    main()
