"""Kernels for Stein variational gradient descent (Liu and Wang 2016), as
Soft Q-Learning uses them.

The adaptive isotropic Gaussian kernel between particles x_i (Kx of them)
and y_j (Ky of them), in D dimensions:

    k(x_i, y_j) = exp(-||x_i - y_j||^2 / h)
    h = max(median_ij ||x_i - y_j||^2 / log(Kx), h_min)

The bandwidth h follows the median heuristic (Liu and Wang 2016): with it,
sum_j k(x_i, y_j) is about Kx * exp(-log Kx) = 1 for a typical particle.
The median of the Kx * Ky squared distances is the (Kx * Ky // 2 + 1)-th
largest (the lower median when Kx * Ky is even), as in the original
softlearning. h is treated as a constant for differentiation (no gradient
flows through it).
"""

import numpy as np
import tensorflow as tf


def adaptive_isotropic_gaussian_kernel(xs, ys, h_min=1e-3):
    """Values and gradients of the kernel, batched over leading axes.

    xs: (..., Kx, D), ys: (..., Ky, D), with Kx, Ky and D known statically.
    Returns a dict:
      'values':    (..., Kx, Ky), k(x_i, y_j);
      'gradients': (..., Kx, Ky, D), the gradient of k(x_i, y_j) with
                   respect to x_i (the first argument):
                   -2 (x_i - y_j) / h * k(x_i, y_j);
      'bandwidth': (...), h.
    """
    n_x, n_y = int(xs.shape[-2]), int(ys.shape[-2])
    differences = xs[..., :, None, :] - ys[..., None, :, :]
    squared_distances = tf.reduce_sum(differences ** 2, axis=-1)
    flat = tf.reshape(squared_distances, tf.concat(
        [tf.shape(squared_distances)[:-2], [n_x * n_y]], axis=0))
    largest, _ = tf.math.top_k(flat, k=n_x * n_y // 2 + 1)
    median = largest[..., -1]
    bandwidth = tf.stop_gradient(
        tf.maximum(median / np.log(n_x), h_min))
    values = tf.exp(-squared_distances / bandwidth[..., None, None])
    gradients = (-2.0 * differences / bandwidth[..., None, None, None]
                 * values[..., None])
    return {'values': values, 'gradients': gradients, 'bandwidth': bandwidth}
