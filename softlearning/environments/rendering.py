"""Offscreen rendering defaults.

MuJoCo (gymnasium and dm_control) picks its OpenGL backend from MUJOCO_GL.
Without a screen, GLFW fails; OSMesa (Debian: libosmesa6) renders on the CPU
and EGL on a GPU. We choose one only when the user has not.
"""

import ctypes.util
import os


def default_mujoco_gl():
    if 'MUJOCO_GL' in os.environ:
        return os.environ['MUJOCO_GL']
    if os.environ.get('DISPLAY'):
        return 'glfw'
    return 'osmesa' if ctypes.util.find_library('OSMesa') else 'egl'


def configure_offscreen_rendering():
    backend = default_mujoco_gl()
    os.environ['MUJOCO_GL'] = backend
    if backend in ('osmesa', 'egl'):
        os.environ.setdefault('PYOPENGL_PLATFORM', backend)
