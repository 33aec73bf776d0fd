"""Mass, friction and damping of a MuJoCo model (``mujoco.MjModel``), for
the gymnasium MuJoCo and the dm_control adapters.

See physical_parameters.py for the semantics (multipliers of the
constructor's values). Changes act on the next ``mj_step``; the model is
edited in place, so they hold across episode resets.
"""

import mujoco
import numpy as np

from .physical_parameters import PhysicalParameters


def _names(model, object_type, count):
    return tuple(mujoco.mj_id2name(model, object_type, i) or f'#{i}'
                 for i in range(count))


class MujocoParameters(PhysicalParameters):

    def __init__(self, model, owner):
        super().__init__(owner)
        self.model = model
        # Body 0 is the static world; it has no mass to scale.
        self.names = {
            'mass': _names(model, mujoco.mjtObj.mjOBJ_BODY, model.nbody)[1:],
            'friction': _names(model, mujoco.mjtObj.mjOBJ_GEOM, model.ngeom),
            'damping': _names(model, mujoco.mjtObj.mjOBJ_JOINT, model.njnt),
        }
        self._nominal = {
            'body_mass': model.body_mass.copy(),
            'body_inertia': model.body_inertia.copy(),
            'geom_friction': model.geom_friction.copy(),
            'dof_damping': model.dof_damping.copy(),
        }

    def _joint_dofs(self, joint):
        """Degrees of freedom of a joint (a free joint has 6, a ball 3)."""
        start = self.model.jnt_dofadr[joint]
        ends = [self.model.jnt_dofadr[j] for j in range(joint + 1,
                                                         self.model.njnt)]
        end = ends[0] if ends else self.model.nv
        return list(range(start, end))

    def _apply(self, kind, indices, multiplier):
        model, nominal = self.model, self._nominal
        if kind == 'mass':
            bodies = np.asarray(indices, dtype=int) + 1  # skip the world
            model.body_mass[bodies] = nominal['body_mass'][bodies] * multiplier
            model.body_inertia[bodies] = (
                nominal['body_inertia'][bodies] * multiplier)
        elif kind == 'friction':  # sliding friction (column 0)
            model.geom_friction[indices, 0] = (
                nominal['geom_friction'][indices, 0] * multiplier)
        elif kind == 'damping':
            dofs = [dof for joint in indices for dof in self._joint_dofs(joint)]
            model.dof_damping[dofs] = nominal['dof_damping'][dofs] * multiplier
