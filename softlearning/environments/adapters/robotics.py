"""gymnasium-robotics' Fetch tasks under ``--universe gym``.

``pip install softlearning[robotics]`` installs gymnasium-robotics; when it is
installed, the gym universe also offers its Fetch tasks (FetchReach, FetchPush,
FetchPickAndPlace, FetchSlide and their Dense variants, version v4, on the
``mujoco`` bindings). Their observations are Dicts (``observation``,
``achieved_goal``, ``desired_goal``), their environments have
``compute_reward``: what a hindsight replay pool relabels with
(replay_pools/hindsight_replay_pool.py). The package's other families
(Adroit, Kitchen, mazes, its copies of the old MuJoCo tasks) are left out:
they are untested here.

This module imports neither softlearning nor TensorFlow: ``benchmarks/``'
peer processes load it by path so that both libraries run the same tasks.
"""

import contextlib
import functools
import io
import warnings

import numpy as np

ROBOTICS_PACKAGE = 'gymnasium_robotics'
FETCH_ENTRY_POINT = 'gymnasium_robotics.envs.fetch.'


def is_fetch_spec(spec):
    """A Fetch task on the ``mujoco`` bindings (v1 needs mujoco-py)."""
    entry_point = str(spec.entry_point)
    return (entry_point.startswith(FETCH_ENTRY_POINT)
            and 'MujocoPy' not in entry_point)


def is_robotics_spec(spec):
    return str(spec.entry_point).startswith(ROBOTICS_PACKAGE + '.')


@functools.cache
def register_robotics_environments():
    """Imports gymnasium-robotics (which registers its tasks with gymnasium)
    if it is installed, once per process; True if it is."""
    try:
        # Its import prints a notice about the Adroit tasks' rewards; no
        # task offered here is concerned.
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter('ignore')
            import gymnasium_robotics  # noqa: F401
    except ImportError:
        return False
    patch_joint_type_comparison()
    return True


# MuJoCo's joint-type enums ------------------------------------------------
#
# gymnasium-robotics 1.4.2 asserts ``model.jnt_type[i] in (mjJNT_HINGE,
# mjJNT_SLIDE)``. With mujoco >= 3.4 the enums are objects whose equality
# with a numpy integer holds only one way round, so the ``in`` test is False
# for every hinge and slide joint and every Fetch task fails at
# construction. The four accessors below are the package's own, comparing
# integers; they replace its ones only while its test is broken.

_QPOS_WIDTHS = {0: 7, 1: 4}  # free joint, ball joint; hinge/slide: 1
_QVEL_WIDTHS = {0: 6, 1: 3}
# The package reads a ball joint's velocity as 4 numbers; kept, so that the
# tasks behave as they do upstream.
_QVEL_READ_WIDTHS = {0: 6, 1: 4}


def _joint(model, name, address_field):
    import mujoco
    joint_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    if joint_id == -1:
        raise ValueError(f"Joint with name '{name}' is not part of the "
                         "model!")
    return (int(model.jnt_type[joint_id]),
            int(getattr(model, address_field)[joint_id]))


def _window(model, name, address_field, widths):
    joint_type, address = _joint(model, name, address_field)
    return slice(address, address + widths.get(joint_type, 1))


def _set(array, window, value, name):
    value = np.array(value)
    width = window.stop - window.start
    if width > 1 and value.shape != (width,):
        raise ValueError(f"Value has incorrect shape {name}: {value}")
    array[window] = value


def set_joint_qpos(model, data, name, value):
    _set(data.qpos, _window(model, name, 'jnt_qposadr', _QPOS_WIDTHS),
         value, name)


def set_joint_qvel(model, data, name, value):
    _set(data.qvel, _window(model, name, 'jnt_dofadr', _QVEL_WIDTHS),
         value, name)


def get_joint_qpos(model, data, name):
    return data.qpos[_window(model, name, 'jnt_qposadr',
                             _QPOS_WIDTHS)].copy()


def get_joint_qvel(model, data, name):
    return data.qvel[_window(model, name, 'jnt_dofadr',
                             _QVEL_READ_WIDTHS)].copy()


def joint_type_comparison_broken():
    """Whether this mujoco's enums fail gymnasium-robotics' ``in`` test."""
    import mujoco
    joint_types = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    return np.int32(int(mujoco.mjtJoint.mjJNT_SLIDE)) not in joint_types


def patch_joint_type_comparison():
    if not joint_type_comparison_broken():
        return False
    from gymnasium_robotics.utils import mujoco_utils
    for function in (set_joint_qpos, set_joint_qvel, get_joint_qpos,
                     get_joint_qvel):
        setattr(mujoco_utils, function.__name__, function)
    return True
