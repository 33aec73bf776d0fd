"""SimbaV2's settings beyond its networks: the linear learning-rate decay
(algorithms/learning_rate_decay.py), the discount from the episode length
(algorithms/discounts.py), and the actor's separate mean and log-std heads
(models/simbav2.py's HypersphericalHeads), each against a direct
computation."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_numpy_mirror_matches,
                               filled_algorithm, make_algorithm)
from conftest import assert_one_line_error, run_cli
from softlearning.algorithms.discounts import episode_length_discount
from softlearning.algorithms.learning_rate_decay import LinearDecay
from softlearning.models.numpy_simbav2 import NumpySimbaV2
from softlearning.models.simbav2 import simbav2_model

SIMBAV2 = {'network': 'simbav2', 'hidden_layer_sizes': (16,)}


@pytest.mark.parametrize('length, discount', [
    (200, 0.975), (1000, 0.995), (50, 0.95), (100, 0.95), (500, 0.99)])
def test_discount_follows_the_episode_length(length, discount):
    assert episode_length_discount(length) == pytest.approx(discount)


def test_auto_discount_is_the_episode_lengths():
    algorithm = make_algorithm('SAC', discount='auto',
                               max_path_length=200)[0]
    assert algorithm._discount == pytest.approx(0.975)


def test_linear_decay_reads_the_shared_update_counter():
    counter = tf.Variable(0, dtype=tf.int64)
    schedule = LinearDecay(1e-4, 0.5, n_updates=100, counter=counter)
    for updates, rate in [(0, 1e-4), (50, 7.5e-5), (100, 5e-5),
                          (300, 5e-5)]:
        counter.assign(updates)
        # The optimizer's own step (here 7) does not matter.
        assert float(schedule(7)) == pytest.approx(rate, rel=1e-6)
    with pytest.raises(ValueError, match='lr_decay_to must lie in'):
        LinearDecay(1e-4, 1.5, 100, counter)


def test_every_optimizer_decays_over_the_run():
    """n_epochs 2 x epoch_length 200 x 1 update per step: 400 updates;
    the 101st update (100 before it) steps at 7/8 of each start rate, on
    the way to half."""
    algorithm, _, pool = filled_algorithm('SAC', lr_decay_to=0.5,
                                          policy_lr=2e-4, Q_lr=4e-4)
    algorithm._fused_updates(as_tensors(pool.random_batches(101, 32)))
    expected = {'policy_optimizer': 2e-4 * 0.875, 'Q_optimizer': 4e-4 * 0.875,
                'alpha_optimizer': 3e-4 * 0.875}
    for name, rate in expected.items():
        optimizer = algorithm._optimizers[name]
        assert float(optimizer.learning_rate) == pytest.approx(rate,
                                                               rel=1e-5)


def test_heads_mirror_in_numpy_and_split_the_outputs():
    model = simbav2_model(6, (8,), 4, ('observations',), normalized_size=4,
                          output_heads=2)
    assert type(model.layers[-1]).__name__ == 'HypersphericalHeads'
    assert_numpy_mirror_matches(model, NumpySimbaV2, atol=1e-5)
    # The first head's outputs do not read the second head's weights.
    inputs = np.random.default_rng(0).normal(size=(5, 6)).astype(np.float32)
    before = model(inputs).numpy()
    second = model.layers[-1].heads[1]
    second.set_weights([w + 0.5 for w in second.get_weights()])
    after = model(inputs).numpy()
    np.testing.assert_allclose(after[:, :2], before[:, :2])
    assert not np.allclose(after[:, 2:], before[:, 2:])


def test_a_gaussian_policy_has_a_head_for_its_mean_and_its_log_std():
    """And a deterministic policy, or a critic, one head."""
    gaussian = make_algorithm('SAC', policy_config=SIMBAV2,
                              Q_config=SIMBAV2)[0]
    assert type(gaussian._policy.model.layers[-1]).__name__ == \
        'HypersphericalHeads'
    assert type(gaussian.Qs[0].model.layers[-1]).__name__ == \
        'HypersphericalOutput'
    deterministic = make_algorithm('TD3', policy_config=SIMBAV2)[0]
    assert type(deterministic._policy.model.layers[-1]).__name__ == \
        'HypersphericalOutput'


def test_a_discount_that_is_neither_auto_nor_a_number_is_one_line():
    result = run_cli('run_example_local', 'examples.development',
                     '--algorithm', 'SimbaV2', '--config',
                     'algorithm_params.config.discount=soon', timeout=120)
    assert_one_line_error(result, "takes 'auto' or a number")
