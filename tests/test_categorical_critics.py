"""Categorical critics (algorithms/categorical_critics.py,
``Q_params.config.categorical``): the C51 projection against a direct
numpy computation, SAC's target from the smaller target critic with the
entropy term, the cross-entropy loss, fused == single updates for SAC and
TD3, and the algorithms that do not train them saying so."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (as_tensors, assert_fused_equals_single,
                               filled_algorithm, make_algorithm)
from softlearning.algorithms.categorical_critics import project_onto_support

CATEGORICAL = {'categorical': {'n_atoms': 11, 'v_min': -2.0, 'v_max': 3.0}}


def numpy_projection(probabilities, rewards, discounts, entropies, support):
    """C51's projection, one atom at a time: the mass of atom j moves to
    Tz_j = clip(r + discount * (z_j - entropy)), split between the atoms
    either side of it."""
    v_min, v_max = support[0], support[-1]
    spacing = (v_max - v_min) / (len(support) - 1)
    projected = np.zeros_like(probabilities)
    for b in range(len(probabilities)):
        for j, z in enumerate(support):
            target = np.clip(rewards[b] + discounts[b] * (z - entropies[b]),
                             v_min, v_max)
            position = (target - v_min) / spacing
            lower, upper = int(np.floor(position)), int(np.ceil(position))
            p = probabilities[b, j]
            if lower == upper:
                projected[b, lower] += p
            else:
                projected[b, lower] += p * (upper - position)
                projected[b, upper] += p * (position - lower)
    return projected


def fixed_batch(n=6, n_atoms=11, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, n_atoms))
    probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    # Targets inside, outside (clipped) and exactly on atoms (r = 0.5,
    # discount 1, entropy 0 moves every atom by one spacing).
    rewards = np.array([0.3, -4.0, 5.0, 0.5, 0.0, 1.7])[:n]
    discounts = np.array([0.99, 0.99, 0.9, 1.0, 0.0, 0.5])[:n]
    entropies = np.array([0.1, -0.2, 0.0, 0.0, 0.3, 1.0])[:n]
    return probabilities.astype(np.float32), rewards, discounts, entropies


def test_projection_equals_numpy():
    support = np.linspace(-2.0, 3.0, 11).astype(np.float32)
    probabilities, rewards, discounts, entropies = fixed_batch()
    atoms = (rewards[:, None]
             + discounts[:, None] * (support[None] - entropies[:, None]))
    projected = project_onto_support(
        tf.constant(probabilities), tf.constant(atoms, tf.float32),
        tf.constant(support)).numpy()
    expected = numpy_projection(probabilities, rewards, discounts, entropies,
                                support)
    np.testing.assert_allclose(projected, expected, atol=1e-5)
    np.testing.assert_allclose(projected.sum(-1), 1.0, rtol=1e-5)


def test_projection_keeps_every_mass_at_the_supports_ends():
    """Targets at v_min, beyond v_max and at v_max (the last sample: its
    bins end the flattened batch), with the critics' own support: compiled,
    (v_max - v_min) / (N - 1) becomes a product with 1 / (N - 1), v_max's
    position rounds past the last atom, and its mass must still land there
    (it raised an out-of-range index without XLA and was dropped with it)."""
    support = np.linspace(-5.0, 5.0, 101, dtype=np.float32)
    probabilities = np.full((3, 101), 1 / 101, np.float32)
    atoms = np.stack([np.full(101, -5.0), np.full(101, 7.0),
                      np.full(101, 5.0)]).astype(np.float32)
    expected = np.zeros((3, 101))
    expected[0, 0] = expected[1, -1] = expected[2, -1] = 1.0
    for jit_compile in (False, True):
        projected = tf.function(project_onto_support,
                                jit_compile=jit_compile)(
            tf.constant(probabilities), tf.constant(atoms),
            tf.constant(support)).numpy()
        np.testing.assert_allclose(projected, expected, atol=1e-6)


def smaller_target_probabilities(algorithm, batch, next_actions):
    """Per sample, the distribution of the target critic whose expected
    value at (s', a') is the smaller, computed directly: (B, N)."""
    logits = np.stack([Q(batch['next_observations'], next_actions).numpy()
                       for Q in algorithm.Q_targets])
    probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    smaller = np.argmin((probabilities * algorithm.Qs[0].support).sum(-1),
                        axis=0)
    return probabilities[smaller, np.arange(logits.shape[1])]


def test_sac_target_is_the_smaller_target_critics_projected():
    """SAC's categorical target on a minibatch: per sample the target
    critic of smaller expected value, its distribution projected from
    reward_scale * r + discount * (1 - d) * (z - alpha * log pi)."""
    algorithm, _, pool = filled_algorithm('SAC', Q_config=CATEGORICAL,
                                          reward_scale=0.5, discount=0.9)
    batch = as_tensors(pool.random_batch(16))
    batch['terminals'] = tf.constant(
        np.arange(16)[:, None] % 4 == 0, tf.float32)  # some terminals
    rng = np.random.default_rng(2)
    next_actions = tf.constant(rng.uniform(-1, 1, (16, 1)), tf.float32)
    entropy = tf.constant(rng.normal(0, 0.5, (16, 1)), tf.float32)
    targets = algorithm._target_values(batch, next_actions, entropy).numpy()

    support = algorithm.Qs[0].support
    chosen = smaller_target_probabilities(algorithm, batch, next_actions)
    discounts = 0.9 * (1.0 - batch['terminals'].numpy()[:, 0])
    expected = numpy_projection(
        chosen, 0.5 * batch['rewards'].numpy()[:, 0], discounts,
        entropy.numpy()[:, 0], support)
    np.testing.assert_allclose(targets, expected, atol=1e-5)

    # The loss: cross-entropy of each critic's logits to the target.
    Q_logits = algorithm.Qs[0](batch['observations'], batch['actions'])
    log_probabilities = tf.nn.log_softmax(Q_logits).numpy()
    loss = float(algorithm._Q_loss(Q_logits, tf.constant(expected), batch))
    assert loss == pytest.approx(
        -(expected * log_probabilities).sum(-1).mean(), rel=1e-5)
    # Q for the actor: the expected value.
    np.testing.assert_allclose(
        algorithm._min_Q(algorithm.Qs[:1], batch['observations'],
                         batch['actions']).numpy()[:, 0],
        (tf.nn.softmax(Q_logits).numpy() * support).sum(-1), rtol=1e-5,
        atol=1e-6)


def test_the_clipped_share_is_the_targets_mass_beyond_the_support():
    """'Q_target-clipped': the mean over the minibatch of the target
    distribution's mass whose backed-up atom left [v_min, v_max] (rewards
    of +-3 on the support [-2, 3] push some out at both ends)."""
    algorithm, _, pool = filled_algorithm('SAC', Q_config=CATEGORICAL,
                                          discount=0.9)
    batch = as_tensors(pool.random_batch(16))
    batch['rewards'] = tf.constant(np.linspace(-3, 3, 16)[:, None],
                                   tf.float32)
    next_actions = tf.constant(
        np.random.default_rng(4).uniform(-1, 1, (16, 1)), tf.float32)
    algorithm._target_values(batch, next_actions)
    clipped = float(algorithm._critic_head.diagnostics()['Q_target-clipped'])

    support = algorithm.Qs[0].support
    chosen = smaller_target_probabilities(algorithm, batch, next_actions)
    atoms = (batch['rewards'].numpy()
             + 0.9 * (1.0 - batch['terminals'].numpy()) * support[None])
    outside = (atoms > support[-1]) | (atoms < support[0])
    expected = (chosen * outside).sum(-1).mean()
    assert 0.05 < expected < 0.95
    assert clipped == pytest.approx(expected, rel=1e-5)
    # Read once per trace: nothing is left for the next update's.
    assert algorithm._critic_head.diagnostics() == {}
    # The epoch's columns: the update's, then the head's.
    assert algorithm.training_diagnostic_keys[-1] == 'Q_target-clipped'
    assert 'Q_target-clipped' not in filled_algorithm('SAC')[
        0].training_diagnostic_keys


def test_the_epoch_line_flags_targets_beyond_the_support():
    from softlearning.experiments.trial.console import format_progress
    epoch = {'epoch': 9, 'total_timestep': 45000, 'timesteps_per_second': 150,
             'evaluation': {}, 'training': {}, 'num_train_steps': 20000}
    flag = ("| 62% of the Q targets' mass beyond the critics' support: "
            "widen Q_params.config.categorical")
    assert flag in format_progress(dict(epoch, **{'Q_target-clipped': 0.62}),
                                   60)
    for quiet in ({'Q_target-clipped': 0.02}, {'Q_target-clipped': np.nan},
                  {}):
        assert 'support' not in format_progress(dict(epoch, **quiet), 60)


def test_td3_fused_updates_equal_single_updates():
    """(SAC's categorical update: the SimbaV2 preset's conformance test.)"""
    assert_fused_equals_single('TD3', Q_config=CATEGORICAL)


def test_categorical_updates_move_the_critics_towards_their_targets():
    algorithm, _, pool = filled_algorithm('SAC', Q_config=CATEGORICAL)
    batch = as_tensors(pool.random_batch(64))
    before = algorithm._fused_updates(
        tf.nest.map_structure(lambda x: x[None], batch))['diagnostics'][
            'Q_loss']
    for _ in range(5):
        algorithm._fused_updates(as_tensors(
            tf.nest.map_structure(lambda x: np.repeat(x[None], 20, 0),
                                  pool.random_batch(64))))
    after = algorithm._fused_updates(
        tf.nest.map_structure(lambda x: x[None], batch))['diagnostics'][
            'Q_loss']
    assert np.isfinite(float(after)) and float(after) < float(before)


def test_tqc_refuses_categorical_critics():
    with pytest.raises(ValueError, match="TQC does not train categorical "
                                         "critics"):
        make_algorithm('TQC', Q_class='feedforward_Q_functions',
                       Q_config=CATEGORICAL)


@pytest.mark.parametrize('categorical, message', [
    ({'n_atoms': 11, 'v_min': 1.0}, "takes {'n_atoms': N"),
    ({'n_atoms': 1, 'v_min': 0.0, 'v_max': 1.0}, 'n_atoms >= 2'),
    ({'n_atoms': 11, 'v_min': 1.0, 'v_max': 1.0}, 'v_max > v_min')])
def test_bad_categorical_settings_are_one_clear_error(categorical, message):
    with pytest.raises(ValueError, match=message.replace('{', r'\{')):
        make_algorithm('SAC', Q_config={'categorical': categorical})


def test_the_command_line_selects_categorical_critics():
    from checkpoint_helpers import variant_for
    variant = variant_for(
        '--algorithm', 'TD3', '--universe', 'gym', '--domain', 'Pendulum',
        '--task', 'v1', '--config',
        'Q_params.config.categorical={"n_atoms": 51, "v_min": -10, '
        '"v_max": 10}')
    assert variant['Q_params']['config']['categorical'] == {
        'n_atoms': 51, 'v_min': -10, 'v_max': 10}


def test_the_variant_refuses_categorical_critics_before_a_run():
    """Bad settings, or an algorithm without a categorical update, fail
    while the options are read (before Ray or TensorFlow start)."""
    from checkpoint_helpers import variant_for
    base = ('--universe', 'gym', '--domain', 'Pendulum', '--task', 'v1')
    with pytest.raises(ValueError, match="TQC does not train categorical "
                                         "critics .*valid algorithms: DDPG, "
                                         "FastSAC, FastTD3, SAC, SimbaV2, "
                                         "TD3"):
        variant_for('--algorithm', 'TQC', *base, '--config',
                    'Q_params.config.categorical={"n_atoms": 5, "v_min": 0,'
                    ' "v_max": 1}')
    with pytest.raises(ValueError, match='v_max > v_min'):
        variant_for(*base, '--config', 'Q_params.config.categorical='
                    '{"n_atoms": 5, "v_min": 1, "v_max": 1}')


def test_the_list_of_categorical_algorithms_matches_their_classes():
    from softlearning import algorithms
    from softlearning.value_functions.categorical_settings import (
        CATEGORICAL_ALGORITHMS)
    for name, path in algorithms.CLASSES.items():
        algorithm_class = algorithms.get_algorithm_class(name)
        assert algorithm_class.categorical_critics == (
            path in CATEGORICAL_ALGORITHMS), name
