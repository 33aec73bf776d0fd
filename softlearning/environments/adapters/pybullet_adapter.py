"""Adapter for the Bullet locomotion environments (pybullet-envs-gymnasium)."""

from .gymnasium_adapter import GymnasiumAdapter, _is_pybullet


class PybulletAdapter(GymnasiumAdapter):
    """``HalfCheetahBulletEnv``/``v0`` and friends, through gymnasium."""

    universe_name = 'pybullet'

    @staticmethod
    def _register_environments():
        # Importing the package registers its ids with gymnasium.
        import pybullet_envs_gymnasium  # noqa: F401

    _is_own_spec = staticmethod(_is_pybullet)

    @property
    def physical_parameters(self):
        # The robot is loaded into Bullet on the first reset; before that it
        # has no bodies to read or change.
        if getattr(self, '_parameters', None) is None:
            robot = getattr(self.unwrapped, 'robot', None)
            if robot is None:
                return None
            if robot.parts is None:
                self._env.reset()
            from .bullet_parameters import BulletParameters
            self._parameters = BulletParameters(robot, self._describe())
        return self._parameters

    def reset(self, seed=None):
        observation = super().reset(seed=seed)
        # A reset after a new connection reloads the robot with nominal
        # dynamics; re-apply what was set.
        parameters = getattr(self, '_parameters', None)
        if parameters is not None and parameters.get():
            parameters.apply_all()
        return observation

    def render(self, width=None, height=None, camera_id=None):
        frame = super().render(width, height, camera_id)
        return frame[..., :3]
