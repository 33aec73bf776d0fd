"""Recurrent agents: the LSTM summarizers' shapes, the numpy recurrent
policy against the TensorFlow one step by step, masking (padding changes no
loss and no gradient), the sequence pool, acting with the episode's state,
and the variant checks. Exact resume of a recurrent trial (the pool, each
sampler's mid-episode LSTM state): test_remote_sampler.py."""

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import (
    as_tensors, assign_values, checkpointed_variables, values_of)
from checkpoint_helpers import variant_for
from softlearning import (algorithms, environments, policies, replay_pools,
                          samplers, value_functions)
from softlearning.replay_pools.sequence_replay_pool import SequenceReplayPool
from softlearning.samplers.episode_stepper import EpisodeStepper
from softlearning.utils.random import set_seed
from test_numpy_policies import ACTION_SHAPE, OBSERVATION_SHAPES

RECURRENT_POLICIES = ['RecurrentGaussianPolicy', 'RecurrentDeterministicPolicy']


class Spaces:
    observation_shapes = OBSERVATION_SHAPES
    action_shape = ACTION_SHAPE


def sequences(batch_size, length, seed=0):
    rng = np.random.default_rng(seed)
    return {key: rng.standard_normal(
                (batch_size, length, *shape)).astype(np.float32)
            for key, shape in OBSERVATION_SHAPES.items()}


def policy_pair(class_name, seed=0):
    params = {'class_name': class_name,
              'config': {'hidden_layer_sizes': (8, 8), 'lstm_units': 6}}
    tf_policy = policies.get(params, Spaces, seed=seed)
    np_policy = policies.get_numpy_policy(params, Spaces, seed=seed)
    np_policy.set_weights(tf_policy.get_weights())
    return tf_policy, np_policy


# Summarizers -----------------------------------------------------------------

@pytest.mark.parametrize('class_name', RECURRENT_POLICIES)
def test_recurrent_policy_maps_sequences_to_sequences(class_name):
    policy = policy_pair(class_name)[0]
    actions = policy.actions(sequences(3, 5))
    assert actions.shape == (3, 5, 2)
    if class_name == 'RecurrentGaussianPolicy':
        actions, log_pis = policy.actions_and_log_probs(sequences(3, 5),
                                                        seed=[1, 2])
        assert log_pis.shape == (3, 5, 1)
        np.testing.assert_allclose(
            policy.log_probs(sequences(3, 5), actions), log_pis, atol=1e-3)


def test_recurrent_Q_function_shapes_and_history_dependence():
    (Q,) = value_functions.get({'class_name': 'recurrent_Q_function',
                                'config': {'hidden_layer_sizes': (8,),
                                           'lstm_units': 4}}, Spaces)
    history = sequences(2, 6)
    actions = tf.zeros((2, 6, 2))
    values = Q(history, actions).numpy()
    assert values.shape == (2, 6, 1)
    # Causal: changing step 3 changes Q at steps >= 3 only.
    changed = {key: value.copy() for key, value in history.items()}
    changed['position'][:, 3] += 1.0
    other = Q(changed, actions).numpy()
    np.testing.assert_array_equal(values[:, :3], other[:, :3])
    assert np.all(np.abs(values[:, 3:] - other[:, 3:]) > 0)
    assert len(value_functions.get(
        {'class_name': 'double_recurrent_Q_function',
         'config': {'lstm_units': 4}}, Spaces)) == 2


@pytest.mark.parametrize('class_name', RECURRENT_POLICIES)
def test_numpy_recurrent_policy_equals_tensorflow_step_by_step(class_name):
    tf_policy, np_policy = policy_pair(class_name)
    history = sequences(4, 7)
    with tf_policy.set_deterministic(True), np_policy.set_deterministic(True):
        expected = tf_policy.actions(history).numpy()
        for acting in (np_policy, tf_policy):  # actors' and in-process
            states = [None] * 4
            for t in range(7):
                for b in range(4):
                    action, states[b] = acting.step(
                        {key: value[b, t] for key, value in history.items()},
                        states[b])
                    np.testing.assert_allclose(action, expected[b, t],
                                               rtol=1e-4, atol=1e-5)
    assert np.std(expected) > 1e-3


def test_clone_keeps_the_lstm():
    policy = policy_pair('RecurrentDeterministicPolicy')[0]
    target = policy.clone()
    assert target.lstm_units == 6
    np.testing.assert_array_equal(target.actions(sequences(2, 3)),
                                  policy.actions(sequences(2, 3)))


# The sequence pool -------------------------------------------------------------

def add_episode(pool, episode, length, start_step=0, value=0.0):
    for step in range(start_step, start_step + length):
        observation = {'observations': np.full(1, value + step, np.float32)}
        pool.add_sample(observation, np.zeros(1), 0.0, False, observation,
                        episode=episode, step=step)


def make_pool(max_size=100, sequence_length=3, burn_in=2, seed=0):
    return SequenceReplayPool({'observations': (1,)}, (1,), max_size,
                              sequence_length=sequence_length,
                              burn_in=burn_in, seed=seed)


def test_windows_are_consecutive_and_masks_follow_episodes():
    pool = make_pool()
    add_episode(pool, episode=0, length=4)            # steps 0..3
    add_episode(pool, episode=1, length=6, value=100)  # steps 0..5
    batch = pool.random_batches(50, 8)
    observations = batch['observations']['observations'][..., 0]
    assert observations.shape == (50, 8, 5)
    assert batch['mask'].shape == (50, 8, 5, 1)
    mask = batch['mask'][..., 0]
    for window, window_mask in zip(observations.reshape(-1, 5),
                                   mask.reshape(-1, 5)):
        first = window[0]
        episode_start = first in (0.0, 100.0)
        if first < 100:  # starts in episode 0 (steps 0..3)
            remaining = 4 - int(first)
        else:
            remaining = 6 - int(first - 100)
        expected = np.zeros(5)
        expected[:remaining] = 1
        if not episode_start:
            expected[:2] = 0  # burn-in
        np.testing.assert_array_equal(window_mask, expected, str(window))


def test_windows_wrap_around_the_ring_in_order():
    pool = make_pool(max_size=7, sequence_length=2, burn_in=0)
    add_episode(pool, episode=3, length=12)  # keeps steps 5..11
    batch = pool.random_batches(20, 4)
    observations = batch['observations']['observations'][..., 0]
    assert observations.min() >= 5
    np.testing.assert_array_equal(np.diff(observations, axis=-1), 1.0)
    assert np.all(batch['mask'] == 1.0)


def test_interleaved_actor_blocks_are_cut_at_block_ends():
    """Two actors' transitions arrive in blocks: a window that runs from one
    actor's block into the other's is masked from there on."""
    pool = make_pool(sequence_length=4, burn_in=0)
    for block in range(3):
        for actor, value in ((10, 0.0), (20, 1000.0)):
            start = 5 * block
            samples = {
                'observations': {'observations': (value + np.arange(
                    start, start + 5, dtype=np.float32))[:, None]},
                'actions': np.zeros((5, 1), np.float32),
                'rewards': np.zeros((5, 1), np.float32),
                'terminals': np.zeros((5, 1), np.float32),
                'episodes': np.full(5, actor, np.int64),
                'episode_steps': np.arange(start, start + 5),
            }
            samples['next_observations'] = samples['observations']
            pool.add_samples(samples)
    batch = pool.random_batches(30, 8)
    observations = batch['observations']['observations'][..., 0]
    mask = batch['mask'][..., 0].astype(bool)
    for window, window_mask in zip(observations.reshape(-1, 4),
                                   mask.reshape(-1, 4)):
        same_actor = (window >= 1000) == (window[0] >= 1000)
        consecutive = np.concatenate([[True], np.diff(window) == 1])
        expected = np.cumprod(same_actor & consecutive).astype(bool)
        np.testing.assert_array_equal(window_mask, expected, str(window))


def test_pool_checkpoint_pieces_keep_episode_ids():
    pool = make_pool()
    add_episode(pool, episode=5, length=9)
    piece = pool.experience_since(0)
    restored = make_pool()
    restored.add_experience(piece)
    restored.set_state(pool.get_state())
    a, b = pool.random_batches(3, 4), restored.random_batches(3, 4)
    np.testing.assert_array_equal(a['mask'], b['mask'])
    np.testing.assert_array_equal(a['observations']['observations'],
                                  b['observations']['observations'])


def test_too_few_transitions_for_a_window_is_a_clear_error():
    pool = make_pool()
    add_episode(pool, episode=0, length=3)
    with pytest.raises(ValueError, match='fewer than one window of 5'):
        pool.random_batches(1, 1)


# Masking: padding changes nothing ----------------------------------------------------

def make_recurrent_algorithm(class_name, seed=0):
    set_seed(seed)
    env = environments.get_environment_from_params({
        'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1', 'kwargs': {},
        'pomdp': {'observe': 'positions', 'previous_action': False}})
    policy_class = {'SAC': 'RecurrentGaussianPolicy',
                    'TD3': 'RecurrentDeterministicPolicy'}[class_name]
    network = {'hidden_layer_sizes': (16,), 'lstm_units': 8}
    policy = policies.get({'class_name': policy_class, 'config': network},
                          env, seed=seed)
    Qs = value_functions.get({'class_name': 'double_recurrent_Q_function',
                              'config': network}, env)
    pool = replay_pools.get({'class_name': 'SequenceReplayPool',
                             'config': {'max_size': 1000,
                                        'sequence_length': 6,
                                        'burn_in': 2}}, env, seed=seed)
    sampler = samplers.get({'class_name': 'SimpleSampler',
                            'config': {'max_path_length': 200}}, seed=seed)
    sampler.initialize(env, policy, pool)
    algorithm = algorithms.get(
        {'class_name': class_name,
         'config': {'n_epochs': 1, 'epoch_length': 100, 'batch_size': 8,
                    'n_initial_exploration_steps': 50, 'eval_n_episodes': 1,
                    'max_path_length': 200, 'fused_steps': 10}},
        training_environment=env, evaluation_environment=env, policy=policy,
        Qs=Qs, pool=pool, sampler=sampler, seed=seed)
    return algorithm, pool, sampler, policy


@pytest.mark.parametrize('class_name', ['SAC', 'TD3'])
def test_padding_contributes_nothing_to_losses_or_gradients(class_name):
    """Two updates from the same state (every checkpointed number set back
    between them) on windows that differ only after their valid prefix
    (and in masked-out values): identical diagnostics and states."""
    algorithm, pool, sampler, policy = make_recurrent_algorithm(class_name)
    sampler.sample(150, policies.get({'class_name': 'UniformPolicy'},
                                     sampler.environment, seed=1))
    batch = pool.random_batches(2, 8)
    mask = batch['mask'][..., 0]
    # Cut every window after step 5 (as an episode end would).
    mask[..., 5:] = 0.0
    # An update first, so that the optimizers' slots exist to be set back.
    algorithm._fused_updates(as_tensors(batch))
    variables = checkpointed_variables(algorithm)
    start = values_of(variables)
    garbage = tf.nest.map_structure(np.copy, batch)
    rng = np.random.default_rng(0)
    after = np.zeros(mask.shape, bool)
    after[..., 5:] = True
    for key in ('observations', 'next_observations'):
        for array in garbage[key].values():
            array[after] = rng.normal(size=array[after].shape) * 50
    for key in ('actions', 'rewards', 'terminals'):
        garbage[key][after] = rng.uniform(-1, 1, garbage[key][after].shape)
    runs = []
    for windows in (batch, garbage):
        assign_values(variables, start)
        diagnostics = algorithm._fused_updates(
            as_tensors(windows))['diagnostics']
        runs.append(([float(d) for d in diagnostics.values()],
                     values_of(variables)))
    (diagnostics_a, state_a), (diagnostics_b, state_b) = runs
    np.testing.assert_allclose(diagnostics_a, diagnostics_b, rtol=1e-5)
    changed = False
    for name in state_a:
        for a, b, before in zip(state_a[name], state_b[name], start[name]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7,
                                       err_msg=name)
            changed |= not np.array_equal(a, before)
    assert changed


# Acting with the episode's state ----------------------------------------------------------

def test_stepper_carries_the_lstm_state_and_resets_it_per_episode():
    env = environments.get_environment('gym', 'Pendulum', 'v1')
    np_policy = policies.get_numpy_policy(
        {'class_name': 'RecurrentGaussianPolicy',
         'config': {'hidden_layer_sizes': (8,), 'lstm_units': 4}}, env, seed=0)
    stepper = EpisodeStepper(env, max_path_length=3, seed=0)
    assert stepper.policy_state is None
    states = []
    for _ in range(4):
        transition, finished = stepper.step(np_policy)
        states.append(stepper.policy_state)
    assert states[0] is not None and states[1] is not None
    assert states[2] is None  # the episode ended after its third step
    assert states[3] is not None
    assert [transition.step] == [0]
    assert transition.episode == stepper.episode_id
    saved = stepper.get_state()
    np.testing.assert_array_equal(saved['policy_state'][0], states[3][0])


# Variants --------------------------------------------------------------------------

@pytest.mark.parametrize('algorithm, policy, Q', [
    ('SAC', 'RecurrentGaussianPolicy', 'double_recurrent_Q_function'),
    ('TD3', 'RecurrentDeterministicPolicy', 'double_recurrent_Q_function'),
    ('DDPG', 'RecurrentDeterministicPolicy', 'recurrent_Q_function'),
])
def test_policy_recurrent_picks_the_algorithms_recurrent_form(algorithm,
                                                              policy, Q):
    variant = variant_for('--algorithm', algorithm, '--policy', 'recurrent',
                          '--pomdp', 'positions')
    assert variant['policy_params']['class_name'] == policy
    assert variant['Q_params']['class_name'] == Q
    assert variant['replay_pool_params']['class_name'] == 'SequenceReplayPool'
    if algorithm != 'SAC':
        assert variant['policy_params']['config']['exploration_noise'] == 0.1


def test_recurrent_policy_for_an_algorithm_without_one_is_a_clear_error():
    with pytest.raises(ValueError, match='--algorithm SQL cannot train '
                                         '--policy recurrent; valid policies '
                                         'for SQL: sampling'):
        variant_for('--algorithm', 'SQL', '--policy', 'recurrent')


# Export -------------------------------------------------------------------------------

@pytest.mark.parametrize('class_name', RECURRENT_POLICIES)
def test_saved_model_steps_like_the_policy(class_name, tmp_path):
    from softlearning.policies.export import export_saved_model
    policy = policy_pair(class_name)[0]
    path = export_saved_model(policy, OBSERVATION_SHAPES,
                              (np.full(2, -2.0), np.full(2, 2.0)),
                              str(tmp_path / 'policy'))
    loaded = tf.saved_model.load(path)
    history = sequences(3, 4)
    with policy.set_deterministic(True):
        expected = policy.actions(history).numpy()
    h, c = loaded.initial_state(3)
    for t in range(4):
        actions, h, c = loaded.step(
            {key: value[:, t] for key, value in history.items()}, h, c)
        np.testing.assert_allclose(actions, expected[:, t], rtol=1e-4,
                                   atol=1e-5)
    flat = np.concatenate([history['position'][:, 0],
                           history['velocity'][:, 0]], axis=-1)
    actions, _, _ = loaded.step_flat(flat, *loaded.initial_state(3))
    np.testing.assert_allclose(actions, expected[:, 0], rtol=1e-4, atol=1e-5)


# Through the CLI ------------------------------------------------------------------------

@pytest.mark.slow
def test_recurrent_td3_on_sampler_actors_then_simulate(cli, tmp_path):
    """The issue's command (tiny): recurrent TD3 on positions-only dm_control
    cartpole, collected by two TensorFlow-free actors; then the checkpoint
    films to an MP4."""
    from conftest import read_progress, trial_dirs
    from test_simulate_policy import film
    result = cli(
        'run_example_local', 'examples.development', '--algorithm', 'TD3',
        '--policy', 'recurrent', '--universe', 'dm_control', '--domain',
        'cartpole', '--task', 'swingup', '--pomdp', 'positions',
        '--n-epochs', '1', '--epoch-length', '200', '--max-path-length', '150',
        '--seed', '3', '--num-samplers', '2', '--cpus', '2',
        '--local-dir', tmp_path / 'runs',
        '--checkpoint-frequency', '1',
        '--config', 'algorithm_params.config.n_initial_exploration_steps=100',
        '--config', 'algorithm_params.config.eval_n_episodes=1',
        '--config', 'algorithm_params.config.batch_size=8',
        '--config', 'policy_params.config.lstm_units=8',
        '--config', 'Q_params.config.lstm_units=8', timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Two actors on two CPUs without --trial-cpus or --sampler-cpus: the
    # split is chosen, and said.
    assert ("2 sampler actors get 0.5 CPU each to fit beside the "
            "trainer's 1 CPU in the 2 CPUs Ray gets") in result.stderr
    (trial_dir,) = trial_dirs(tmp_path / 'runs')
    progress = read_progress(trial_dir)
    assert list(progress['training/num-samplers']) == [2]
    assert progress['total_timestep'].iloc[-1] == 200
    assert progress['num_train_steps'].iloc[-1] > 0
    assert np.isfinite(progress['Q_loss'].iloc[-1])
    result, frames = film(cli, str(trial_dir), str(tmp_path / 'r.mp4'), 10,
                          width=32, height=32)
    assert frames.shape[1:] == (32, 32, 3)
