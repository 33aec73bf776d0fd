"""Soft Q-Learning: the kernel, the soft value, the SVGD direction, the
sampling policy, fused updates and the variant checks."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_fused_equals_single,
                               fill_pool, make_algorithm)
from softlearning import algorithms, environments, policies
from softlearning.algorithms.kernels import adaptive_isotropic_gaussian_kernel
from softlearning.algorithms.sql import soft_value, svgd_direction
from test_numpy_policies import ACTION_SHAPE, OBSERVATION_SHAPES, observations


# The kernel -----------------------------------------------------------------

def reference_kernel(xs, ys, h_min=1e-3):
    """The adaptive isotropic Gaussian kernel, one state, in float64."""
    differences = xs[:, None, :] - ys[None, :, :]
    squared = np.sum(differences ** 2, axis=-1)
    ordered = np.sort(squared.ravel())[::-1]
    median = ordered[len(ordered) // 2]  # the (n // 2 + 1)-th largest
    h = max(median / np.log(len(xs)), h_min)
    values = np.exp(-squared / h)
    return values, -2.0 * differences / h * values[..., None], h


@pytest.mark.parametrize('n_x, n_y, dim', [(4, 3, 2), (8, 8, 1), (5, 6, 3)])
def test_kernel_values_and_gradients_match_numpy_reference(n_x, n_y, dim):
    rng = np.random.default_rng(n_x * 10 + dim)
    xs = rng.uniform(-1, 1, (7, n_x, dim))
    ys = rng.uniform(-1, 1, (7, n_y, dim))
    kernel = adaptive_isotropic_gaussian_kernel(
        tf.constant(xs, tf.float32), tf.constant(ys, tf.float32))
    assert kernel['values'].shape == (7, n_x, n_y)
    assert kernel['gradients'].shape == (7, n_x, n_y, dim)
    for b in range(7):
        values, gradients, h = reference_kernel(xs[b], ys[b])
        np.testing.assert_allclose(kernel['bandwidth'][b], h, rtol=1e-5)
        np.testing.assert_allclose(kernel['values'][b], values, rtol=1e-5,
                                   atol=1e-7)
        np.testing.assert_allclose(kernel['gradients'][b], gradients,
                                   rtol=1e-4, atol=1e-6)


def test_kernel_gradient_is_the_derivative_in_the_first_argument():
    """Central finite differences of k(x_i, y_j) in x_i, the bandwidth held
    at its value (it is a constant for differentiation)."""
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(-1, 1, (4, 2)), rng.uniform(-1, 1, (3, 2))
    _, gradients, h = reference_kernel(xs, ys)
    epsilon = 1e-6
    for i in range(4):
        for d in range(2):
            step = np.zeros_like(xs)
            step[i, d] = epsilon
            def k(x):
                return np.exp(-np.sum((x[i] - ys) ** 2, axis=-1) / h)
            numeric = (k(xs + step) - k(xs - step)) / (2 * epsilon)
            np.testing.assert_allclose(gradients[i, :, d], numeric,
                                       rtol=1e-6, atol=1e-9)
    # ... and TensorFlow's kernel has the same gradients (float32).
    kernel = adaptive_isotropic_gaussian_kernel(
        tf.constant(xs[None], tf.float32), tf.constant(ys[None], tf.float32))
    np.testing.assert_allclose(kernel['gradients'][0], gradients, rtol=1e-4,
                               atol=1e-6)


def test_kernel_bandwidth_has_a_floor():
    same = tf.zeros((1, 4, 2))
    kernel = adaptive_isotropic_gaussian_kernel(same, same, h_min=1e-3)
    np.testing.assert_allclose(kernel['bandwidth'], 1e-3)
    np.testing.assert_allclose(kernel['values'], 1.0)
    np.testing.assert_allclose(kernel['gradients'], 0.0)


# The soft value -------------------------------------------------------------

def test_soft_value_of_a_constant_Q_is_the_constant_plus_log_volume():
    """V = log int_{[-1,1]^|A|} exp(c) da = c + |A| log 2, exactly, for any
    number of particles."""
    Q = tf.fill((5, 16), 3.0)
    np.testing.assert_allclose(soft_value(Q, action_size=3),
                               np.full((5, 1), 3.0 + 3 * np.log(2.0)),
                               rtol=1e-6)
    np.testing.assert_allclose(soft_value(tf.fill((2, 1), -1.0), 1),
                               [[-1.0 + np.log(2.0)]] * 2, rtol=1e-6)


def test_soft_value_of_a_quadratic_Q_converges_to_its_integral():
    """Q(a) = -a^2 on [-1, 1]: V = log int exp(-a^2) da = log(sqrt(pi)
    erf(1)); the importance-sampled estimate with uniform particles gets it
    to within its Monte Carlo error."""
    from scipy.special import erf
    closed_form = np.log(np.sqrt(np.pi) * erf(1.0))
    actions = np.random.default_rng(0).uniform(-1, 1, (1, 200000))
    estimate = float(soft_value(tf.constant(-actions ** 2, tf.float32), 1)[0, 0])
    assert abs(estimate - closed_form) < 2e-3, (estimate, closed_form)
    # Two dimensions, Q(a) = -|a|^2: the integral factorizes.
    actions = np.random.default_rng(1).uniform(-1, 1, (1, 200000, 2))
    Q = -np.sum(actions ** 2, axis=-1)
    estimate = float(soft_value(tf.constant(Q, tf.float32), 2)[0, 0])
    assert abs(estimate - 2 * closed_form) < 4e-3, (estimate, 2 * closed_form)


# The SVGD direction ---------------------------------------------------------

def test_svgd_direction_on_a_hand_computed_case():
    """Two fixed particles a_1 = 0, a_2 = 1 (1-D) and one updated particle
    a = 0.5, with k(x, y) = exp(-(x - y)^2 / h) and h = 1:
      k(a_j, a) = exp(-0.25) for both,
      grad_{a_j} k(a_j, a) = -2 (a_j - a) k = (+1, -1) * exp(-0.25),
      phi = mean_j [k g_j + grad k] = exp(-0.25) * (g_1 + g_2) / 2,
    the kernel gradients cancelling (repulsion from both sides)."""
    e = np.exp(-0.25)
    values = tf.constant([[[e], [e]]], tf.float32)          # (1, 2, 1)
    gradients = tf.constant([[[[e]], [[-e]]]], tf.float32)  # (1, 2, 1, 1)
    grad_log_p = tf.constant([[[2.0], [-0.5]]])             # (1, 2, 1)
    phi = svgd_direction(values, gradients, grad_log_p)
    np.testing.assert_allclose(phi, [[[e * (2.0 - 0.5) / 2]]], rtol=1e-6)
    # Flat log p: only the repulsion, pushing a particle at 0.8 away from
    # the fixed ones at 0 and 1 (the nearer one, 1, pushes harder).
    xs, ys = tf.constant([[[0.0], [1.0]]]), tf.constant([[[0.8]]])
    kernel = adaptive_isotropic_gaussian_kernel(xs, ys)
    phi = svgd_direction(kernel['values'], kernel['gradients'],
                         tf.zeros((1, 2, 1)))
    h = float(kernel['bandwidth'][0])
    k0, k1 = np.exp(-0.64 / h), np.exp(-0.04 / h)
    expected = (-2 * (0.0 - 0.8) / h * k0 - 2 * (1.0 - 0.8) / h * k1) / 2
    np.testing.assert_allclose(phi, [[[expected]]], rtol=1e-5)
    assert expected < 0


# The sampling policy --------------------------------------------------------

def sampling_policy(cls=None, seed=0, **config):
    cls = cls or policies.FeedforwardSamplingPolicy
    return cls(OBSERVATION_SHAPES, ACTION_SHAPE, hidden_layer_sizes=(16, 16),
               observation_keys=('velocity', 'position'), seed=seed, **config)


def test_sampling_policy_noise_is_an_input():
    """Actions depend on xi: a stochastic batch of one state spreads out;
    the TF particles equal the network applied to [s, xi] for the same xi."""
    policy = sampling_policy()
    obs = observations(3)
    particles = policy.particles(obs, 50, seed=(1, 2)).numpy()
    assert particles.shape == (3, 50, 2)
    assert np.all(np.abs(particles) < 1)
    assert np.all(particles.std(axis=1) > 1e-3)
    noise = tf.random.stateless_normal((3 * 50, 2), (1, 2)).numpy()
    inputs = np.concatenate([obs['velocity'], obs['position']], axis=-1)
    expected = policy.model(np.concatenate(
        [np.repeat(inputs, 50, axis=0), noise], axis=-1)).numpy()
    np.testing.assert_allclose(particles.reshape(-1, 2), expected, rtol=1e-6)
    with pytest.raises(NotImplementedError, match='SQL'):
        policy.actions_and_log_probs(obs)


def test_numpy_registry_has_the_sampling_policy():
    class Spaces:
        observation_shapes, action_shape = OBSERVATION_SHAPES, ACTION_SHAPE
    policy = policies.get_numpy_policy(
        {'class_name': 'FeedforwardSamplingPolicy',
         'config': {'hidden_layer_sizes': (8,)}}, Spaces())
    assert isinstance(policy, policies.NumpySamplingPolicy)
    assert isinstance(policies.get(
        {'class_name': 'FeedforwardSamplingPolicy',
         'config': {'hidden_layer_sizes': (8,)}}, Spaces()),
        policies.FeedforwardSamplingPolicy)


# The algorithm --------------------------------------------------------------

def make_sql(**config):
    return make_algorithm('SQL', **config)


@pytest.mark.parametrize('Q_class', ['double_feedforward_Q_function',
                                     'feedforward_Q_function'])
def test_fused_sql_updates_equal_single_updates(Q_class):
    assert_fused_equals_single('SQL', Q_class=Q_class, kernel_n_particles=8,
                               value_n_particles=4)


def test_soft_Q_targets_bootstrap_soft_values_except_at_terminals():
    sql, env, policy, pool, sampler, uniform = make_sql(
        discount=0.9, reward_scale=2.0, value_n_particles=8)
    fill_pool(pool, sampler, uniform)
    batch = pool.random_batch(8)
    batch['terminals'][:] = 0.0
    batch['terminals'][:4] = 1.0
    seed = tf.constant([7, 8], dtype=tf.int32)
    targets, values = sql._y_for(as_tensors(batch), seed)

    # Reference: the same uniform actions (same seed), the twin target
    # Q-functions' minimum, and the importance-sampled soft value by hand.
    actions = tf.random.stateless_uniform((8, 8, 1), seed, -1.0, 1.0).numpy()
    next_Q = np.empty((8, 8))
    for b in range(8):
        state = {k: np.repeat(v[b:b + 1], 8, axis=0)
                 for k, v in batch['next_observations'].items()}
        next_Q[b] = np.minimum(*[Q(state, actions[b]).numpy()[:, 0]
                                 for Q in sql.Q_targets])
    expected_values = (np.log(np.mean(np.exp(next_Q), axis=1, keepdims=True))
                       + np.log(2.0))
    np.testing.assert_allclose(values, expected_values, rtol=1e-5, atol=1e-5)
    rewards = batch['rewards']
    np.testing.assert_allclose(targets[:4], 2.0 * rewards[:4], rtol=1e-6)
    np.testing.assert_allclose(
        targets[4:], 2.0 * rewards[4:] + 0.9 * expected_values[4:],
        rtol=1e-5, atol=1e-5)


def test_policy_update_moves_particles_along_the_svgd_direction():
    """After one small SGD-like step, the updated particles (same noise)
    move with a positive inner product with phi."""
    sql, env, policy, pool, sampler, uniform = make_sql(
        kernel_n_particles=8, policy_lr=1e-3)
    fill_pool(pool, sampler, uniform)
    batch = as_tensors(pool.random_batch(32))
    seed = tf.constant([1, 2], dtype=tf.int32)
    before = policy.particles(batch['observations'], 8, seed=seed)[:, 4:]
    fixed = policy.particles(batch['observations'], 8, seed=seed)[:, :4]
    kernel = adaptive_isotropic_gaussian_kernel(fixed, before)
    direction = svgd_direction(kernel['values'], kernel['gradients'],
                               sql._grad_log_p(batch['observations'], fixed))
    sql._update_policy(batch['observations'], seed)
    after = policy.particles(batch['observations'], 8, seed=seed)[:, 4:]
    assert float(tf.reduce_sum((after - before) * direction)) > 0


def test_hard_target_copies_every_interval_with_tau_one():
    sql, env, policy, pool, sampler, uniform = make_sql(
        tau=1.0, target_update_interval=3, kernel_n_particles=4,
        value_n_particles=4)
    fill_pool(pool, sampler, uniform)
    initial = [w.copy() for w in sql.Q_targets[0].get_weights()]
    for n in range(1, 4):
        sql._fused_updates(as_tensors(pool.random_batches(1, 32)))
        same = all(np.array_equal(a, b) for a, b in
                   zip(sql.Q_targets[0].get_weights(),
                       sql.Qs[0].get_weights()))
        unchanged = all(np.array_equal(a, b) for a, b in
                        zip(sql.Q_targets[0].get_weights(), initial))
        assert (same, unchanged) == ((True, False) if n == 3
                                     else (False, True)), n


def test_training_epochs_yield_sql_diagnostics():
    sql = make_sql(fused_steps=25, kernel_n_particles=8,
                   value_n_particles=8)[0]
    epochs = list(sql.train())
    last = epochs[-1]
    assert last['num_train_steps'] == 300
    for key in ('Q_loss', 'Q_value-mean', 'soft_value-mean', 'policy_loss',
                'svgd_direction-norm', 'kernel_bandwidth'):
        assert np.isfinite(last[key]), key
        assert np.isnan(epochs[0][key]) or epochs[0]['num_train_steps'], key
    assert last['kernel_bandwidth'] > 0
    assert set(last['policy']) == {'actions-mean', 'actions-std',
                                   'actions-saturated'}
    assert np.isfinite(last['evaluation']['return-mean'])
    assert set(epochs[0]) == set(last)


@pytest.mark.parametrize('config, message', [
    ({'kernel_n_particles': 2}, '1 fixed particles'),
    ({'kernel_n_particles': 4, 'kernel_update_ratio': 0.1}, '0 updated'),
    ({'value_n_particles': 0}, 'value_n_particles'),
])
def test_bad_particle_counts_are_refused(config, message):
    with pytest.raises(ValueError, match=message):
        make_sql(**config)


def test_sql_refuses_a_policy_without_particles():
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    gaussian = policies.get({'class_name': 'FeedforwardGaussianPolicy',
                             'config': {'hidden_layer_sizes': (8,)}}, env)
    with pytest.raises(ValueError, match='FeedforwardSamplingPolicy'):
        algorithms.get({'class_name': 'SQL', 'config': {}},
                       training_environment=env, policy=gaussian, Qs=(),
                       pool=None, sampler=None)
