"""Categorical (C51-style) critics (Bellemare et al. 2017), as SimbaV2 (Lee
et al. 2025) trains them in SAC: each critic's outputs are the logits of
the return's probabilities p_j on fixed atoms z_j, N of them evenly spaced
on [v_min, v_max] (value_functions/feedforward_q_function.py,
``categorical``); Q(s, a) = sum_j p_j z_j.

The target of one update, with a' ~ pi(.|s') (SAC) or mu'(s') + noise (TD3):

  k*  = argmin_i Q'_i(s', a'), per sample: the target critic with the
        smallest expected value lends its whole distribution p' (as the
        SimbaV2 and FastTD3 authors take the minimum over critics);
  Tz_j = clip(reward_scale * r + discount^n * (1 - d) * (z_j - alpha * log pi(a'|s')),
              v_min, v_max)      (alpha = 0 for TD3)
  m   = the projection of p' at Tz onto the atoms: each p'_j split between
        the two atoms around Tz_j in proportion to nearness;
  L_i = mean_batch(-sum_j m_j log softmax(logits_i)_j)   (cross-entropy)

These functions are the pieces; the update skeleton (fused_updates.py)
uses them when the critics are categorical.
"""

import tensorflow as tf


def expected_values(logits, support):
    """Q = sum_j softmax(logits)_j z_j, (B, 1)."""
    return tf.reduce_sum(tf.nn.softmax(logits, axis=-1) * support, axis=-1,
                         keepdims=True)


def project_onto_support(probabilities, target_atoms, support):
    """The C51 projection: ``probabilities`` (B, N) placed at
    ``target_atoms`` (B, N), clipped to the support, redistributed onto the
    ``support`` (N,) atoms: (B, N), each row summing to one."""
    n_atoms = support.shape[-1]
    v_min, v_max = support[0], support[-1]
    spacing = (v_max - v_min) / (n_atoms - 1)
    # Clipped after the division too: v_max's position can round past N - 1.
    positions = tf.clip_by_value(
        (tf.clip_by_value(target_atoms, v_min, v_max) - v_min) / spacing,
        0.0, n_atoms - 1.0)
    lower, upper = tf.floor(positions), tf.math.ceil(positions)
    # A target exactly on an atom (lower == upper) gives it all its mass.
    lower_mass = probabilities * (upper - positions
                                  + tf.cast(lower == upper, positions.dtype))
    upper_mass = probabilities * (positions - lower)
    # Each sample's masses added into its own row of N bins: a segment sum
    # over B * N segments, O(B N), where a one-hot matrix product is
    # O(B N^2) (two thirds of SimbaV2's update time at 101 atoms).
    batch_size = tf.shape(probabilities)[0]
    rows = tf.range(batch_size)[:, None] * n_atoms
    segments = tf.concat([rows + tf.cast(lower, tf.int32),
                          rows + tf.cast(upper, tf.int32)], axis=1)
    masses = tf.concat([lower_mass, upper_mass], axis=1)
    projected = tf.math.unsorted_segment_sum(
        tf.reshape(masses, [-1]), tf.reshape(segments, [-1]),
        batch_size * n_atoms)
    return tf.reshape(projected, tf.shape(probabilities))


def smallest_critic_probabilities(logits, support):
    """Per sample, the probabilities of the critic whose expected value is
    the smallest: ``logits`` (M, B, N) of M critics -> (B, N)."""
    probabilities = tf.nn.softmax(logits, axis=-1)
    values = tf.reduce_sum(probabilities * support, axis=-1)  # (M, B)
    smallest = tf.argmin(values, axis=0, output_type=tf.int32)  # (B,)
    return tf.gather(tf.transpose(probabilities, (1, 0, 2)), smallest,
                     axis=1, batch_dims=1)


def cross_entropy(logits, target_probabilities):
    """-sum_j m_j log softmax(logits)_j, (B, 1)."""
    return -tf.reduce_sum(target_probabilities
                          * tf.nn.log_softmax(logits, axis=-1), axis=-1,
                          keepdims=True)


def critics_support(Qs):
    """The critics' atoms (a float32 tensor (N,)), or None for critics of
    scalar values; one ValueError if they disagree."""
    supports = [getattr(Q, 'support', None) for Q in Qs]
    if all(support is None for support in supports):
        return None
    first = supports[0]
    if any(support is None or list(support) != list(first)
           for support in supports):
        raise ValueError("All critics must be categorical on one support "
                         "(Q_params.config.categorical) or none.")
    return tf.constant(first, tf.float32)
