"""What a run's cost was measured on: the CPU's model and widest vector
instructions, recorded beside every epoch's timings (a suite may resume on
another machine, and a run's steps per second depend on both)."""

import functools
import os
import platform

# The vector extensions that decide how fast dense layers run here, widest
# first (oneDNN and XLA pick their kernels by them).
VECTOR_EXTENSIONS = (('avx512f', 'AVX-512'), ('avx2', 'AVX2'),
                     ('avx', 'AVX'), ('asimd', 'NEON'))


def _model_and_extension(cpuinfo):
    """(model name, widest VECTOR_EXTENSIONS name or None) from the text
    of /proc/cpuinfo."""
    model, flags = '', set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(':')
        key = key.strip()
        if key == 'model name' and not model:
            model = value.strip()
        elif key in ('flags', 'Features') and not flags:
            flags = set(value.split())
    extension = next((name for flag, name in VECTOR_EXTENSIONS
                      if flag in flags), None)
    return model, extension


def describe_cpu(cpuinfo, cpus, fallback='unknown'):
    """'MODEL (EXTENSION, N CPUs)' from the text of /proc/cpuinfo."""
    model, extension = _model_and_extension(cpuinfo)
    details = ', '.join(part for part in (extension, f'{cpus} CPUs') if part)
    return f'{model or fallback} ({details})'


@functools.lru_cache(maxsize=None)
def _cpuinfo():
    try:
        with open('/proc/cpuinfo') as f:
            return f.read()
    except OSError:  # not Linux
        return ''


@functools.lru_cache(maxsize=None)
def cpu_model():
    """This machine's ``describe_cpu``, e.g. 'AMD EPYC 7B13 (AVX2, 2 CPUs)'
    (the CPUs this process may run on)."""
    cpus = (len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity')
            else os.cpu_count())
    return describe_cpu(_cpuinfo(), cpus, fallback=(
        platform.processor() or platform.machine() or 'unknown'))


def vector_extension():
    """This machine's widest vector extension ('AVX-512', 'AVX2', ...), or
    None where /proc/cpuinfo does not say."""
    return _model_and_extension(_cpuinfo())[1]
