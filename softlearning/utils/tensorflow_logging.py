"""Importing TensorFlow without its CUDA start-up noise on CPU machines.

The TensorFlow wheel looks for CUDA when it is imported and when its devices
are first listed, and on a machine without a GPU driver it writes lines like
``Could not find cuda drivers on your machine, GPU will not be used`` and
``failed call to cuInit: ... UNKNOWN ERROR (303)`` to the process's stderr,
from C++, before any log level applies. Every trial (and the driver) would
print them. When no GPU is asked for, ``import_tensorflow`` captures stderr
while TensorFlow starts and writes back every line except those (so real
errors still show).
"""

import contextlib
import os
import sys
import tempfile

# Lines TensorFlow writes when CUDA is absent; nothing else is dropped.
CUDA_NOISE = (
    'Could not find cuda drivers on your machine',
    'failed call to cuInit',
    'All log messages before absl::InitializeLog() is called',
    'Unable to register cuDNN factory',
    'Unable to register cuFFT factory',
    'Unable to register cuBLAS factory',
    'TF-TRT Warning: Could not find TensorRT',
    'computation_placer.cc',
)


def is_cuda_noise(line):
    return any(pattern in line for pattern in CUDA_NOISE)


@contextlib.contextmanager
def without_cuda_noise():
    """Captures what is written to file descriptor 2 (C++ and Python) in the
    block; afterwards writes it back without the CUDA start-up lines."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode='w+b') as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().decode(
                errors='replace').splitlines(keepends=True)
                if not is_cuda_noise(line)]
            if kept:
                sys.stderr.write(''.join(kept))
                sys.stderr.flush()


def gpus_assigned():
    """GPUs Ray gave this process (a trial asking for none gets none);
    outside a Ray worker, whether CUDA_VISIBLE_DEVICES names a device."""
    try:
        import ray
        if ray.is_initialized():
            return bool(ray.get_gpu_ids())
    except Exception:  # not in a Ray worker, or Ray without a context
        pass
    visible = os.environ.get('CUDA_VISIBLE_DEVICES', '').strip()
    return visible not in ('', '-1')


def import_tensorflow(quiet=None):
    """``import tensorflow`` (and its device discovery), quiet about CUDA
    unless a GPU is in use (``quiet=None``: decided by ``gpus_assigned``).
    Returns the module; a no-op after the first import."""
    if 'tensorflow' in sys.modules:
        return sys.modules['tensorflow']
    if quiet is None:
        quiet = not gpus_assigned()
    context = without_cuda_noise() if quiet else contextlib.nullcontext()
    with context:
        import tensorflow as tf
        tf.config.list_physical_devices('GPU')
    return tf
