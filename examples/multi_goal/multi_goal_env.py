"""The 2-D multi-goal environment of Haarnoja et al. 2017 (section 5.1).

A point mass on the plane [-7, 7]^2 starts near the origin (N(0, 0.1^2 I))
and moves by its action, a velocity in [-1, 1]^2:

    position' = clip(position + action, -7, 7)
    reward    = -(actuation_cost_coeff * |action|^2
                  + distance_cost_coeff * min_g |position' - g|^2)
                + goal_reward   if min_g |position' - g| < 1 (the episode ends)

with four goals at (+-5, 0) and (0, +-5). All four are equally good, so the
optimal maximum-entropy policy at the origin is multimodal: it heads for
each goal with about equal probability.

Registered as gymnasium's ``MultiGoal-v0`` (30-step episodes) when this
module is imported; softlearning builds it as
``--universe gym --domain examples.multi_goal.multi_goal_env:MultiGoal
--task v0``.
"""

import gymnasium as gym
import numpy as np
from gymnasium import spaces

GOALS = np.array([[5.0, 0.0], [-5.0, 0.0], [0.0, 5.0], [0.0, -5.0]],
                 np.float32)
LIMIT = 7.0


class MultiGoalEnv(gym.Env):

    metadata = {'render_modes': ['rgb_array'], 'render_fps': 10}

    def __init__(self, goal_reward=10.0, actuation_cost_coeff=30.0,
                 distance_cost_coeff=1.0, init_sigma=0.1, goal_threshold=1.0,
                 render_mode=None, width=200, height=200):
        self.goal_reward = float(goal_reward)
        self.actuation_cost_coeff = float(actuation_cost_coeff)
        self.distance_cost_coeff = float(distance_cost_coeff)
        self.init_sigma = float(init_sigma)
        self.goal_threshold = float(goal_threshold)
        self.goal_positions = GOALS.copy()
        self.observation_space = spaces.Box(-LIMIT, LIMIT, (2,), np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.render_mode = render_mode
        self.width, self.height = int(width), int(height)
        # The position; named ``state`` so that softlearning's adapter saves
        # and restores it (exact resume, filming).
        self.state = np.zeros(2, np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.state = np.clip(
            self.init_sigma * self.np_random.normal(size=2), -LIMIT,
            LIMIT).astype(np.float32)
        return self.state.copy(), {}

    def goal_distances(self, position):
        return np.linalg.norm(self.goal_positions - position, axis=-1)

    def step(self, action):
        action = np.clip(np.asarray(action, np.float32), -1.0, 1.0)
        self.state = np.clip(self.state + action, -LIMIT, LIMIT).astype(
            np.float32)
        distances = self.goal_distances(self.state)
        reward = -(self.actuation_cost_coeff * np.sum(action ** 2)
                   + self.distance_cost_coeff * np.min(distances) ** 2)
        terminated = bool(np.min(distances) < self.goal_threshold)
        if terminated:
            reward += self.goal_reward
        return (self.state.copy(), float(reward), terminated, False,
                {'goal': int(np.argmin(distances))})

    def render(self):
        """A top view: goals in green, the point in red (numpy only)."""
        image = np.full((self.height, self.width, 3), 255, np.uint8)

        def pixel(position):
            column = (position[0] + LIMIT) / (2 * LIMIT) * (self.width - 1)
            row = (LIMIT - position[1]) / (2 * LIMIT) * (self.height - 1)
            return int(round(row)), int(round(column))

        def disc(position, radius, color):
            row, column = pixel(position)
            rows, columns = np.ogrid[:self.height, :self.width]
            mask = (rows - row) ** 2 + (columns - column) ** 2 <= radius ** 2
            image[mask] = color

        scale = min(self.width, self.height) / (2 * LIMIT)
        for goal in self.goal_positions:
            disc(goal, max(1, self.goal_threshold * scale), (60, 180, 75))
        disc(self.state, max(1, 0.3 * scale), (220, 40, 40))
        return image


gym.register(id='MultiGoal-v0', entry_point=MultiGoalEnv,
             max_episode_steps=30)
