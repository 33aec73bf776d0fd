"""Offscreen rendering setup.

MuJoCo (gymnasium and dm_control) picks its OpenGL backend from MUJOCO_GL.
Without a screen, GLFW cannot render; OSMesa (Debian: libosmesa6) renders on
the CPU and EGL on a GPU.

OSMesa and TensorFlow both carry LLVM, and they clash: rendering with OSMesa
after TensorFlow is imported can crash, loading OSMesa before TensorFlow
crashes at TensorFlow's import, and a process that loaded both aborts at
exit. So frames are rendered only in processes that never import
TensorFlow:

- sampler actors (softlearning/samplers/remote_sampler.py) act with numpy
  policies (softlearning/policies/numpy_policies.py) and never import
  TensorFlow; when their environment renders observations
  (``renders_observations``) they call ``configure_offscreen_rendering``
  before building it, so pixel observations are collected by actors;
- simulate_policy renders its videos in a TensorFlow-free subprocess;
- command-line programs that may have loaded both anyway leave with
  ``exit_without_teardown``.

The learner's process imports TensorFlow, so it must not render with
OSMesa: collect pixel observations with a ``RemoteSampler``, not in-process.
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


def renders_observations(environment_params):
    """Whether an environment built from these params renders frames (as
    observations, or through a frame-producing render mode)."""
    kwargs = environment_params.get('kwargs') or {}
    return bool(kwargs.get('render_observations')
                or kwargs.get('render_mode') in ('rgb_array', 'depth_array'))


def configure_offscreen_rendering():
    """Chooses a MuJoCo rendering backend unless the user set MUJOCO_GL.
    Call before gymnasium or dm_control are imported, in a process that does
    not import TensorFlow (see above)."""
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
