"""What a run's cost was measured on: the CPU's model and widest vector
instructions, recorded beside every epoch's timings (a suite may resume on
another machine, and a run's steps per second depend on both); the CPU's
feature flags and whether an NVIDIA GPU is visible, read without
TensorFlow (the checks before a run starts: algorithms/precision.py)."""

import functools
import os
import platform

# The vector extensions that decide how fast dense layers run here, widest
# first (oneDNN and XLA pick their kernels by them).
VECTOR_EXTENSIONS = (('avx512f', 'AVX-512'), ('avx2', 'AVX2'),
                     ('avx', 'AVX'), ('asimd', 'NEON'))


# Where the NVIDIA driver lists the GPUs it sees, one folder each.
NVIDIA_GPUS = '/proc/driver/nvidia/gpus'


def _first(cpuinfo, keys):
    """The first value of any of ``keys`` in the text of /proc/cpuinfo
    (every CPU repeats them), or ''."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(':')
        if key.strip() in keys and value.strip():
            return value.strip()
    return ''


def cpu_flags(cpuinfo):
    """The CPU's feature flags (x86's 'flags', ARM's 'Features'), a set,
    from the text of /proc/cpuinfo."""
    return set(_first(cpuinfo, ('flags', 'Features')).split())


def _model_and_extension(cpuinfo):
    """(model name, widest VECTOR_EXTENSIONS name or None) from the text
    of /proc/cpuinfo."""
    model, flags = _first(cpuinfo, ('model name',)), cpu_flags(cpuinfo)
    extension = next((name for flag, name in VECTOR_EXTENSIONS
                      if flag in flags), None)
    return model, extension


def describe_cpu(cpuinfo, cpus, fallback='unknown'):
    """'MODEL (EXTENSION, N CPUs)' from the text of /proc/cpuinfo."""
    model, extension = _model_and_extension(cpuinfo)
    details = ', '.join(part for part in (extension, f"{cpus} CPU{'' if cpus == 1 else 's'}") if part)
    return f'{model or fallback} ({details})'


@functools.lru_cache(maxsize=None)
def read_cpuinfo():
    """The text of /proc/cpuinfo ('' where there is none: not Linux)."""
    try:
        with open('/proc/cpuinfo') as f:
            return f.read()
    except OSError:  # not Linux
        return ''


def nvidia_gpu_visible(gpus_dir=NVIDIA_GPUS, environ=None):
    """Whether CUDA would see an NVIDIA GPU here, without importing
    TensorFlow: the driver lists one (``gpus_dir``), and
    CUDA_VISIBLE_DEVICES (in ``environ``, default this process's), if set,
    does not hide them all ('' or a negative index first)."""
    environ = os.environ if environ is None else environ
    try:
        listed = bool(os.listdir(gpus_dir))
    except OSError:  # no driver
        return False
    visible = environ.get('CUDA_VISIBLE_DEVICES')
    if visible is None:
        return listed
    first = visible.split(',')[0].strip()
    return listed and first != '' and not first.startswith('-')


@functools.lru_cache(maxsize=None)
def cpu_model():
    """This machine's ``describe_cpu``, e.g. 'AMD EPYC 7B13 (AVX2, 2 CPUs)'
    (the CPUs this process may run on)."""
    cpus = (len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity')
            else os.cpu_count())
    return describe_cpu(read_cpuinfo(), cpus, fallback=(
        platform.processor() or platform.machine() or 'unknown'))


def vector_extension():
    """This machine's widest vector extension ('AVX-512', 'AVX2', ...), or
    None where /proc/cpuinfo does not say."""
    return _model_and_extension(read_cpuinfo())[1]
