"""Small algorithms on Pendulum-v1, built in-process, for component tests."""

import tensorflow as tf

from softlearning import (algorithms, environments, policies, replay_pools,
                          samplers, value_functions)
from softlearning.utils.random import set_seed

POLICY_CLASSES = {'SAC': 'FeedforwardGaussianPolicy',
                  'SQL': 'FeedforwardSamplingPolicy',
                  'TD3': 'FeedforwardDeterministicPolicy',
                  'DDPG': 'FeedforwardDeterministicPolicy',
                  'TQC': 'FeedforwardGaussianPolicy',
                  'REDQ': 'FeedforwardGaussianPolicy',
                  'DroQ': 'FeedforwardGaussianPolicy',
                  'CrossQ': 'FeedforwardGaussianPolicy',
                  'FastTD3': 'FeedforwardDeterministicPolicy',
                  'FastSAC': 'FeedforwardGaussianPolicy'}


def make_algorithm(class_name, seed=0, pool_size=2000,
                   Q_class='double_feedforward_Q_function', Q_config=None,
                   policy_config=None, precision='float32',
                   environment=('gym', 'Pendulum', 'v1'), **config):
    """(algorithm, env, policy, pool, sampler, uniform policy);
    ``Q_config`` and ``policy_config`` add to the networks' config;
    ``precision``: the update's, which the networks are built with (as
    the trainable builds them); ``environment``: (universe, domain,
    task)."""
    set_seed(seed)
    env = environments.get_environment(*environment)
    policy = policies.get({'class_name': POLICY_CLASSES[class_name],
                           'config': {'hidden_layer_sizes': (16, 16),
                                      **(policy_config or {})}},
                          env, seed=seed, precision=precision)
    Qs = value_functions.get({'class_name': Q_class,
                              'config': {'hidden_layer_sizes': (16, 16),
                                         **(Q_config or {})}}, env,
                             precision=precision)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': pool_size}}, env, seed=seed)
    sampler = samplers.get({'class_name': 'SimpleSampler',
                            'config': {'max_path_length': 200}}, seed=seed)
    sampler.initialize(env, policy, pool)
    uniform = policies.get({'class_name': 'UniformPolicy'}, env, seed=seed + 1)
    params = {'n_epochs': 2, 'epoch_length': 200, 'batch_size': 32,
              'n_initial_exploration_steps': 100, 'eval_n_episodes': 1,
              'max_path_length': 200, 'precision': precision, **config}
    algorithm = algorithms.get({'class_name': class_name, 'config': params},
                               training_environment=env,
                               evaluation_environment=env, policy=policy,
                               Qs=Qs, pool=pool, sampler=sampler,
                               initial_exploration_policy=uniform, seed=seed)
    return algorithm, env, policy, pool, sampler, uniform


def fill_pool(pool, sampler, uniform, n=300):
    sampler.sample(n, uniform)


def filled_algorithm(class_name, seed=3, **settings):
    """(algorithm, policy, pool) of ``make_algorithm``, the pool holding
    300 uniform transitions."""
    algorithm, _, policy, pool, sampler, uniform = make_algorithm(
        class_name, seed=seed, **settings)
    fill_pool(pool, sampler, uniform)
    return algorithm, policy, pool


def as_tensors(batch):
    return tf.nest.map_structure(tf.convert_to_tensor, batch)


def checkpointed_variables(algorithm):
    """{name: [tf.Variable]}: every number a checkpoint keeps (networks'
    weights with their running statistics, optimizer slots, the random
    generators' states (DroQ's dropout generator hangs off its critics),
    the update counter, SAC's temperature, ...). Setting them back
    (``assign_values``) lets one algorithm run two updates from the same
    state, instead of building and tracing two."""
    variables = {}
    for name, saveable in algorithm.tf_saveables().items():
        found = [saveable] if isinstance(saveable, tf.Variable) else list(
            getattr(saveable, 'variables', ()))
        found += [trackable for trackable
                  in tf.train.TrackableView(saveable).descendants()
                  if isinstance(trackable, tf.Variable)]
        variables[name] = list({v.ref(): v for v in found}.values())
    return variables


def values_of(variables):
    return {name: [v.numpy() for v in vs] for name, vs in variables.items()}


def assign_values(variables, values):
    for name, vs in variables.items():
        for variable, value in zip(vs, values[name]):
            variable.assign(value)


def assert_fused_equals_single(class_name, n_updates=6, **config):
    """K updates in one compiled call == K calls of one update each, on the
    same minibatches (the fusion changes dispatch, not the math). Returns
    the two algorithms."""
    import numpy as np
    fused, _, _, pool, sampler, uniform = make_algorithm(class_name, seed=3,
                                                         **config)
    single = make_algorithm(class_name, seed=3, **config)[0]
    fill_pool(pool, sampler, uniform)
    batches = pool.random_batches(n_updates, 32)
    fused._fused_updates(as_tensors(batches))
    for i in range(n_updates):
        single._fused_updates(as_tensors(
            tf.nest.map_structure(lambda x: x[i:i + 1], batches)))
    pairs = [(fused._policy.get_weights(), single._policy.get_weights())]
    pairs += [(a.get_weights(), b.get_weights())
              for a, b in zip(fused.Qs + fused.Q_targets,
                              single.Qs + single.Q_targets)]
    for weights_a, weights_b in pairs:
        for a, b in zip(weights_a, weights_b):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert (int(fused._train_step_counter)
            == int(single._train_step_counter) == n_updates)
    return fused, single


def assert_numpy_policy_acts_as_tensorflow(class_name, policy_config,
                                           n_updates=3, **settings):
    """After ``n_updates`` (normalization statistics moved), the learner's
    numpy mirror and the TensorFlow-free policy of sampler actors (built
    from the same ``policy_config``, loaded with the learner's weights)
    act as the TensorFlow policy's deterministic actions. Returns the
    algorithm, for further checks on it."""
    import numpy as np
    from softlearning import environments
    from softlearning.policies import get_numpy_policy
    algorithm, policy, pool = filled_algorithm(
        class_name, policy_config=policy_config, **settings)
    # As the training loop does: the update returns the values the numpy
    # mirror is loaded from.
    algorithm._do_training(pool.random_batches(n_updates, 32))
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    numpy_policy = get_numpy_policy(
        {'class_name': POLICY_CLASSES[class_name],
         'config': {'hidden_layer_sizes': (16, 16), **policy_config}}, env)
    numpy_policy.set_weights(policy.get_weights())
    observations = pool.random_batch(10)['observations']
    with policy.set_deterministic(True), \
            numpy_policy.set_deterministic(True):
        expected = policy.actions(as_tensors(observations)).numpy()
        np.testing.assert_allclose(policy.actions_np(observations), expected,
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(numpy_policy.actions_np(observations),
                                   expected, rtol=1e-4, atol=1e-5)
    return algorithm


def assert_numpy_mirror_matches(model, numpy_class, atol):
    """A running-normalized network's numpy mirror (``numpy_class`` on its
    layer weights) == the Keras model, after every weight and the
    normalization's statistics moved off their starting values."""
    import numpy as np
    from softlearning.models.feedforward import layer_weights
    from softlearning.models.simba import running_normalizations
    rng = np.random.default_rng(1)
    running_normalizations(model)[0].update(
        rng.normal(3.0, 2.0, (50, 4)).astype(np.float32))
    model.set_weights([w + rng.normal(0, 0.1, w.shape).astype(np.float32)
                       for w in model.get_weights()])
    x = rng.normal(2.0, 2.0, (16, 6)).astype(np.float32)
    np.testing.assert_allclose(numpy_class(layer_weights(model))(x),
                               model(x).numpy(), rtol=1e-4, atol=atol)
