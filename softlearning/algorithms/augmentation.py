"""Pixel agents' image augmentation (DrQ, Kostrikov et al. 2020), applied
by the shared update (fused_updates.py) to each minibatch's observations
and next observations when ``augmentation_pad`` is set."""

import tensorflow as tf


def random_shift(images, pad, seed):
    """DrQ's augmentation: each image (B, H, W, C) padded by repeating its
    border ``pad`` pixels, then cropped back to H x W at a random offset
    (0..2 * pad in each direction). Keeps the dtype."""
    height, width = tf.shape(images)[1], tf.shape(images)[2]
    shifts = tf.random.stateless_uniform(
        tf.stack([tf.shape(images)[0], 2]), seed, -pad, pad + 1, tf.int32)
    # Row/column i of the shifted image is row/column i + shift of the
    # original, clipped to its border (= the border repeated as padding).
    rows = tf.clip_by_value(shifts[:, :1] + tf.range(height)[None], 0,
                            height - 1)
    columns = tf.clip_by_value(shifts[:, 1:] + tf.range(width)[None], 0,
                               width - 1)
    shifted = tf.gather(images, rows, axis=1, batch_dims=1)
    return tf.gather(shifted, columns, axis=2, batch_dims=1)
