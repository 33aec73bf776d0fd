"""What the pixel tests share: an environment whose frames show how many
simulator steps it took."""

import numpy as np
from gymnasium import spaces

from softlearning.environments.adapters.softlearning_env import (
    SoftlearningEnv)


class CountingEnvironment(SoftlearningEnv):
    """A one-number environment whose frames show how many simulator steps
    it took (every pixel = the count, plus 100 per episode), so stacks and
    repeats can be read off the frames. Reward 1 per simulator step; it
    terminates after ``terminate_at`` simulator steps."""

    def __init__(self, terminate_at=None, size=8):
        super().__init__('test', 'counting', 'v0')
        self._observation_space = spaces.Dict(
            {'count': spaces.Box(-np.inf, np.inf, (1,), np.float32)})
        self._set_action_bounds(-np.ones(1), np.ones(1))
        self.terminate_at = terminate_at
        self.size = size
        self.count, self.episode = 0, -1

    def _observation(self):
        return {'count': np.array([self.count], np.float32)}

    def reset(self, seed=None):
        self.count, self.episode = 0, self.episode + 1
        return self._observation()

    truncate_at = None

    def step(self, action):
        self.count += 1
        terminated = self.count == self.terminate_at
        truncated = self.count == self.truncate_at
        return self._observation(), 1.0, terminated, truncated, {}

    def render(self, width=None, height=None, camera_id=None):
        value = (self.count + 100 * self.episode) % 256
        return np.full((height, width, 3), value, np.uint8)

    def get_episode_state(self):
        return {'count': self.count, 'episode': self.episode}

    def set_episode_state(self, state):
        self.count, self.episode = state['count'], state['episode']
