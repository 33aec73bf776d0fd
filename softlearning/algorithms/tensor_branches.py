"""Branches on tensors inside the compiled update, which is traced without
autograph (fused_updates.py): written as ``tf.cond``."""

import tensorflow as tf


def every_step(counter, interval, step):
    """Runs ``step`` (its outputs dropped) when ``counter`` is a multiple of
    ``interval``; every time, with no branch, when ``interval`` is 1."""
    def run():
        step()  # neither branch of tf.cond returns anything

    if interval == 1:
        run()
    else:
        tf.cond(tf.equal(counter % interval, 0), run, lambda: None)
