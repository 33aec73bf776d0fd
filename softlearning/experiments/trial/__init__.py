"""One trial: the Trainable (trainable) and the components it builds from
a variant (build), the in-process runner (debug_runner), the epoch console
the driver prints (console), and loading a trained policy for simulate,
export and softlearning.load.

May import config and errors; not cluster, tune or benchmark.
"""
