"""The parts the fused update skeleton is built with (critic heads, target
copies, observation statistics, minibatch augmentation, learning-rate
schedule), each on its own: what it computes, and that "off" changes
nothing. The algorithms built from them are covered by the algorithm and
conformance tests (fused == single, exact resume)."""

import types

import numpy as np
import pytest
import tensorflow as tf

from softlearning.algorithms.augmentation import batch_augmentation
from softlearning.algorithms.critic_heads import (CategoricalHead, ScalarHead,
                                                  critic_head)
from softlearning.algorithms.learning_rate_decay import learning_rate_schedule
from softlearning.algorithms.observation_statistics import (
    ObservationStatistics)
from softlearning.algorithms.target_networks import (target_copies,
                                                     unique_variables,
                                                     update_targets)
from softlearning.models.simba import simba_model


def plain_mean(values):
    return tf.reduce_mean(values)


def backup(next_values):
    """A Bellman backup with r = 1 and discount 0.5."""
    return 1.0 + 0.5 * next_values


def test_scalar_head_backs_up_the_smaller_target_and_halves_the_square():
    head = ScalarHead()
    first, second = tf.constant([[1.0], [4.0]]), tf.constant([[2.0], [3.0]])
    entropy = tf.constant([[0.5], [1.0]])
    y = head.targets([first, second], entropy, backup).numpy()
    np.testing.assert_allclose(y, [[1.0 + 0.5 * 0.5], [1.0 + 0.5 * 2.0]])
    outputs = tf.constant([[1.0], [3.0]])
    assert float(head.estimate(outputs)[1, 0]) == 3.0
    assert float(head.loss(outputs, tf.constant(y), plain_mean)) == (
        pytest.approx(0.5 * np.mean((np.array([1.0, 3.0])
                                     - y[:, 0]) ** 2)))


def test_categorical_head_reads_expected_values_and_projects_targets():
    support = tf.linspace(-2.0, 2.0, 5)
    head = CategoricalHead(support)
    logits = tf.constant([[0.0, 0.0, 5.0, 0.0, 0.0],
                          [0.0, 0.0, 0.0, 0.0, 9.0]])
    values = head.estimate(logits).numpy()[:, 0]
    assert values[0] == pytest.approx(0.0, abs=1e-6) and values[1] > 1.9
    y = head.targets([logits, logits + 1.0], 0.0, backup).numpy()
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-6)
    # The second sample's mass sits at 2.0, backed up to 1 + 0.5 * 2 = 2.
    assert y[1, -1] > 0.99
    loss = float(head.loss(logits, tf.constant(y), plain_mean))
    expected = -np.mean((y * tf.nn.log_softmax(logits).numpy()).sum(-1))
    assert loss == pytest.approx(expected, rel=1e-5)


def critic(support=None, batch_renorm=False):
    """What the parts read of a critic: its support and its
    normalization (the rest is the Q-function's own)."""
    return types.SimpleNamespace(support=support, batch_renorm=batch_renorm)


def test_critic_head_follows_the_critics_and_refuses_what_the_agent_cannot_train():
    assert isinstance(critic_head([critic(), critic()], 'TQC', False),
                      ScalarHead)
    support = [-1.0, 0.0, 1.0]
    head = critic_head([critic(support), critic(support)], 'SAC', True)
    assert isinstance(head, CategoricalHead)
    with pytest.raises(ValueError, match="TQC does not train categorical"):
        critic_head([critic(support)], 'TQC', False)
    with pytest.raises(ValueError, match="one support"):
        critic_head([critic(support), critic()], 'SAC', True)


def test_target_copies_none_when_unwanted_and_refused_for_batch_renorm():
    assert target_copies([critic(batch_renorm=True)], 'CrossQ', False) == ()
    with pytest.raises(ValueError, match="without target networks.*not SAC"):
        target_copies([critic(batch_renorm=True)], 'SAC', True)


def test_target_update_moves_each_pair_by_tau_once():
    shared = tf.Variable(2.0)
    sources = unique_variables([shared, tf.Variable(4.0), shared])
    assert len(sources) == 2
    targets = [tf.Variable(0.0), tf.Variable(0.0)]
    update_targets(list(zip(sources, targets)), 0.25)
    assert [float(t) for t in targets] == [0.5, 1.0]


def test_observation_statistics_moves_each_normalization_once():
    model = simba_model(3, [8], 1, ['observations'])
    other = types.SimpleNamespace(layers=())  # a network without one
    statistics = ObservationStatistics([model, model, other])
    assert len(statistics.layers) == 1
    observations = {'observations': tf.constant(
        [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])}
    statistics.update(observations)
    layer = statistics.layers[0]
    assert float(layer.count) == 2.0
    np.testing.assert_allclose(layer.mean.numpy(), [2.0, 2.0, 2.0])
    assert ObservationStatistics([other]).layers == ()


def image_batch():
    images = tf.reshape(tf.range(2 * 8 * 8 * 3, dtype=tf.float32),
                        (2, 8, 8, 3))
    return {'observations': {'pixels': images, 'state': tf.ones((2, 2))},
            'next_observations': {'pixels': images, 'state': tf.ones((2, 2))},
            'actions': tf.zeros((2, 1))}


def test_augmentation_off_returns_the_minibatch_itself():
    encoder = types.SimpleNamespace(config={'pixel_key': 'pixels'})
    generator = tf.random.Generator.from_seed(0)
    batch = image_batch()
    assert batch_augmentation(0, encoder, generator)(batch) is batch
    assert batch_augmentation(None, encoder, generator)(batch) is batch
    assert batch_augmentation(4, None, generator)(batch) is batch


def test_augmentation_shifts_only_the_images_and_draws_next_apart():
    encoder = types.SimpleNamespace(config={'pixel_key': 'pixels'})
    augment = batch_augmentation(4, encoder,
                                 tf.random.Generator.from_seed(3))
    batch = image_batch()
    augmented = augment(batch)
    for field in ('observations', 'next_observations'):
        assert augmented[field]['state'] is batch[field]['state']
        assert augmented[field]['pixels'].shape == (2, 8, 8, 3)
    assert not np.array_equal(augmented['observations']['pixels'],
                              augmented['next_observations']['pixels'])
    # The same generator state draws the same shifts (exact resume).
    again = batch_augmentation(4, encoder, tf.random.Generator.from_seed(3))
    np.testing.assert_array_equal(again(batch)['observations']['pixels'],
                                  augmented['observations']['pixels'])


def test_learning_rate_schedule_constant_or_linear_on_the_update_counter():
    counter = tf.Variable(0, dtype=tf.int64)
    assert learning_rate_schedule(None, 100, counter)(3e-4) == 3e-4
    rate = learning_rate_schedule(0.5, 100, counter)(1e-4)
    assert float(rate(0)) == pytest.approx(1e-4)
    counter.assign(50)
    assert float(rate(0)) == pytest.approx(0.75e-4)
    counter.assign(1000)
    assert float(rate(0)) == pytest.approx(0.5e-4)
    with pytest.raises(ValueError, match="lr_decay_to"):
        learning_rate_schedule(1.5, 100, counter)(1e-4)
