"""Curriculum example: the development example's variant and trainable,
trained with an environment-parameter curriculum.

    softlearning run_example_local examples.curriculum \\
        --universe gym --domain HalfCheetah --task v5 \\
        --num-samplers 2 --sampler-cpus 1

Without ``--curriculum FILE`` it uses half_cheetah_mass.json beside this
file: HalfCheetah's body masses are drawn per episode from a range around
their constructor values that widens from +-0% to +-40% over 300 epochs,
and the sliding friction goes down to 0.7x from epoch 100 on.
"""

import os

from softlearning.experiments.definition import (get_trainable_class,
                                                 get_variant_spec,
                                                 prepare_args)

DEFAULT_CURRICULUM = os.path.join(os.path.dirname(__file__),
                                  'half_cheetah_mass.json')


# This example's defaults of softlearning's options (--help shows them).
OPTION_DEFAULTS = {'curriculum': DEFAULT_CURRICULUM, 'domain': 'HalfCheetah',
                   'task': 'v5'}


__all__ = ['OPTION_DEFAULTS', 'get_trainable_class', 'get_variant_spec',
           'prepare_args']
