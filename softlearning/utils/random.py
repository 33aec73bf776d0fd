"""Seeding of every random number generator a trial touches."""

import random

import numpy as np


def set_seed(seed):
    import tensorflow as tf
    import tf_keras as keras
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
    keras.utils.set_random_seed(seed)
