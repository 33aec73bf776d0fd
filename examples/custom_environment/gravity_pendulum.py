"""A gymnasium environment of your own, with a physical parameter that the
curriculum can change.

Two things make it work with softlearning:
1. it is registered with gymnasium when this module is imported, and the
   command line names the module before the domain:
   ``--domain examples.custom_environment.gravity_pendulum:GravityPendulum``;
2. it lists ``supported_state_keys`` and implements ``set_state(dict)`` (and
   ``get_state()``), which the curriculum calls with the scheduled values.
"""

import gymnasium as gym
from gymnasium.envs.classic_control.pendulum import PendulumEnv


class GravityPendulumEnv(PendulumEnv):
    """Pendulum whose gravity is a settable parameter."""

    supported_state_keys = ('gravity',)

    def set_state(self, state):
        # Takes effect from the next step on; the curriculum calls this
        # between iterations.
        self.g = float(state['gravity'])

    def get_state(self):
        return {'gravity': self.g}


gym.register(id='GravityPendulum-v0', entry_point=GravityPendulumEnv,
             max_episode_steps=200)
