"""Pixel agents' image augmentation (DrQ, Kostrikov et al. 2020): the
update skeleton (fused_updates.py) passes each minibatch through
``batch_augmentation``'s transform before the update."""

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


def _unchanged(batch):
    return batch


def batch_augmentation(pad, encoder, random_generator):
    """The transform of each minibatch: random shifts by ``pad`` pixels of
    the image observations (``encoder``'s pixel key) and, drawn apart, of
    the next observations, with seeds from ``random_generator``; the
    minibatch unchanged when ``pad`` is None or 0 or there is no encoder."""
    pad = int(pad or 0)
    if not pad or encoder is None:
        return _unchanged
    key = encoder.config['pixel_key']

    def augmented(batch):
        seeds = tf.cast(random_generator.make_seeds(2), tf.int32)
        batch = dict(batch)
        for i, field in enumerate(('observations', 'next_observations')):
            batch[field] = {**batch[field], key: random_shift(
                batch[field][key], pad, seeds[:, i])}
        return batch

    return augmented
