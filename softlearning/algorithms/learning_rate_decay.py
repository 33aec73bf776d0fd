"""SimbaV2's learning-rate schedule (Lee et al. 2025): every optimizer's
rate decays linearly from its initial value to ``final_fraction`` of it
over the run's updates (the paper: 1e-4 to 5e-5), then stays there.

Progress is the algorithm's update counter, one for all its optimizers (a
delayed policy's optimizer steps less often, yet its rate follows the same
clock); a checkpoint holds the counter, so a resumed run continues the
schedule where it stopped.
"""

import tensorflow as tf
import tf_keras as keras


class LinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """initial * (1 - (1 - final_fraction) * min(updates / n_updates, 1)),
    with ``updates`` read from ``counter`` (the optimizer's own step,
    which Keras passes in, is ignored)."""

    def __init__(self, initial, final_fraction, n_updates, counter):
        if not 0.0 <= final_fraction <= 1.0:
            raise ValueError(f"lr_decay_to must lie in [0, 1] (a fraction "
                             f"of each initial learning rate), not "
                             f"{final_fraction!r}.")
        self.initial = float(initial)
        self.final_fraction = float(final_fraction)
        self.n_updates = max(int(n_updates), 1)
        self.counter = counter

    def __call__(self, step):
        progress = tf.minimum(
            tf.cast(self.counter, tf.float32) / self.n_updates, 1.0)
        return self.initial * (1.0 - (1.0 - self.final_fraction) * progress)

    def get_config(self):
        return {'initial': self.initial,
                'final_fraction': self.final_fraction,
                'n_updates': self.n_updates}


def run_updates(n_epochs, epoch_length, n_train_repeat, train_every_n_steps):
    """The updates a run of ``n_epochs`` epochs takes (the warm-up's steps
    counted as the paper counts them: as steps of the run)."""
    return n_epochs * epoch_length * n_train_repeat // train_every_n_steps


def learning_rate_schedule(decay_to, n_updates, counter):
    """What turns an optimizer's initial learning rate into the rate Adam
    is given: the rate itself (``decay_to`` None), or its linear decay to
    ``decay_to`` of it over ``n_updates`` updates counted by ``counter``."""
    if decay_to is None:
        return lambda initial: initial
    return lambda initial: LinearDecay(initial, decay_to, n_updates, counter)
