"""``--precision`` in the variant: ``algorithm_params.config.precision``
(the update's, which the trainable passes to every network the update
trains: algorithms/precision.py), and what it does to the preset's XLA
switch. The check of this machine, which refuses bfloat16 where it would be
emulated, is the run's (experiments/tune/prepare.py): a cluster's trials
run elsewhere."""

from softlearning.algorithms.precision import xla_notice
from softlearning.models.precision import DEFAULT_PRECISION, check_precision

from softlearning.experiments.config.search_spaces import (
    is_search_space, possible_values)

JIT_COMPILE = 'algorithm_params.config.jit_compile'


def set_precision(variant_spec, precision):
    """``--precision bfloat16``: the update in bfloat16 mixed precision
    (algorithms/precision.py); float32, the constructor's default, is left
    to it. What it does to the preset's XLA switch is decided once the
    user's settings are in (``finish_precision``)."""
    if precision != DEFAULT_PRECISION:
        variant_spec['algorithm_params']['config']['precision'] = precision


def finish_precision(variant_spec, given, notice):
    """After the user's settings: the precision is one of PRECISIONS (a
    searched one, each of its values), and a bfloat16 update runs without
    the preset's XLA, or with the user's, each with a notice
    (algorithms/precision.py's ``xla_notice``)."""
    config = variant_spec['algorithm_params']['config']
    precision = config.get('precision', DEFAULT_PRECISION)
    for value in possible_values(precision):
        try:
            check_precision(value)
        except ValueError as error:
            raise ValueError(f"algorithm_params.config.precision: {error}"
                             ) from None
    if is_search_space(precision) or is_search_space(
            config.get('jit_compile')):
        return  # each trial's own (the algorithm resolves 'auto')
    jit_compile, message = xla_notice(
        precision, config.get('jit_compile'),
        JIT_COMPILE in given)
    if message:
        config['jit_compile'] = jit_compile
        notice(message)
