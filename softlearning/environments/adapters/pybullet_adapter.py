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

    def render(self, width=None, height=None, camera_id=None):
        frame = super().render(width, height, camera_id)
        return frame[..., :3]
