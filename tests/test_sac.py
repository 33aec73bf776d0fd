import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import as_tensors, fill_pool, make_algorithm
from softlearning.algorithms.target_networks import update_targets


def make_sac(seed=0, pool_size=2000, **config):
    return make_algorithm('SAC', seed=seed, pool_size=pool_size, **config)


def test_target_entropy_auto_is_minus_action_dimension():
    sac = make_sac()[0]
    assert sac._target_entropy == -1.0
    assert make_sac(target_entropy=-0.5)[0]._target_entropy == -0.5


@pytest.mark.parametrize('form', ['alpha', 'log_alpha'])
def test_temperature_loss_forms(form):
    """'alpha' scales the entropy's shortfall by the temperature (CleanRL's),
    'log_alpha' by its logarithm (SB3's); both raise the temperature while
    the entropy is below its target (-1 here: log pi = 2 is an entropy of
    -2)."""
    sac = make_sac(initial_alpha=0.1, temperature_loss=form)[0]
    log_pis = tf.fill((8, 1), 2.0)
    loss = float(sac._update_alpha(log_pis, {}))
    scale = np.log(0.1) if form == 'log_alpha' else 0.1
    assert loss == pytest.approx(-scale * (2.0 - 1.0), rel=1e-5)
    assert sac.alpha > 0.1


def test_an_unknown_temperature_loss_is_one_error_before_the_run():
    with pytest.raises(ValueError, match="valid: alpha, log_alpha"):
        make_sac(temperature_loss='log')
    from softlearning.experiments import variant_spec
    with pytest.raises(ValueError, match="temperature_loss takes one of "
                                         "alpha, log_alpha"):
        variant_spec(algorithm='CrossQ', config={
            'algorithm_params.config.temperature_loss': 'log'})
    spec = variant_spec(algorithm='CrossQ', config={
        'algorithm_params.config.temperature_loss': 'log_alpha'})
    assert spec['algorithm_params']['config']['temperature_loss'] == (
        'log_alpha')


def test_targets_start_as_copies_and_follow_polyak_arithmetic():
    sac = make_sac()[0]
    for Q, Q_target in zip(sac.Qs, sac.Q_targets):
        for w, w_target in zip(Q.get_weights(), Q_target.get_weights()):
            np.testing.assert_array_equal(w, w_target)
    for Q in sac.Qs:
        Q.set_weights([np.full_like(w, 2.0) for w in Q.get_weights()])
    for Q_target in sac.Q_targets:
        Q_target.set_weights([np.full_like(w, 1.0)
                              for w in Q_target.get_weights()])
    update_targets(sac._target_variable_pairs, 0.25)  # 0.25 * 2 + 0.75 * 1
    for Q_target in sac.Q_targets:
        for w in Q_target.get_weights():
            np.testing.assert_allclose(w, 1.25, rtol=1e-6)


def test_terminals_stop_bootstrapping_truncations_do_not():
    sac, env, policy, pool, sampler, uniform = make_sac(
        discount=0.9, reward_scale=2.0)
    fill_pool(pool, sampler, uniform)
    batch = pool.random_batch(8)
    batch['terminals'][:] = 0.0
    batch['terminals'][:4] = 1.0
    alpha, seed = tf.constant(0.5), tf.constant([7, 8], dtype=tf.int32)
    targets = sac._y_for(as_tensors(batch), alpha, seed).numpy()

    # Reference: the same next actions (same seed), computed by hand.
    next_actions, next_log_pis = policy.actions_and_log_probs(
        batch['next_observations'], seed=seed)
    next_Q = np.minimum(
        *[Q(batch['next_observations'], next_actions).numpy()
          for Q in sac.Q_targets])
    soft_value = next_Q - 0.5 * next_log_pis.numpy()
    rewards = batch['rewards']
    np.testing.assert_allclose(targets[:4], 2.0 * rewards[:4], rtol=1e-6)
    np.testing.assert_allclose(
        targets[4:], 2.0 * rewards[4:] + 0.9 * soft_value[4:], rtol=1e-5)


@pytest.mark.parametrize('start, n, every, repeat, expected', [
    (0, 50, 1, 1, 50), (0, 50, 2, 1, 25), (1, 4, 2, 3, 6), (3, 1, 4, 1, 1),
    (0, 3, 4, 1, 0),
])
def test_updates_owed(start, n, every, repeat, expected):
    sac = make_sac(train_every_n_steps=every, n_train_repeat=repeat,
                   fused_steps=every * 4)[0]
    assert sac._updates_owed(start, n) == expected


def test_fused_steps_must_be_multiple_of_train_every_n_steps():
    with pytest.raises(ValueError, match='multiple'):
        make_sac(train_every_n_steps=3, fused_steps=4)


def test_training_epochs_yield_diagnostics():
    sac = make_sac(fused_steps=25)[0]
    epochs = list(sac.train())
    assert [d['epoch'] for d in epochs] == [1, 2]
    last = epochs[-1]
    assert last['total_timestep'] == 400
    # 300 steps after the 100 warm-up steps, one update each.
    assert last['num_train_steps'] == 300
    for key in ('Q_loss', 'policy_loss', 'alpha_loss', 'alpha', 'entropy',
                'Q_value-mean'):
        assert np.isfinite(last[key]), key
    assert np.isfinite(last['evaluation']['return-mean'])
    assert last['evaluation']['episode-length-mean'] == 200
    assert set(last['times']) >= {'sample', 'train', 'evaluation', 'epoch'}
    # Same columns in every epoch, even without updates.
    assert set(epochs[0]) == set(last)
