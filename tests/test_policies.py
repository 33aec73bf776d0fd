import numpy as np
import pytest
import tensorflow as tf
from scipy import stats

from softlearning.policies import FeedforwardGaussianPolicy, UniformPolicy

OBSERVATION_SHAPES = {'position': (3,), 'velocity': (2,)}
ACTION_SHAPE = (2,)


def make_policy(**kwargs):
    return FeedforwardGaussianPolicy(OBSERVATION_SHAPES, ACTION_SHAPE,
                                     hidden_layer_sizes=(16, 16), seed=0,
                                     **kwargs)


def observations(batch_size, seed=0):
    rng = np.random.default_rng(seed)
    return {key: rng.standard_normal((batch_size, *shape)).astype(np.float32)
            for key, shape in OBSERVATION_SHAPES.items()}


def test_shapes_and_bounds():
    policy = make_policy()
    actions, log_probs = policy.actions_and_log_probs(observations(7))
    assert actions.shape == (7, 2) and log_probs.shape == (7, 1)
    assert np.all(np.abs(actions.numpy()) <= 1.0)
    assert policy.actions_np(observations(7)).shape == (7, 2)
    assert policy.action({k: v[0] for k, v in observations(1).items()}).shape == (2,)


def test_log_probs_match_reference_computation():
    """log pi(a|s) = sum_i [log N(u_i; mu_i, sigma_i) - log(1 - tanh(u_i)^2)]."""
    # Keras' initial weights come from global random state, which depends on
    # what ran before; an action saturating at +-1 in float32 would make the
    # float64 reference's atanh inaccurate, so fix the weights.
    tf.keras.utils.set_random_seed(0)
    policy = make_policy()
    obs = observations(64)
    actions, log_probs = policy.actions_and_log_probs(obs, seed=(1, 2))
    inputs = np.concatenate([obs['position'], obs['velocity']], axis=-1)
    shift, log_scale = np.split(
        policy.shift_and_log_scale_model(inputs).numpy(), 2, axis=-1)
    log_scale = np.clip(log_scale, -20, 2)
    raw = np.arctanh(np.clip(actions.numpy().astype(np.float64), -1 + 1e-7, 1 - 1e-7))
    reference = np.sum(
        stats.norm.logpdf(raw, shift, np.exp(log_scale))
        - np.log(1 - np.tanh(raw) ** 2), axis=-1, keepdims=True)
    # Where a float32 action is within ~1e-3 of +-1, atanh of it (u, as the
    # reference and ``log_probs`` of given actions recover it) is off by far
    # more than the tolerance; the sampled log-probabilities keep u itself.
    # Compare where atanh is exact: most of the batch.
    exact = np.all(np.abs(actions.numpy()) < 1 - 1e-3, axis=-1)
    assert exact.sum() >= 48, exact.sum()
    np.testing.assert_allclose(log_probs.numpy()[exact], reference[exact],
                               rtol=1e-3, atol=2e-3)
    # log_probs of given actions agrees with the sampled ones.
    np.testing.assert_allclose(policy.log_probs(obs, actions).numpy()[exact],
                               log_probs.numpy()[exact], rtol=1e-3, atol=2e-3)


def test_seeded_sampling_is_reproducible():
    policy = make_policy()
    obs = observations(5)
    first, _ = policy.actions_and_log_probs(obs, seed=(3, 4))
    second, _ = policy.actions_and_log_probs(obs, seed=(3, 4))
    third, _ = policy.actions_and_log_probs(obs, seed=(5, 6))
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert not np.allclose(first.numpy(), third.numpy())


def test_deterministic_mode_is_tanh_of_mean_and_numpy_mirror_matches():
    policy = make_policy()
    obs = observations(9)
    with policy.set_deterministic():
        tf_actions = policy.actions(obs).numpy()
        np_actions = policy.actions_np(obs)
        again = policy.actions_np(obs)
    np.testing.assert_allclose(tf_actions, np_actions, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np_actions, again)
    assert not policy.deterministic
    # Stochastic numpy actions vary around the deterministic ones.
    assert not np.allclose(policy.actions_np(obs), np_actions)


def test_weights_round_trip_refreshes_numpy_mirror():
    source, target = make_policy(), make_policy()
    target.set_weights([w + 1.0 for w in source.get_weights()])
    target.set_weights(source.get_weights())
    for a, b in zip(source.get_weights(), target.get_weights()):
        np.testing.assert_array_equal(a, b)
    obs = observations(4)
    with source.set_deterministic(), target.set_deterministic():
        np.testing.assert_allclose(source.actions_np(obs),
                                   target.actions_np(obs))


def test_uniform_policy():
    policy = UniformPolicy(OBSERVATION_SHAPES, ACTION_SHAPE, seed=0)
    actions = policy.actions_np(observations(1000))
    assert actions.shape == (1000, 2)
    assert actions.min() >= -1 and actions.max() <= 1
    assert abs(actions.mean()) < 0.05
    tf_actions, log_probs = policy.actions_and_log_probs(observations(3))
    assert tf_actions.shape == (3, 2)
    np.testing.assert_allclose(log_probs.numpy(), -2 * np.log(2.0))
    assert policy.get_weights() == []


def test_registry_rejects_unknown_policy():
    from softlearning import policies
    with pytest.raises(ValueError, match="Unknown policy 'Gauss'.*FeedforwardGaussianPolicy"):
        policies.get({'class_name': 'Gauss'}, env=None)


def test_sampled_log_probs_stay_exact_with_the_scale_at_its_floor_under_xla():
    """A sampled action's Gaussian log-density comes from its draw: with
    sigma at its floor (e^-20) and |mu| in the hundreds, as an actor gave
    on dog-run, forming u / sigma - mu / sigma from u = mu + sigma * eps
    (one fused multiply-add under XLA) turned a log density of about 40
    into millions below zero."""
    policy = make_policy()
    weights = policy.get_weights()
    weights[-2] = np.zeros_like(weights[-2])
    shift = np.array([250.0, -120.0], np.float32)
    weights[-1] = np.array([*shift, -30.0, -30.0], np.float32)  # -> -20
    policy.set_weights(weights)
    obs = observations(256)
    seed = tf.constant([3, 4], tf.int32)
    sample = tf.function(lambda o: policy.actions_and_log_probs(o, seed=seed),
                         jit_compile=True)
    _, log_probs = sample(obs)
    # The same draw, under XLA too (XLA's stateless normal is its own).
    noise = tf.function(lambda: tf.random.stateless_normal((256, 2), seed),
                        jit_compile=True)().numpy().astype(np.float64)
    raw = shift + np.exp(-20.0) * noise
    reference = np.sum(
        -0.5 * noise ** 2 + 20.0 - 0.5 * np.log(2 * np.pi)
        - 2 * (np.log(2.0) - np.abs(raw) - np.log1p(np.exp(-2 * np.abs(raw)))),
        axis=-1, keepdims=True)
    np.testing.assert_allclose(log_probs.numpy(), reference, rtol=1e-5)
