"""softlearning's experiment definition: its variant spec (presets +
overrides, variants.py) and its trainable; its options are the schema's
(option_schema.py). ``softlearning run_example_local examples.development``
runs it; see prepare.py for what a definition provides."""

from softlearning.experiments.config.variants import get_variant_spec


def prepare_args(options):
    """Pixels are rendered by sampler actors (the learner imports
    TensorFlow, which cannot share a process with OSMesa): at least one."""
    if options.observation == 'pixels' and not options.num_samplers:
        options.num_samplers = 1
        options.notices.append("--observation pixels: frames are rendered by "
                               "sampler actors; using --num-samplers 1.")


def get_trainable_class(options=None):
    from softlearning.experiments.trial.trainable import ExperimentRunner
    return ExperimentRunner


__all__ = ['get_trainable_class', 'get_variant_spec', 'prepare_args']
