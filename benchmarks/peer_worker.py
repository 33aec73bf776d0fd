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
kwargs, and environments {count, normalize_observations} where the preset
steps several or normalizes them}, resume (a checkpoint record to go on
from, or null) and robotics_module and dm_control_module (the paths of
softlearning's environments/adapters/robotics.py and dm_control_gymnasium.py)
and environment_kwargs (the suite's, for dm_control: its action repeat).
Standard library and the peer library only: no setting is decided here.

A task gymnasium does not know by itself (gymnasium-robotics' Fetch tasks)
is registered by softlearning's robotics module, loaded by its path
(softlearning is not installed here): it also patches gymnasium-robotics
where it fails on this mujoco, so that both libraries run the same tasks.
"""

import importlib
import importlib.util
import json
import os
import sys
import time

from peer_trial_folder import (CHECKPOINT_DIR, PROGRESS_COLUMNS,
                               SUCCESS_COLUMN, ProgressWriter,
                               evaluation_row, normalization_summary,
                               save_checkpoint)

# The temperature in softlearning's column name, so that a peer's run and
# ours read side by side (the SAC family's agents; others leave it out).
TEMPERATURE_COLUMN = 'alpha'
# The last update's losses as the peer's logger holds them, in our column
# names (ours are means over the epoch's updates): the actor's loss,
# alpha * log pi - min Q, reads the critics' values where alpha is small.
# SBX's agents with a policy delay log an actor's loss of 0.0 for a
# training call that did not update the actor, so the last non-zero value
# of each is kept.
LOSS_COLUMNS = {'Q_loss': 'train/critic_loss',
                'policy_loss': 'train/actor_loss'}

# The constructor's activation by name (JSON carries names, not
# functions), per library.
ACTIVATIONS = {'sbx': ('flax.linen', {'relu': 'relu'}),
               'sb3': ('torch.nn', {'relu': 'ReLU'})}


def load_module(path, name):
    """One of softlearning's standalone environment modules, by its path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_robotics_module(path):
    """softlearning's environments/adapters/robotics.py, by its path."""
    return load_module(path, 'softlearning_robotics')


def make_environment(environment_id, spec):
    """The run's environment: ``gym.make(environment_id)``; an id gymnasium
    does not know is first registered through softlearning's robotics
    module (``spec['robotics_module']``: its path), as softlearning's gym
    universe registers it; a dm_control task ('dm_control/dog-run') is
    built by softlearning's dm_control_gymnasium.py with the suite's
    environment kwargs (its action repeat), as softlearning's adapter
    steps it."""
    import gymnasium as gym
    if environment_id.startswith('dm_control/'):
        module = load_module(spec['dm_control_module'],
                             'softlearning_dm_control')
        return module.gymnasium_environment(
            *module.parse_id(environment_id), seed=spec['seed'],
            **(spec.get('environment_kwargs') or {}))
    robotics_module = spec.get('robotics_module')
    if environment_id not in gym.registry and robotics_module:
        load_robotics_module(robotics_module).register_robotics_environments()
    return gym.make(environment_id)


def training_environments(environment_id, spec, resume):
    """The environment the peer trains on: one, or
    ``constructor.environments.count`` stepped together (SB3's DummyVecEnv),
    behind VecNormalize where ``normalize_observations`` says so (its
    statistics restored from the checkpoint on resume). Returns
    (environment, its VecNormalize or None)."""
    settings = spec['constructor'].get('environments') or {}
    count = settings.get('count', 1)
    normalize = settings.get('normalize_observations', False)
    if count == 1 and not normalize:
        return make_environment(environment_id, spec), None
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize
    vector = DummyVecEnv([lambda: make_environment(environment_id, spec)]
                         * count)
    if not normalize:
        return vector, None
    if resume:
        normalizer = VecNormalize.load(
            os.path.join(spec['folder'], CHECKPOINT_DIR,
                         resume['normalization']), vector)
        restored = normalization_summary(normalizer)
        saved = resume.get('normalization_summary')
        # A run resumed with other statistics than it saved would go on
        # with a policy that reads its inputs differently: refuse.
        if saved is not None and restored != saved:
            raise RuntimeError(
                f"{resume['normalization']} holds statistics {restored}, "
                f"not the {saved} the checkpoint saved")
        print(f"{spec['name']}  resumed the observation normalization "
              f"({restored['count']:.0f} observations counted)", flush=True)
    else:
        normalizer = VecNormalize(vector, norm_obs=True, norm_reward=False)
    return normalizer, normalizer


def episode_success(info):
    """The episode's success from its last step's ``info`` (None if the
    environment reports none)."""
    success = info.get('is_success')
    return None if success is None else float(success)


def evaluate(model, environment, episodes, first_seed, normalizer=None):
    """(returns, lengths, successes) of ``episodes`` deterministic episodes,
    episode i reset with seed ``first_seed + i``; successes: each one's
    ``info['is_success']`` at its last step, None where not reported.
    ``normalizer``: the training's VecNormalize, whose statistics the policy
    sees its observations through (not updated here)."""
    returns, lengths, successes = [], [], []
    for i in range(episodes):
        observation, _ = environment.reset(seed=first_seed + i)
        total, length, done, info = 0.0, 0, False, {}
        while not done:
            action, _ = model.predict(
                observation if normalizer is None
                else normalizer.normalize_obs(observation),
                deterministic=True)
            observation, reward, terminated, truncated, info = (
                environment.step(action))
            total += float(reward)
            length += 1
            done = terminated or truncated
        returns.append(total)
        lengths.append(length)
        successes.append(episode_success(info))
    return returns, lengths, successes


def temperature(model):
    """The entropy coefficient the model trains with now (SBX's learned
    one, SB3's learned or fixed one), or None for agents without one (TD3,
    DDPG)."""
    state = getattr(model, 'ent_coef_state', None)  # SBX
    if state is not None:
        return float(state.apply_fn({'params': state.params}))
    log_coefficient = getattr(model, 'log_ent_coef', None)  # SB3, learned
    if log_coefficient is not None:
        return float(log_coefficient.detach().exp().item())
    fixed = getattr(model, 'ent_coef_tensor', None)  # SB3, fixed
    return None if fixed is None else float(fixed.item())


def reports_success(environment, seed):
    """Whether the environment's steps report ``is_success`` (one step
    taken; every evaluation episode is reset with its own seed anyway)."""
    environment.reset(seed=seed)
    *_, info = environment.step(environment.action_space.sample())
    return episode_success(info) is not None


def train(spec):
    """Trains one run and writes its progress.csv (``spec``: the module
    docstring's). A checkpoint follows every evaluation but the last."""
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
    if 'replay_buffer_class' in kwargs:  # SB3's (HerReplayBuffer)
        kwargs['replay_buffer_class'] = getattr(
            importlib.import_module('stable_baselines3'),
            kwargs['replay_buffer_class'])
    noise = kwargs.pop('action_noise', None)
    environment_id, steps = spec['gymnasium_id'], spec['steps']
    resume = spec.get('resume')
    training_environment, normalizer = training_environments(
        environment_id, spec, resume)
    if noise is not None:
        import numpy as np
        from stable_baselines3.common.noise import NormalActionNoise
        n = int(np.prod(training_environment.action_space.shape))
        kwargs['action_noise'] = NormalActionNoise(
            mean=np.full(n, noise['mean']), sigma=np.full(n, noise['sigma']))
    evaluation = spec['evaluation']
    evaluation_environment = make_environment(environment_id, spec)
    # Goal-conditioned tasks: the evaluations' success rate too.
    columns = PROGRESS_COLUMNS + (
        (SUCCESS_COLUMN,) if reports_success(evaluation_environment,
                                             evaluation['first_seed'])
        else ())
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
            self.losses = {}

        def _on_training_start(self):
            self.training_start = time.perf_counter()
            # (Here: whether the agent learns a temperature needs the model.)
            self.progress = ProgressWriter(
                spec['folder'], append=bool(resume), columns=columns + (
                    (TEMPERATURE_COLUMN,) if temperature(self.model)
                    is not None else ()) + tuple(LOSS_COLUMNS))

        def training_seconds(self):
            return (self.spent_before + time.perf_counter()
                    - self.training_start - self.excluded)

        def _on_step(self):
            if budget is not None and self.training_seconds() >= budget:
                self.budget_spent = True
                return False  # SB3 ends learn() here
            return True

        def _on_rollout_start(self):
            self.keep_losses()
            self.maybe_evaluate()

        def _on_training_end(self):
            self.keep_losses()
            self.maybe_evaluate(final=self.budget_spent)

        def keep_losses(self):
            # (After a training call: SB3 clears its logger when it writes
            # its logs, which happens between rollouts' steps.)
            logged = self.model.logger.name_to_value
            self.losses.update({column: logged[key]
                                for column, key in LOSS_COLUMNS.items()
                                if logged.get(key)})

        def maybe_evaluate(self, final=False):
            step = self.model.num_timesteps
            if step == self.last_step or (
                    step % evaluation['interval'] != 0 and not final):
                return
            spent = self.training_seconds()
            evaluation_start = time.perf_counter()
            returns, lengths, successes = evaluate(
                self.model, evaluation_environment, evaluation['episodes'],
                evaluation['first_seed'], normalizer)
            now = time.perf_counter()
            self.epoch += 1
            row = evaluation_row(
                self.epoch, step, returns, lengths, now - start,
                epoch_seconds=now - self.last_time,
                evaluation_seconds=now - evaluation_start,
                epoch_steps=step - self.last_step, training_seconds=spent,
                cpu=spec.get('cpu'), successes=successes)
            row[TEMPERATURE_COLUMN] = temperature(self.model)
            row.update({column: self.losses.get(column)
                        for column in LOSS_COLUMNS})
            self.progress.write(row)
            success = (f"  success {row[SUCCESS_COLUMN]:.2f}"
                       if SUCCESS_COLUMN in row else '')
            print(f"{spec['name']}  step {step}/{steps}  eval return "
                  f"{row['evaluation/return-mean']:.1f} "
                  f"(std {row['evaluation/return-std']:.1f}){success}  "
                  f"{row['timesteps_per_second']:.1f} steps/s", flush=True)
            self.last_step, self.last_time = step, now
            if step < steps and not final:
                save_checkpoint(self.model, spec['folder'], {
                    'total_timestep': step, 'epoch': self.epoch,
                    'time_total_s': now - start, 'training_seconds': spent},
                    normalizer)
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
        # A HerReplayBuffer relabels through its environment, which is not
        # pickled with it: SB3's load_replay_buffer gives it the model's
        # (a second set_env raises), so it is set here only if missing.
        model.load_replay_buffer(os.path.join(directory,
                                              resume['replay_buffer']))
        if getattr(model.replay_buffer, 'env', False) is None:
            model.replay_buffer.set_env(model.get_env())
        model.set_random_seed(spec['seed'] + model.num_timesteps)
        model.set_logger(silent_logger)
        callback = Evaluation()
        model.learn(total_timesteps=steps - model.num_timesteps,
                    reset_num_timesteps=False, callback=callback)
    else:
        model = Algorithm(constructor['policy'], training_environment,
                          **kwargs)
        model.set_logger(silent_logger)
        callback = Evaluation()
        model.learn(total_timesteps=steps, callback=callback)
    callback.progress.close()


if __name__ == '__main__':
    train(json.loads(sys.argv[1]))
