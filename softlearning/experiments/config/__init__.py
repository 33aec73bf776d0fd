"""The configuration of a run: the option schema (options_of_the_run,
options_of_the_variant, option_types, option_schema), sweep files, the
presets (one per registered agent), the variant spec built from them
(variants) with each value's source (provenance), the checks of config keys
and values, and where results go.

May import softlearning's components and utilities and
softlearning.experiments.errors; no other room of softlearning.experiments
(every other room reads it).
"""
