"""The numpy-only policies that sampler actors act with."""

import numpy as np
import pytest
from scipy import stats

from conftest import run_python
from softlearning.policies import (FeedforwardGaussianPolicy,
                                   FeedforwardSamplingPolicy,
                                   NumpyGaussianPolicy, NumpySamplingPolicy,
                                   NumpyUniformPolicy, get_numpy_policy)

OBSERVATION_SHAPES = {'position': (3,), 'velocity': (2,)}
ACTION_SHAPE = (2,)


def observations(batch_size, seed=0):
    rng = np.random.default_rng(seed)
    return {key: rng.standard_normal((batch_size, *shape)).astype(np.float32)
            for key, shape in OBSERVATION_SHAPES.items()}


# Each TensorFlow policy and its numpy half.
POLICY_PAIRS = [(FeedforwardGaussianPolicy, NumpyGaussianPolicy),
                (FeedforwardSamplingPolicy, NumpySamplingPolicy)]


@pytest.mark.parametrize('tf_class, numpy_class', POLICY_PAIRS)
@pytest.mark.parametrize('activation', ['relu', 'tanh'])
def test_deterministic_actions_match_tensorflow_policy(activation, tf_class,
                                                       numpy_class):
    config = {'hidden_layer_sizes': (16, 16), 'activation': activation,
              'observation_keys': ('velocity', 'position')}
    learner = tf_class(OBSERVATION_SHAPES, ACTION_SHAPE, seed=0, **config)
    actor = numpy_class(OBSERVATION_SHAPES, ACTION_SHAPE, seed=1, **config)
    obs = observations(32)
    with actor.set_deterministic(), learner.set_deterministic():
        assert not np.allclose(actor.actions_np(obs), learner.actions_np(obs))
        actor.set_weights(learner.get_weights())
        np.testing.assert_allclose(actor.actions_np(obs),
                                   learner.actions(obs).numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(actor.actions_np(obs),
                                      learner.actions_np(obs))
    for actor_w, learner_w in zip(actor.get_weights(), learner.get_weights()):
        np.testing.assert_array_equal(actor_w, learner_w)
    # ... and the other way round: numpy weights (another actor's, or a
    # checkpoint's) act the same in the TensorFlow policy.
    other = numpy_class(OBSERVATION_SHAPES, ACTION_SHAPE, seed=7, **config)
    learner.set_weights(other.get_weights())
    with other.set_deterministic(), learner.set_deterministic():
        np.testing.assert_allclose(other.actions_np(obs),
                                   learner.actions(obs).numpy(),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('tf_class, numpy_class', POLICY_PAIRS)
def test_same_seed_samples_the_same_as_tensorflow_policy_actions_np(
        tf_class, numpy_class):
    """One sampling implementation: same weights and seed, same actions."""
    learner = tf_class(OBSERVATION_SHAPES, ACTION_SHAPE,
                       hidden_layer_sizes=(8,), seed=5)
    actor = numpy_class(OBSERVATION_SHAPES, ACTION_SHAPE,
                        hidden_layer_sizes=(8,), seed=5)
    actor.set_weights(learner.get_weights())
    actor.set_np_random_state(learner.get_np_random_state())
    obs = observations(16)
    np.testing.assert_allclose(actor.actions_np(obs), learner.actions_np(obs),
                               rtol=1e-6, atol=1e-7)


def constant_output_policy(shift, log_scale, seed=0):
    """A policy whose network outputs (shift, log_scale) for any input: a
    zero last kernel and those values as its bias."""
    policy = NumpyGaussianPolicy(OBSERVATION_SHAPES, ACTION_SHAPE,
                                 hidden_layer_sizes=(4,), seed=seed)
    weights = policy.get_weights()
    weights[-2] = np.zeros_like(weights[-2])
    weights[-1] = np.array([*shift, *log_scale], np.float32)
    policy.set_weights(weights)
    return policy


def test_samples_are_tanh_of_gaussian_with_clipped_log_scale():
    shift, log_scale = np.array([0.3, -0.5]), np.array([-1.0, -0.3])
    policy = constant_output_policy(shift, log_scale)
    actions = policy.actions_np(observations(20000)).astype(np.float64)
    assert actions.shape == (20000, 2) and np.all(np.abs(actions) < 1)
    raw = np.arctanh(actions)
    for i in range(2):
        p_value = stats.kstest(raw[:, i], 'norm',
                               args=(shift[i], np.exp(log_scale[i]))).pvalue
        assert p_value > 1e-3, (i, p_value)
    with policy.set_deterministic():
        np.testing.assert_allclose(policy.action(
            {k: v[0] for k, v in observations(1).items()}), np.tanh(shift),
            rtol=1e-6)
    # log-scale 5 is clipped to 2: the share of saturated actions is that
    # of N(0, e^2) (~0.72), not that of N(0, e^5) (~0.99).
    wide = constant_output_policy([0.0, 0.0], [5.0, 5.0])
    saturated = np.mean(np.abs(wide.actions_np(observations(20000))) > 0.99)
    expected = 2 * stats.norm.sf(np.arctanh(0.99) / np.exp(2.0))
    assert abs(saturated - expected) < 0.02
    # ... and -30 to -20: no visible noise.
    narrow = constant_output_policy([0.2, 0.2], [-30.0, -30.0])
    np.testing.assert_allclose(narrow.actions_np(observations(100)),
                               np.tanh(0.2), rtol=1e-6)


def test_weights_of_another_architecture_are_rejected():
    policy = NumpyGaussianPolicy(OBSERVATION_SHAPES, ACTION_SHAPE,
                                 hidden_layer_sizes=(8,))
    other = NumpyGaussianPolicy(OBSERVATION_SHAPES, ACTION_SHAPE,
                                hidden_layer_sizes=(8, 8))
    with pytest.raises(ValueError, match='do not fit'):
        policy.set_weights(other.get_weights())


def test_uniform_policy_statistics():
    policy = NumpyUniformPolicy(OBSERVATION_SHAPES, ACTION_SHAPE, seed=3)
    actions = policy.actions_np(observations(20000))
    assert actions.shape == (20000, 2) and actions.dtype == np.float32
    assert np.all(np.abs(actions) <= 1.0)
    assert stats.kstest(actions.ravel(), 'uniform',
                        args=(-1.0, 2.0)).pvalue > 1e-3
    with policy.set_deterministic():
        np.testing.assert_array_equal(policy.actions_np(observations(3)), 0.0)


def test_registry_builds_numpy_versions_of_the_variant_policies():
    class Spaces:
        observation_shapes, action_shape = OBSERVATION_SHAPES, ACTION_SHAPE
    gaussian = get_numpy_policy({'class_name': 'FeedforwardGaussianPolicy',
                                 'config': {'hidden_layer_sizes': (8,)}},
                                Spaces())
    assert isinstance(gaussian, NumpyGaussianPolicy)
    assert isinstance(get_numpy_policy({'class_name': 'UniformPolicy'},
                                       Spaces()), NumpyUniformPolicy)
    with pytest.raises(ValueError, match='UniformPolicy'):
        get_numpy_policy({'class_name': 'Nope'}, Spaces())


ACTOR_SCRIPT = """
import sys
import numpy as np
import softlearning.policies.numpy_policies
from softlearning.samplers.remote_sampler import SamplerWorker
worker = SamplerWorker(
    {'universe': 'gym', 'domain': 'HalfCheetah', 'task': 'v5', 'kwargs': {}},
    {'class_name': 'FeedforwardGaussianPolicy',
     'config': {'hidden_layer_sizes': (8, 8)}},
    {'class_name': 'UniformPolicy', 'config': {}}, 20, seed=0)
weights = [w + 0.1 for w in worker.get_weights()]
batch = worker.sample(25, 'policy', weights, 1)
worker.sample(5, 'exploration')
assert batch['samples']['actions'].shape == (25, 6)
assert all(np.array_equal(a, b) for a, b in zip(worker.get_weights(),
                                                weights))
print('tensorflow loaded:', 'tensorflow' in sys.modules)
"""


def test_sampler_actor_code_path_never_loads_tensorflow():
    result = run_python(ACTOR_SCRIPT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'tensorflow loaded: False' in result.stdout


def test_goal_conditioned_policy_mirror_matches_tensorflow():
    """A Fetch task's Dict observation (observation, achieved_goal,
    desired_goal), all three read: the sampler actors' numpy policy acts
    as the learner's TensorFlow one, on real observations."""
    pytest.importorskip('gymnasium_robotics')
    from softlearning.environments import get_environment
    environment = get_environment('gym', 'FetchPush', 'v4', {})
    shapes = environment.observation_shapes
    assert set(shapes) == {'observation', 'achieved_goal', 'desired_goal'}
    rng = np.random.default_rng(0)
    steps = []
    observation = environment.reset(seed=0)
    for _ in range(16):
        steps.append(observation)
        observation = environment.step(
            rng.uniform(-1, 1, 4).astype(np.float32))[0]
    environment.close()
    batch = {key: np.stack([step[key] for step in steps]) for key in shapes}
    config = {'hidden_layer_sizes': (32, 32), 'observation_keys': None}
    learner = FeedforwardGaussianPolicy(shapes, (4,), seed=0, **config)
    actor = NumpyGaussianPolicy(shapes, (4,), seed=1, **config)
    actor.set_weights(learner.get_weights())
    with actor.set_deterministic(), learner.set_deterministic():
        np.testing.assert_allclose(actor.actions_np(batch),
                                   learner.actions(batch).numpy(),
                                   rtol=1e-5, atol=1e-6)
        # One observation at a time, as an actor steps: the same actions.
        single = np.concatenate([
            actor.actions_np({key: value[i:i + 1]
                              for key, value in batch.items()})
            for i in range(len(steps))])
        np.testing.assert_array_equal(single, actor.actions_np(batch))
