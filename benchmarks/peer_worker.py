"""The peer worker: trains one run of SBX or Stable-Baselines3 in the
peer library's own interpreter, where softlearning is not installed, and
writes its trial folder (peer_trial_folder.py) as it goes.

    PEER_PYTHON benchmarks/peer_worker.py SPEC_JSON

SPEC_JSON is everything the run needs, written by the host side
(benchmarks/peers.py, from softlearning's suite and presets): folder, name,
library, algorithm, gymnasium_id, seed, steps, training_seconds (a
per-hour suite's budget of collecting and training, or null), cpu (the
machine's, for progress.csv), evaluation
{episodes, first_seed, interval}, constructor {module, class, policy,
kwargs} and resume (a checkpoint record to go on from, or null). Standard library and
the peer library only: no setting is decided here.
"""

import importlib
import json
import os
import sys
import time

from peer_trial_folder import (CHECKPOINT_DIR, ProgressWriter,
                               evaluation_row, save_checkpoint)

# The constructor's activation by name (JSON carries names, not
# functions), per library.
ACTIVATIONS = {'sbx': ('flax.linen', {'relu': 'relu'}),
               'sb3': ('torch.nn', {'relu': 'ReLU'})}


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


def train(spec):
    """Trains one run and writes its progress.csv (``spec``: the module
    docstring's). A checkpoint follows every evaluation but the last."""
    import gymnasium as gym
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    constructor = spec['constructor']
    kwargs = {**json.loads(json.dumps(constructor['kwargs'])),
              'seed': spec['seed']}
    if spec['library'] == 'sb3':
        import torch
        torch.set_num_threads(1)
    Algorithm = getattr(importlib.import_module(constructor['module']),
                        constructor['class'])
    policy_kwargs = kwargs.get('policy_kwargs', {})  # none: the peer's
    if 'activation_fn' in policy_kwargs:
        module, names = ACTIVATIONS[spec['library']]
        policy_kwargs['activation_fn'] = getattr(
            importlib.import_module(module),
            names[policy_kwargs['activation_fn']])
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
    budget = spec.get('training_seconds')

    class Evaluation(BaseCallback):
        """Evaluates after the update of every ``interval``-th step: at
        the start of the next collection, or at the end of training. With
        a budget, training ends once the seconds spent collecting and
        training (evaluations and checkpoints not counted) reach it, and
        that step is evaluated too."""

        def __init__(self):
            super().__init__()
            self.epoch, self.last_step = ((resume['epoch'],
                                           resume['total_timestep'])
                                          if resume else (0, 0))
            self.last_time = time.perf_counter()
            self.spent_before = (resume.get('training_seconds', 0.0)
                                 if resume else 0.0)
            self.excluded = 0.0
            self.budget_spent = False

        def _on_training_start(self):
            self.training_start = time.perf_counter()

        def training_seconds(self):
            return (self.spent_before + time.perf_counter()
                    - self.training_start - self.excluded)

        def _on_step(self):
            if budget is not None and self.training_seconds() >= budget:
                self.budget_spent = True
                return False  # SB3 ends learn() here
            return True

        def _on_rollout_start(self):
            self.maybe_evaluate()

        def _on_training_end(self):
            self.maybe_evaluate(final=self.budget_spent)

        def maybe_evaluate(self, final=False):
            step = self.model.num_timesteps
            if step == self.last_step or (
                    step % evaluation['interval'] != 0 and not final):
                return
            spent = self.training_seconds()
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
                epoch_steps=step - self.last_step, training_seconds=spent,
                cpu=spec.get('cpu'))
            progress.write(row)
            print(f"{spec['name']}  step {step}/{steps}  eval return "
                  f"{row['evaluation/return-mean']:.1f} "
                  f"(std {row['evaluation/return-std']:.1f})  "
                  f"{row['timesteps_per_second']:.1f} steps/s", flush=True)
            self.last_step, self.last_time = step, now
            if step < steps and not final:
                save_checkpoint(self.model, spec['folder'], {
                    'total_timestep': step, 'epoch': self.epoch,
                    'time_total_s': now - start, 'training_seconds': spent})
            self.excluded += time.perf_counter() - evaluation_start

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
        model = Algorithm(constructor['policy'], training_environment,
                          **kwargs)
        model.set_logger(silent_logger)
        model.learn(total_timesteps=steps, callback=Evaluation())
    progress.close()


if __name__ == '__main__':
    train(json.loads(sys.argv[1]))
