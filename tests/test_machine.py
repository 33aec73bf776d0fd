"""The CPU a run's timings were measured on, as progress.csv records it."""

import re

from softlearning.utils.machine import cpu_model, describe_cpu

XEON = ('processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n'
        'flags\t\t: fpu sse2 avx avx2 avx512f avx512bw\n\n'
        'processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Processor\n'
        'flags\t\t: fpu sse2 avx avx2 avx512f avx512bw\n')
EPYC = ('model name\t: AMD EPYC 7B13 64-Core Processor\n'
        'flags\t\t: fpu sse2 avx avx2 fma\n')
GRAVITON = 'processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n'


def test_the_model_and_its_widest_vector_extension():
    assert describe_cpu(XEON, 2) == (
        'Intel(R) Xeon(R) Processor (AVX-512, 2 CPUs)')
    assert describe_cpu(EPYC, 2) == (
        'AMD EPYC 7B13 64-Core Processor (AVX2, 2 CPUs)')
    assert describe_cpu(GRAVITON, 4, fallback='aarch64') == (
        'aarch64 (NEON, 4 CPUs)')
    assert describe_cpu('', 8, fallback='arm') == 'arm (8 CPUs)'


def test_this_machine_has_a_description():
    # (1 CPU where the process may use one: a one-core machine, or taskset.)
    assert re.search(r' \(.*\b\d+ CPUs?\)$', cpu_model()), cpu_model()
    assert cpu_model() is cpu_model()  # read once per process


def test_vector_extension_is_the_one_the_description_names():
    from softlearning.utils.machine import vector_extension
    extension = vector_extension()
    if extension is None:
        assert cpu_model().count(',') == 0  # '(N CPUs)' alone
    else:
        assert f'({extension}, ' in cpu_model()


def test_jit_compile_auto_is_xla_on_avx512_and_gpus_only():
    import pytest

    from softlearning.algorithms.compilation import resolve_jit_compile
    assert resolve_jit_compile('auto', extension='AVX-512', gpu=False)
    assert not resolve_jit_compile('auto', extension='AVX2', gpu=False)
    assert not resolve_jit_compile('auto', extension='NEON', gpu=False)
    assert resolve_jit_compile('auto', extension='AVX2', gpu=True)
    # Dropout masks under XLA: 15 times slower (DroQ's critics).
    assert not resolve_jit_compile('auto', dropout=True, extension='AVX-512',
                                   gpu=True)
    assert resolve_jit_compile(True, extension='AVX2') is True
    assert resolve_jit_compile(False, extension='AVX-512') is False
    with pytest.raises(ValueError, match="jit_compile must be true, false "
                                         "or 'auto', not 'yes'"):
        resolve_jit_compile('yes')
