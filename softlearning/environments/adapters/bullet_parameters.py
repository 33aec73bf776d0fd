"""Mass, friction and damping of a Bullet robot (pybullet-envs-gymnasium),
through pybullet's dynamics API (``changeDynamics``/``getDynamicsInfo``).

See physical_parameters.py for the semantics (multipliers of the
constructor's values). Element names are the robot's part names
(``robot.parts``; each a link of a loaded body, -1 for a base) for mass and
friction, and its joint names (``robot.jdict``) for joint damping.
"""

from .physical_parameters import PhysicalParameters


class BulletParameters(PhysicalParameters):

    def __init__(self, robot, owner):
        super().__init__(owner)
        self._client = robot._p
        self._links = [(part.bodies[part.bodyIndex], part.bodyPartIndex)
                       for part in robot.parts.values()]
        self._joints = [(joint.bodies[joint.bodyIndex], joint.jointIndex)
                        for joint in robot.jdict.values()]
        self.names = {'mass': tuple(robot.parts),
                      'friction': tuple(robot.parts),
                      'damping': tuple(robot.jdict)}
        client = self._client
        infos = [client.getDynamicsInfo(body, link)
                 for body, link in self._links]
        self._nominal = {
            'mass': [info[0] for info in infos],
            'friction': [info[1] for info in infos],
            # getJointInfo's 7th field is the joint damping.
            'damping': [client.getJointInfo(body, joint)[6]
                        for body, joint in self._joints],
        }

    def _apply(self, kind, indices, multiplier):
        client = self._client
        for i in indices:
            value = self._nominal[kind][i] * multiplier
            if kind == 'damping':
                body, joint = self._joints[i]
                client.changeDynamics(body, joint, jointDamping=value)
            elif kind == 'mass':
                client.changeDynamics(*self._links[i], mass=value)
            else:
                client.changeDynamics(*self._links[i], lateralFriction=value)

    def read(self, kind, name):
        """The value in the simulator now (for tests and diagnostics)."""
        i = self.names[kind].index(name)
        if kind == 'damping':
            return self._client.getJointInfo(*self._joints[i])[6]
        return self._client.getDynamicsInfo(*self._links[i])[
            0 if kind == 'mass' else 1]
