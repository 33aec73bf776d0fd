"""Offscreen rendering setup.

MuJoCo (gymnasium and dm_control) picks its OpenGL backend from MUJOCO_GL.
Without a screen, GLFW cannot render; OSMesa (Debian: libosmesa6) renders on
the CPU and EGL on a GPU.

OSMesa and TensorFlow both carry LLVM, and they clash: loading OSMesa before
TensorFlow crashes at TensorFlow's import, and a process that loaded both
aborts at exit. So rendering is configured only by code that renders:
simulate_policy renders in a TensorFlow-free process; sampler actors with
pixel observations import TensorFlow first; command-line programs that may
have loaded both leave with ``exit_without_teardown``.
"""

import ctypes.util
import os
import sys


def default_mujoco_gl():
    if 'MUJOCO_GL' in os.environ:
        return os.environ['MUJOCO_GL']
    if os.environ.get('DISPLAY'):
        return 'glfw'
    return 'osmesa' if ctypes.util.find_library('OSMesa') else 'egl'


def configure_offscreen_rendering():
    """Chooses a MuJoCo rendering backend unless the user set MUJOCO_GL.
    Call before gymnasium or dm_control are imported, and, in a process that
    uses TensorFlow, after TensorFlow is imported (see above)."""
    backend = default_mujoco_gl()
    os.environ['MUJOCO_GL'] = backend
    if backend in ('osmesa', 'egl'):
        os.environ.setdefault('PYOPENGL_PLATFORM', backend)
    return backend


def exit_without_teardown(code=0):
    """Exits skipping C++ static destructors, where OSMesa and TensorFlow
    clash. Everything worth keeping must be flushed and closed before."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
