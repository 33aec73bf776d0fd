"""The development example: softlearning's own experiment definition
(softlearning/experiments/definition.py), under the name the commands have
always used:

    softlearning run_example_local examples.development --universe gym \\
        --domain Pendulum --task v1
"""

from softlearning.experiments.definition import (get_trainable_class,
                                                 get_variant_spec,
                                                 prepare_args)

__all__ = ['get_trainable_class', 'get_variant_spec', 'prepare_args']
