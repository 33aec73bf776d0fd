"""The update's precision (``precision``, ``--precision``): 'float32', or
'bfloat16' mixed precision.

bfloat16 keeps float32's 8 exponent bits and 7 of its 23 mantissa bits
(about 3 significant decimal digits). Mixed precision runs the networks'
matrix products in it and keeps in float32 everything the update adds up:
the weights, their gradients, the optimizers' slots, the losses, the
targets, SAC's temperature. The networks are built so
(models/precision.py: Keras's 'mixed_bfloat16' policy on their hidden
layers, float32 outputs and running statistics); the skeleton checks that
the networks it trains compute in its precision (``check_networks``), so
an algorithm told 'bfloat16' never trains float32 networks unawares. No
loss scaling: bfloat16's exponent range is float32's, so gradients do not
underflow as float16's would. Checkpoints hold float32 weights under
either precision, so a checkpoint of one loads into the other, and the
numpy copy that acts (and ``simulate``, ``export``) is float32.

Where it pays: matrix products of wide networks on hardware with bfloat16
arithmetic. On an AMD EPYC with AVX512_BF16, a twin-critic SAC update ran
0.88x float32's updates a second at width 256, 1.60x at width 1024 (batch
256) and 1.55x at width 1024 (batch 1024); 512 was not measured. On a GPU
it is unmeasured (none with TensorFlow was at hand).

Where this machine would only emulate it, it is refused before anything
starts (``machine_refusal``): a CPU with neither AVX512_BF16 nor AMX-BF16
(the flags of /proc/cpuinfo) and no NVIDIA GPU visible runs bfloat16
products through float32 conversions and gains nothing (on this
project's AMD EPYC with AVX2, emulated with the override below, bfloat16
was slower than float32 at 256 units and no faster at 1024). An expert
who wants the bfloat16 code path anyway (tests, a CPU this check does not
know) sets ``SOFTLEARNING_ALLOW_BFLOAT16=1``. Trials of
``run_example_cluster`` run on the cluster's nodes, which the command
cannot see: it does not check.

XLA (compilation.py): a bfloat16 update compiled with XLA ran slower than
without it where measured, so ``jit_compile='auto'`` is off under
bfloat16, and a preset's ``jit_compile: true`` is turned off by
``--precision bfloat16`` (with a notice); a ``jit_compile=true`` the user
gives is kept, with a notice that it was measured slower.
"""

import os

from softlearning.models.precision import (BFLOAT16, DEFAULT_PRECISION,
                                           PRECISIONS, check_precision,
                                           network_precision)
from softlearning.utils import machine

# What an expert sets to run bfloat16 where it would be emulated.
ALLOW_ENV = 'SOFTLEARNING_ALLOW_BFLOAT16'
# /proc/cpuinfo's flags of the x86 instructions that multiply bfloat16
# (AVX512_BF16: Cooper Lake, Zen 4 and later; AMX-BF16: Sapphire Rapids).
BFLOAT16_FLAGS = {'avx512_bf16': 'AVX512_BF16', 'amx_bf16': 'AMX-BF16'}


def native_bfloat16(cpuinfo, gpu):
    """Whether bfloat16 matrix products run natively: the CPU (the text of
    /proc/cpuinfo) has AVX512_BF16 or AMX-BF16, or ``gpu`` (an NVIDIA GPU
    is visible)."""
    return bool(gpu) or bool(set(BFLOAT16_FLAGS) & machine.cpu_flags(cpuinfo))


def machine_refusal(name='--precision bfloat16', cpuinfo=None, gpu=None,
                    environ=None):
    """None where bfloat16 may run here, else the one line that refuses it
    (``name``: how the user asked for it). ``cpuinfo``, ``gpu`` and
    ``environ`` default to this machine's and this process's; tests pass
    others."""
    environ = os.environ if environ is None else environ
    if environ.get(ALLOW_ENV, '').strip().lower() in ('1', 'true', 'yes'):
        return None
    if cpuinfo is None:
        cpuinfo = machine.read_cpuinfo()
    if gpu is None:
        gpu = machine.nvidia_gpu_visible(environ=environ)
    if native_bfloat16(cpuinfo, gpu):
        return None
    flags = ' nor '.join(BFLOAT16_FLAGS.values())
    return (f"{name}: this CPU has neither {flags} (flags read from "
            "/proc/cpuinfo) and no GPU is visible; bfloat16 matmuls would "
            "be emulated and no faster than float32. Valid choices here: "
            f"{DEFAULT_PRECISION} (or set {ALLOW_ENV}=1 to run it "
            "emulated).")


def check_networks(precision, networks, algorithm):
    """``precision`` checked, and that every network of ``networks``
    ({name: Keras model}) computes in it; else one ValueError naming them
    (``algorithm``: its name)."""
    check_precision(precision)
    other = sorted(name for name, model in networks.items()
                   if network_precision(model) != precision)
    if other:
        raise ValueError(
            f"{algorithm} updates in {precision}, but not all its networks "
            f"do ({', '.join(other)}: another precision); build the policy "
            f"and Q-functions with precision='{precision}' (the trainable "
            "passes algorithm_params.config.precision to them).")
    return precision


def xla_notice(precision, jit_compile, given):
    """(jit_compile to use, a notice or None) for a variant in
    ``precision`` whose jit_compile is ``jit_compile``; ``given``: whether
    the user set it. Under bfloat16 a preset's XLA is turned off, the
    user's kept (both say why)."""
    if precision != BFLOAT16 or jit_compile is not True:
        return jit_compile, None
    measured = ("XLA with bfloat16 ran slower than without where measured "
                "(docs/guide/precision.md)")
    if given:
        return True, (f"jit_compile true with precision bfloat16: {measured}"
                      "; kept, as you set it.")
    return False, (f"precision bfloat16 compiles the update without the "
                   f"preset's XLA (jit_compile true): {measured}; "
                   "--config algorithm_params.config.jit_compile=true "
                   "keeps it.")


__all__ = ['ALLOW_ENV', 'BFLOAT16', 'PRECISIONS', 'check_networks',
           'machine_refusal', 'native_bfloat16', 'xla_notice']
