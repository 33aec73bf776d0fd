"""A gymnasium environment of your own, with a physical parameter that the
curriculum can change.

Two things make it work with softlearning:
1. it is registered with gymnasium when this module is imported, and the
   command line names the module before the domain:
   ``--domain examples.custom_environment.gravity_pendulum:GravityPendulum``;
2. it lists ``supported_physical_parameters`` and implements
   ``set_physical_parameters(dict)`` (and ``get_physical_parameters()``),
   which the curriculum calls with the scheduled values. (Before this
   release they were named ``supported_state_keys``, ``set_state`` and
   ``get_state``; those names still work, with a DeprecationWarning.)
"""

import gymnasium as gym
from gymnasium.envs.classic_control.pendulum import PendulumEnv


class GravityPendulumEnv(PendulumEnv):
    """Pendulum whose gravity is a settable parameter."""

    supported_physical_parameters = ('gravity',)

    def set_physical_parameters(self, values):
        # Takes effect from the next step on; the curriculum calls this
        # between iterations.
        self.g = float(values['gravity'])

    def get_physical_parameters(self):
        return {'gravity': self.g}


gym.register(id='GravityPendulum-v0', entry_point=GravityPendulumEnv,
             max_episode_steps=200)
