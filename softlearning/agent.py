"""A trained agent for Python users: observations and actions in the
environment's own terms, numpy only (TensorFlow is never imported).

    import gymnasium, softlearning
    agent = softlearning.load('~/ray_results/gym/Pendulum/v1/<exp>/<trial>')
    env = gymnasium.make('Pendulum-v1')
    observation, _ = env.reset(seed=0)
    action, _ = agent.predict(observation)   # within env.action_space
    observation, reward, terminated, truncated, _ = env.step(action)
    agent.evaluate(env, episodes=10)         # {'return-mean': ..., ...}

Inside softlearning, policies act on dicts of float32 arrays and return
actions in [-1, 1] (``load_trained_policy`` gives that policy); ``Agent``
converts both ways, as the training environment's adapter did.
"""

from collections.abc import Mapping

import numpy as np

from softlearning.environments.adapters.gymnasium_adapter import (
    flat_observation)
from softlearning.environments.partial_observation import PartiallyObserved
from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.trial.policy_loading import load_trained_policy


def load(checkpoint_path, seed=None):
    """The ``Agent`` of a checkpoint folder (or a trial folder: its latest
    checkpoint)."""
    return Agent(load_trained_policy(checkpoint_path, seed=seed))


class Agent:
    """``predict`` follows Stable-Baselines3's contract: it takes an
    observation as the environment gives it (an array, or a dict for dict
    observations; a batch with a leading dimension too) and returns
    ``(action, state)``, the action within the environment's bounds. An
    agent with a memory of the episode (a recurrent policy, or one that
    observes its previous action) returns its memory as ``state``: give it
    back with the next observation, and ``state=None`` (or
    ``episode_start=True``) when an episode starts. Other agents return
    ``state`` None."""

    def __init__(self, trained):
        self.policy = trained.policy
        self.variant = trained.variant
        self.checkpoint_dir = trained.checkpoint_dir
        self.environment = trained.environment  # softlearning's adapter
        if self.variant['environment_params']['training'].get('pixels'):
            raise ExperimentError(
                f"Checkpoint '{self.checkpoint_dir}' is a pixel agent: it "
                "acts on rendered frames, not on the environment's "
                "observations; use load_trained_policy and its "
                ".environment.")
        self._partial = (self.environment
                         if isinstance(self.environment, PartiallyObserved)
                         else None)
        self._adapter = (self.environment._environment if self._partial
                         else self.environment)
        self._recurrent = getattr(self.policy, 'is_recurrent', False)
        self._sees_previous_action = (
            self._partial is not None
            and 'previous_action' in self.policy.observation_keys)

    @property
    def has_memory(self):
        """Whether ``predict`` returns a state to give back next step."""
        return self._recurrent or self._sees_previous_action

    @property
    def action_bounds(self):
        """(low, high) of the environment's actions."""
        return self._adapter.action_bounds

    # Observations in, actions out ------------------------------------------

    def _full_observation(self, observation):
        """One observation of the environment -> the adapter's dict."""
        shapes = self._adapter.observation_shapes
        if not isinstance(observation, Mapping):
            if len(shapes) != 1:
                raise ValueError(
                    f"{self._adapter.universe}/{self._adapter.domain} "
                    f"observes a dict with {sorted(shapes)}; got "
                    f"{type(observation).__name__}.")
            observation = {next(iter(shapes)): observation}
        missing = sorted(set(shapes) - set(observation))
        if missing:
            raise ValueError(f"The observation lacks {missing}; it has "
                             f"{sorted(observation)}.")
        full = {}
        for key, shape in shapes.items():
            value = np.asarray(observation[key], np.float32)
            if value.size != int(np.prod(shape)):
                raise ValueError(
                    f"The observation{'' if len(shapes) == 1 else ' ' + key}"
                    f" has shape {value.shape}; "
                    f"{self._adapter.universe}/{self._adapter.domain}/"
                    f"{self._adapter.task} observes "
                    f"{'' if len(shapes) == 1 else repr(key) + ' of '}shape "
                    f"{tuple(shape)} (a batch: (N, *{tuple(shape)})).")
            full[key] = value.reshape(shape)
        return full

    def _policy_observation(self, observation, previous_action=None):
        full = self._full_observation(observation)
        if self._partial is None:
            return full
        kept = self._partial.kept_part(full)
        if self._sees_previous_action:
            kept['previous_action'] = previous_action
        return kept

    def _is_batch(self, observation):
        shapes = self._adapter.observation_shapes
        if isinstance(observation, Mapping):
            key = next(key for key in shapes if key in observation)
            return np.ndim(observation[key]) > len(shapes[key])
        return np.ndim(observation) > len(next(iter(shapes.values())))

    def _action_in_bounds(self, action):
        # The adapter's own mapping from [-1, 1], as its step() applies it.
        return self._adapter._denormalize_action(
            np.asarray(action, np.float64)).astype(np.float32)

    def predict(self, observation, state=None, episode_start=None,
                deterministic=True):
        """``(action, state)``: the action for ``observation`` (or the
        actions for a batch), within the environment's bounds, and the
        agent's memory to give back with the next observation (None for an
        agent without one). ``state=None`` or a true ``episode_start``
        starts an episode. ``deterministic``: the policy's mode (its mean),
        else a sample."""
        if isinstance(observation, Mapping) and any(
                isinstance(value, Mapping) for value in observation.values()):
            # Nested dicts, named as the adapter names them ('robot.position').
            observation = flat_observation(observation)
        if self._is_batch(observation):
            if self.has_memory:
                raise ValueError(
                    "This agent remembers its episode (recurrent, or it "
                    "observes its previous action): give one observation "
                    "at a time.")
            items = (observation if not isinstance(observation, Mapping)
                     else [{key: value[i] for key, value in
                            observation.items()}
                           for i in range(len(next(iter(
                               observation.values()))))])
            batch = [self._policy_observation(item) for item in items]
            inputs = {key: np.stack([item[key] for item in batch])
                      for key in batch[0]}
            with self.policy.set_deterministic(deterministic):
                actions = self.policy.actions_np(inputs)
            return self._action_in_bounds(actions), None
        if state is None or np.any(episode_start):
            state = {'policy': None, 'previous_action': np.zeros(
                self._adapter.action_shape, np.float32)}
        inputs = self._policy_observation(observation,
                                          state['previous_action'])
        with self.policy.set_deterministic(deterministic):
            if self._recurrent:
                action, policy_state = self.policy.step(inputs,
                                                        state['policy'])
            else:
                action, policy_state = self.policy.actions_np(
                    {key: value[None] for key, value in inputs.items()}
                )[0], None
        if not self.has_memory:
            return self._action_in_bounds(action), None
        return self._action_in_bounds(action), {
            'policy': policy_state,
            'previous_action': np.clip(action, -1, 1).astype(np.float32)}

    def evaluate(self, env, episodes=10, seed=None, deterministic=True):
        """Runs ``episodes`` episodes in ``env`` (a gymnasium environment,
        e.g. ``gymnasium.make('Pendulum-v1')``) and returns
        {'return-mean', 'return-std', 'returns', 'lengths'}; for an
        environment whose steps' info carries ``is_success`` (goal tasks,
        e.g. gymnasium-robotics' FetchReach-v4), also 'success-rate' and
        'successes', each episode's success that of its last step."""
        returns, lengths, successes = [], [], []
        for episode in range(int(episodes)):
            observation, _ = env.reset(
                seed=None if seed is None else seed + episode)
            total, length, done, state = 0.0, 0, False, None
            while not done:
                action, state = self.predict(observation, state,
                                             deterministic=deterministic)
                observation, reward, terminated, truncated, info = env.step(
                    action)
                total, length = total + float(reward), length + 1
                done = terminated or truncated
            returns.append(total)
            lengths.append(length)
            if isinstance(info, Mapping) and 'is_success' in info:
                successes.append(float(info['is_success']))
        result = {'return-mean': float(np.mean(returns)),
                  'return-std': float(np.std(returns)),
                  'returns': returns, 'lengths': lengths}
        if successes:
            result['success-rate'] = float(np.mean(successes))
            result['successes'] = successes
        return result
