"""Branches on tensors inside the compiled update, which is traced without
autograph (fused_updates.py): written as ``tf.cond``."""

import tensorflow as tf


def every_step(counter, interval, step):
    """Runs ``step`` (no outputs) when ``counter`` is a multiple of
    ``interval``: a branch of the compiled update, written as tf.cond (the
    update is traced without autograph)."""
    def run():
        step()  # (its outputs dropped: neither branch returns any)

    if interval == 1:
        run()
    else:
        tf.cond(tf.equal(counter % interval, 0), run, lambda: None)
