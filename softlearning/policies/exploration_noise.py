"""The exploration noise of deterministic policies while collecting (TD3,
DDPG, FastTD3): ``exploration_noise`` in the policy's config.

- a number sigma (TD3's 0.1): a = clip(mu(s) + sigma * eps, -1, 1),
  eps ~ N(0, I), at every step;
- ``{'std_min': low, 'std_max': high}``: FastTD3's schedule (Seo et al.
  2025): every episode draws its own sigma ~ U(low, high) when it starts
  and keeps it to its end. The authors run 128 to 4,096 environments at
  once, each with its own sigma, so at any time some explore widely and
  others act nearly greedily; a sampler with one environment goes through
  such sigmas one episode after another.

``random_action_probability`` p (default 0): each collecting step acts
uniformly at random in [-1, 1] with probability p instead, the exploration
of the HER papers' DDPG (p = 0.3 beside sigma = 0.2 on the Fetch tasks),
where a policy must stumble on the block before any goal moves. With p = 0
nothing is drawn for it, so runs without it keep their random streams.

The episode's sigma is the policy's per-episode state (``BasePolicy.step``:
None when an episode starts), which every sampler keeps with its running
episode and its checkpoints (samplers/episode_stepper.py), in the learner's
process and in sampler actors alike, one per environment where a sampler
steps several (``step_batch``). Acting deterministically (evaluation,
``simulate``, export) adds no noise and draws none. ``actions_np`` on a
batch, which has no states, takes each row as an episode's first step.

This module must not import TensorFlow: sampler actors act with it.
"""

import numpy as np

STD_KEYS = ('std_min', 'std_max')


class ExplorationNoise:
    """One ``exploration_noise`` setting, checked: sigma lies in
    [``std_min``, ``std_max``] (equal for a fixed sigma); ``per_episode``
    for a schedule."""

    def __init__(self, setting):
        self.per_episode = isinstance(setting, dict)
        if self.per_episode and set(setting) != set(STD_KEYS):
            raise ValueError(
                f"exploration_noise takes a standard deviation or "
                f"{{'std_min': low, 'std_max': high}}; got {setting!r}")
        low, high = ((float(setting[key]) for key in STD_KEYS)
                     if self.per_episode else (float(setting),) * 2)
        if not 0.0 <= low <= high:
            raise ValueError(f"exploration_noise needs 0 <= std_min <= "
                             f"std_max; got {setting!r}")
        self.std_min, self.std_max = low, high
        # As the config gives it (what a clone is built from).
        self.setting = ({'std_min': low, 'std_max': high}
                        if self.per_episode else low)

    def episode_std(self, np_random, size=None):
        """sigma for an episode starting now (for ``size`` of them): a
        fixed sigma draws nothing, so TD3's runs keep their random
        streams."""
        if not self.per_episode:
            return self.std_min
        return np_random.uniform(self.std_min, self.std_max, size)


def noisy_deterministic_actions(actions, std, np_random,
                                deterministic=False,
                                random_action_probability=0.0):
    """clip(mu(s) + N(0, std^2), -1, 1), ``std`` a number or one per row
    (B, 1), each row replaced by a uniform action with probability
    ``random_action_probability``; mu(s) itself when deterministic
    (evaluation) or when both are 0."""
    if deterministic:
        return actions
    if np.any(std):
        noise = np.asarray(std, np.float32) * np_random.standard_normal(
            actions.shape, dtype=np.float32)
        actions = np.clip(actions + noise, -1.0, 1.0)
    if random_action_probability > 0:
        rows = np_random.random(len(actions)) < random_action_probability
        actions = np.where(rows[:, None], np_random.uniform(
            -1.0, 1.0, actions.shape).astype(actions.dtype), actions)
    return actions


class NoisyDeterministicActing:
    """Acting with exploration noise, mixed into the numpy and the
    TensorFlow deterministic policies (before their base), whose networks
    give mu(s) = tanh(f(s))."""

    def _set_exploration_noise(self, exploration_noise,
                               random_action_probability=0.0):
        if not 0.0 <= float(random_action_probability) <= 1.0:
            raise ValueError(f"random_action_probability must be in [0, 1]; "
                             f"got {random_action_probability!r}")
        self.random_action_probability = float(random_action_probability)
        self._exploration_noise = ExplorationNoise(exploration_noise)
        if self._exploration_noise.per_episode and self.is_recurrent:
            raise ValueError(
                "A per-episode exploration noise (std_min, std_max) is for "
                "feedforward policies: a recurrent policy's episode state "
                "is its LSTM's; give exploration_noise a number.")
        self.exploration_noise = self._exploration_noise.setting

    def _actions_from_outputs(self, outputs, std=None):
        """``std``: the episode's sigma; None: the fixed one, or a draw per
        row (each an episode's first step)."""
        if std is None and not self._deterministic:
            std = self._exploration_noise.episode_std(
                self._np_random, (len(outputs), 1))
        return noisy_deterministic_actions(
            outputs, std, self._np_random, self._deterministic,
            self.random_action_probability)

    def step(self, observation, state=None):
        """With a per-episode sigma, the state is the episode's sigma:
        drawn at its first step (``state`` None), then passed back."""
        if not self._exploration_noise.per_episode:
            return super().step(observation, state)
        if state is None and not self._deterministic:
            state = float(self._exploration_noise.episode_std(
                self._np_random))
        inputs = self._numpy_inputs(
            {key: np.asarray(value)[None]
             for key, value in observation.items()})
        action = self._actions_from_outputs(self._acting_network(inputs),
                                            state)
        return action[0], state

    def step_batch(self, observations, states):
        """``step`` for K running episodes (samplers stepping K
        environments): a sigma drawn for each row whose episode starts
        (None), in row order, each row acting with its own episode's."""
        if not self._exploration_noise.per_episode:
            return super().step_batch(observations, states)
        if not self._deterministic:
            states = [float(self._exploration_noise.episode_std(
                self._np_random)) if state is None else state
                for state in states]
        inputs = self._numpy_inputs({key: np.asarray(value)
                                     for key, value in observations.items()})
        std = (None if self._deterministic
               else np.asarray(states, np.float32)[:, None])
        return (self._actions_from_outputs(self._acting_network(inputs), std),
                list(states))
