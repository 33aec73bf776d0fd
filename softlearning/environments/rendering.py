"""Which processes may render, and with which OpenGL backend.

MuJoCo (gymnasium and dm_control) picks its OpenGL backend from MUJOCO_GL
when it is first imported. Without a screen, GLFW cannot render; OSMesa
(Debian: libosmesa6) renders on the CPU and EGL on a GPU.

OSMesa and TensorFlow both carry LLVM, and they clash: loading OSMesa before
TensorFlow crashes at TensorFlow's import, rendering with OSMesa after
TensorFlow is imported can crash, and a process that loaded both aborts at
exit. So processes come in two kinds:

- *learners* import TensorFlow and never render. ``keep_opengl_out_of_learner``
  sets MUJOCO_GL=disable there, whatever the user exported, so neither
  MuJoCo nor dm_control loads any OpenGL library. The user's own choice is
  kept in SOFTLEARNING_MUJOCO_GL for the rendering processes started from
  the learner (Ray workers inherit the environment of the process that
  started Ray);
- *renderers* never import TensorFlow: sampler actors (which act with numpy
  policies, softlearning/policies/numpy_policies.py) when their environment
  renders observations, and ``softlearning simulate``, which also acts with
  the numpy policy. They call ``configure_offscreen_rendering`` before
  building an environment.
"""

import ctypes.util
import os
import tempfile

# The user's MUJOCO_GL, kept for rendering processes while learners run with
# MUJOCO_GL=disable.
USER_MUJOCO_GL = 'SOFTLEARNING_MUJOCO_GL'
DISABLED = ('disable', 'disabled', 'off', 'false', '0')


def user_mujoco_gl():
    """The backend the user asked for (MUJOCO_GL, or what a learner kept of
    it), or None."""
    for variable in (USER_MUJOCO_GL, 'MUJOCO_GL'):
        value = os.environ.get(variable, '').strip().lower()
        if value and value not in DISABLED:
            return value
    return None


def default_mujoco_gl():
    """The user's backend, else GLFW with a display, else OSMesa if it is
    installed, else EGL."""
    backend = user_mujoco_gl()
    if backend:
        return backend
    if os.environ.get('DISPLAY'):
        return 'glfw'
    return 'osmesa' if ctypes.util.find_library('OSMesa') else 'egl'


def keep_opengl_out_of_learner():
    """Makes this process (and the processes it starts) load no OpenGL
    library for MuJoCo or dm_control. Call in every process that imports
    TensorFlow, before MuJoCo is imported."""
    user_backend = user_mujoco_gl()
    if user_backend:
        os.environ[USER_MUJOCO_GL] = user_backend
    os.environ['MUJOCO_GL'] = 'disable'


def renders_observations(environment_params):
    """Whether an environment built from these params renders frames (as
    observations, or through a frame-producing render mode)."""
    kwargs = environment_params.get('kwargs') or {}
    return bool(environment_params.get('pixels')
                or kwargs.get('render_observations')
                or kwargs.get('render_mode') in ('rgb_array', 'depth_array'))


def configure_offscreen_rendering():
    """Chooses the MuJoCo rendering backend (the user's, or a default). Call
    before gymnasium or dm_control are imported, in a process that does not
    import TensorFlow (see above). Returns the backend."""
    backend = default_mujoco_gl()
    os.environ['MUJOCO_GL'] = backend
    _private_runtime_dir()
    # gymnasium's classic control renders with pygame, which greets on import.
    os.environ.setdefault('PYGAME_HIDE_SUPPORT_PROMPT', '1')
    if backend in ('osmesa', 'egl'):
        os.environ['PYOPENGL_PLATFORM'] = backend
    return backend


def _private_runtime_dir():
    """Without a desktop session there is no XDG_RUNTIME_DIR, and the
    windowing libraries a renderer loads print "error: XDG_RUNTIME_DIR is
    invalid" on every start; they get a private one instead."""
    runtime = os.environ.get('XDG_RUNTIME_DIR')
    if runtime and os.path.isdir(runtime):
        return
    path = os.path.join(tempfile.gettempdir(),
                        f'softlearning-runtime-{os.getuid()}')
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.environ['XDG_RUNTIME_DIR'] = path
