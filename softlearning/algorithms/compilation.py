"""``jit_compile='auto'``: the fused update compiled with XLA on the CPUs
where that was measured faster, as TensorFlow's graph otherwise.

XLA fuses a network's element-wise operations (SimBa's layer and running
normalizations, residual sums) into the matrix products around them. On a
Xeon with AVX-512 (one thread, HalfCheetah, benchmarks/throughput.py) that
made SAC with SimBa networks 1.35x faster (79.7-84.2 against 59.3-62.2
environment steps a second) and plain SAC 1.1x; on an AMD EPYC with AVX2,
plain SAC was no faster with it (docs/benchmarks/performance.md), and SimBa
was already ahead of SBX's without it. So 'auto' is XLA where the CPU has
AVX-512 (or a GPU runs the update), and not elsewhere; never for critics
with dropout (DroQ's), whose masks drawn under XLA ran at 5.9 environment
steps a second against 91 without it; and never for a bfloat16 update,
which ran slower with XLA than without it (precision.py).
"""

from softlearning.models.precision import BFLOAT16, DEFAULT_PRECISION
from softlearning.utils.machine import vector_extension

AUTO = 'auto'


def resolve_jit_compile(jit_compile, dropout=False, extension=None,
                        gpu=None, precision=DEFAULT_PRECISION):
    """``jit_compile`` as True or False: 'auto' by the machine (``extension``
    and ``gpu`` default to this machine's), by whether the critics have
    ``dropout`` and by the update's ``precision``."""
    if isinstance(jit_compile, bool):
        return jit_compile
    if jit_compile != AUTO:
        raise ValueError(f"jit_compile must be true, false or '{AUTO}', not "
                         f"{jit_compile!r}.")
    if dropout or precision == BFLOAT16:
        return False
    if gpu is None:
        import tensorflow as tf
        gpu = bool(tf.config.list_logical_devices('GPU'))
    if extension is None:
        extension = vector_extension()
    return gpu or extension == 'AVX-512'
