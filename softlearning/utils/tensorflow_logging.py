"""Importing TensorFlow without its C++ start-up chatter.

When TensorFlow is imported, its shared libraries write to the process's
stderr from C++, through absl, before any log level applies
(``TF_CPP_MIN_LOG_LEVEL`` is read later): which lines depends on the CPU and
the machine, e.g. ``I0000 ... port.cc:153] oneDNN custom operations are on``
on CPUs with AVX-512 BF16, ``I0000 ... cudart_stub.cc:31] Could not find cuda
drivers on your machine`` and, when the devices are first listed,
``E0000 ... cuda_platform.cc:52] failed call to cuInit`` on machines without
a GPU driver. Every trial (and every command) would print them.

So ``import_tensorflow`` captures file descriptor 2 while TensorFlow starts
and writes back what it captured, filtered by rule rather than by a list of
messages (``is_startup_noise``):

- INFO records (``I0000 00:00:...`` or TensorFlow's older
  ``2024-01-01 00:00:00.000000: I ...``) are dropped;
- absl's own note that it logs to stderr before initialization is dropped;
- records from CUDA's components (a source file named ``cuda*``/``cu*_stub``)
  are dropped when no GPU is in use: a machine without CUDA is expected then;
- everything else (WARNING, ERROR and FATAL records of other components,
  Python warnings and errors) is kept, in order.

After the import, ``TF_CPP_MIN_LOG_LEVEL=1`` (unless the user set it) keeps
later INFO records away too. oneDNN stays on: only its notice is dropped.
"""

import contextlib
import os
import re
import sys
import tempfile

from softlearning.utils import file_descriptors

# absl's record prefix: severity letter, MMDD, time, thread id, file:line].
_ABSL_RECORD = re.compile(
    r'^(?P<severity>[IWEF])\d{4} [\d:.]+\s+\d+ (?P<file>[^\s:\]]+):\d+\] ')
# TensorFlow's older format: date time: severity file:line] message.
_TF_RECORD = re.compile(
    r'^\d{4}-\d\d-\d\d [\d:.]+: (?P<severity>[IWEF]) (?P<file>[^\s:\]]+)'
    r':\d+\] ')
_ABSL_PRE_INIT_NOTE = 'All log messages before absl::InitializeLog() is called'
# CUDA's runtime, its stubs and platform: 'cuda_platform.cc', 'cudart_stub.cc',
# 'cuda_dnn.cc', 'cublas_stub.cc', ...
_CUDA_SOURCE = re.compile(r'^(cuda|cu\w*_stub)')


def is_startup_noise(line, gpu_in_use=False):
    """Whether a line TensorFlow's C++ wrote while starting is noise (see the
    module docstring for the rule)."""
    if _ABSL_PRE_INIT_NOTE in line:
        return True
    record = _ABSL_RECORD.match(line) or _TF_RECORD.match(line)
    if record is None:
        return False  # Python output, or a message's continuation line
    if record['severity'] == 'I':
        return True
    source = os.path.basename(record['file'])
    return not gpu_in_use and bool(_CUDA_SOURCE.match(source))


@contextlib.contextmanager
def without_startup_noise(gpu_in_use=False):
    """Captures what is written to file descriptor 2 (C++ and Python) in the
    block; afterwards writes it back without TensorFlow's start-up noise."""
    with tempfile.TemporaryFile(mode='w+b') as captured:
        try:
            with file_descriptors.redirected((2,), captured):
                yield
        finally:
            captured.seek(0)
            kept = [line for line in captured.read().decode(
                errors='replace').splitlines(keepends=True)
                if not is_startup_noise(line, gpu_in_use)]
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


def import_tensorflow(gpu_in_use=None):
    """``import tensorflow`` (and its device discovery) without its start-up
    noise; ``gpu_in_use=None``: decided by ``gpus_assigned`` (with a GPU,
    CUDA's lines are kept: they explain a GPU that does not work). Returns
    the module; a no-op after the first import."""
    if 'tensorflow' in sys.modules:
        return sys.modules['tensorflow']
    if gpu_in_use is None:
        gpu_in_use = gpus_assigned()
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')
    with without_startup_noise(gpu_in_use):
        import tensorflow as tf
        tf.config.list_physical_devices('GPU')
    return tf
