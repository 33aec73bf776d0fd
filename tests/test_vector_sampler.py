"""K environments per sampler (samplers/vector_stepper.py): a vector of
environments steps as the same environments stepped one by one, every
episode resets on its own, the pool gets each environment's steps in order,
and a restored sampler goes on exactly."""

import numpy as np
import pytest

from softlearning.environments import get_environment
from softlearning import policies
from softlearning.policies.numpy_policies import (
    NumpyRecurrentGaussianPolicy, get_numpy_policy)
from softlearning.replay_pools import SimpleReplayPool
from softlearning.samplers import SimpleSampler, parallel_rollouts, rollouts
from softlearning.samplers.episode_stepper import EpisodeStepper
from softlearning.samplers.vector_stepper import (VectorStepper,
                                                  environment_seed)

PENDULUM = {'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1'}


def pendulum():
    return get_environment('gym', 'Pendulum', 'v1')


HOPPER = {'universe': 'gym', 'domain': 'Hopper', 'task': 'v5'}


def gaussian_policy(environment, seed=0):
    return policies.get({'class_name': 'FeedforwardGaussianPolicy',
                         'config': {'hidden_layer_sizes': (16, 16)}},
                        environment, seed=seed)


def make(envs_per_sampler, max_path_length=30, seed=3, params=PENDULUM,
         vector_mode='sync'):
    environment = get_environment(**params)
    policy = gaussian_policy(environment)
    pool = SimpleReplayPool(environment.observation_shapes,
                            environment.action_shape, max_size=10000, seed=0)
    sampler = SimpleSampler(max_path_length=max_path_length, seed=seed,
                            envs_per_sampler=envs_per_sampler,
                            environment_params=params,
                            vector_mode=vector_mode)
    sampler.initialize(environment, policy, pool)
    return policy, pool, sampler


def test_vector_equals_its_environments_stepped_one_by_one():
    """A deterministic policy: environment i of the vector takes exactly the
    steps a lone environment seeded like it takes, resets included."""
    environments = [pendulum() for _ in range(4)]
    policy = gaussian_policy(environments[0])
    vector = VectorStepper(environments, max_path_length=25, seed=7)
    with policy.set_deterministic():
        steps = vector.step(policy, 4 * 60)
    assert [len(environment_steps) for environment_steps in steps] == [60] * 4
    for index, environment_steps in enumerate(steps):
        lone = EpisodeStepper(pendulum(), 25, seed=environment_seed(7, index))
        with policy.set_deterministic():
            expected = [lone.step(policy) for _ in range(60)]
        for (transition, finished), (wanted, wanted_finished) in zip(
                environment_steps, expected):
            np.testing.assert_allclose(transition.next_observation['observations'],
                                       wanted.next_observation['observations'],
                                       rtol=0, atol=1e-6)
            assert transition.episode == wanted.episode
            assert transition.step == wanted.step
            assert (finished is None) == (wanted_finished is None)
    # Every environment ended two episodes of 25 steps, each with its own
    # episode ids.
    episodes = {t.episode for environment_steps in steps
                for t, _ in environment_steps}
    assert len(episodes) == 4 * 3


def test_n_steps_are_exact_and_shared_in_turn():
    _, pool, sampler = make(envs_per_sampler=3)
    first = sampler.sample(7)
    assert pool.size == sampler.total_samples == 7
    # 3 + 3 + 1 steps, each environment's together and in order.
    assert list(first['episode_steps']) == [0, 1, 2, 0, 1, 0, 1]
    # The next call starts with the environments that took one step fewer.
    second = sampler.sample(2)
    episodes = np.concatenate([first['episodes'], second['episodes']])
    counts = {episode: int(np.sum(episodes == episode))
              for episode in set(episodes)}
    assert sorted(counts.values()) == [3, 3, 3]


def test_each_environment_resets_on_its_own_and_paths_are_recorded():
    _, pool, sampler = make(envs_per_sampler=4, max_path_length=10)
    collected = sampler.sample(4 * 25)
    diagnostics = sampler.get_diagnostics()
    assert diagnostics['episodes'] == 4 * 2
    assert diagnostics['episode-length-max'] == 10
    paths = sampler.last_n_paths
    assert all(path['rewards'].shape == (10, 1) for path in paths)
    # Within every environment's block, observations chain.
    observations = pool.data['observations']['observations'][:100]
    next_observations = pool.data['next_observations']['observations'][:100]
    steps = collected['episode_steps']
    following = np.flatnonzero(steps[1:] == steps[:-1] + 1)
    np.testing.assert_array_equal(observations[following + 1],
                                  next_observations[following])


def test_physical_parameters_reach_every_environment():
    _, _, sampler = make(envs_per_sampler=3, params=HOPPER)
    sampler.set_physical_parameters({'mass': 1.5})
    sampler.sample(6)
    assert sampler.get_physical_parameters() == [{'mass': 1.5}] * 3


def test_restored_vector_sampler_continues_exactly():
    """Mid-episode in every environment, mid-turn of the cursor."""
    policy, pool, sampler = make(envs_per_sampler=3, max_path_length=20)
    sampler.sample(70)
    state = sampler.get_state()
    random_state = policy.get_np_random_state()
    sampler.sample(41)
    expected = pool.data['observations']['observations'][70:111].copy()

    restored_policy, restored_pool, restored = make(envs_per_sampler=3,
                                                    max_path_length=20)
    restored_policy.set_weights(policy.get_weights())
    restored.set_state(state)
    restored_policy.set_np_random_state(random_state)
    restored.sample(41)
    np.testing.assert_array_equal(
        restored_pool.data['observations']['observations'][:41], expected)
    assert (restored.get_diagnostics()['total-paths']
            == sampler.get_diagnostics()['total-paths'])

    _, _, other = make(envs_per_sampler=2)
    with pytest.raises(ValueError, match='--envs-per-sampler'):
        other.set_state(state)


def test_recurrent_batch_step_equals_one_step_per_episode():
    environment = pendulum()
    policy = NumpyRecurrentGaussianPolicy(
        environment.observation_shapes, environment.action_shape,
        hidden_layer_sizes=(8,), lstm_units=6, seed=0)
    rng = np.random.default_rng(0)
    observations = [{'observations': rng.normal(size=3).astype(np.float32)}
                    for _ in range(3)]
    # Row 0 starts an episode; rows 1-2 carry a state of their own.
    states = [None] + [policy.step(o, None)[1] for o in observations[1:]]
    with policy.set_deterministic():
        actions, new_states = policy.step_batch(
            {'observations': np.stack([o['observations']
                                       for o in observations])}, states)
        for row, (observation, state) in enumerate(zip(observations,
                                                       states)):
            action, new_state = policy.step(observation, state)
            np.testing.assert_allclose(actions[row], action, atol=1e-6)
            np.testing.assert_allclose(new_states[row][0], new_state[0],
                                       atol=1e-6)


def test_more_environments_need_their_params():
    with pytest.raises(ValueError, match='environment_params'):
        SimpleSampler(max_path_length=10, envs_per_sampler=2)
    with pytest.raises(ValueError, match='at least 1'):
        SimpleSampler(max_path_length=10, envs_per_sampler=0)


@pytest.mark.parametrize('domain, task, episodes', [('Pendulum', 'v1', 5),
                                                   ('Hopper', 'v5', 4)])
def test_parallel_evaluation_equals_serial_evaluation(domain, task,
                                                      episodes):
    """The protocol's episodes (reset seeds 100, 101, ...) stepped as one
    vector, in waves of three: the same paths to the last digit; Hopper's
    episodes end at different steps (terminations)."""
    environments = [get_environment('gym', domain, task) for _ in range(3)]
    # Seeded weights (numpy's), so Hopper's episodes end where they do.
    policy = get_numpy_policy(
        {'class_name': 'FeedforwardGaussianPolicy',
         'config': {'hidden_layer_sizes': (16, 16)}}, environments[0],
        seed=0)
    seeds = 100 + np.arange(episodes)
    with policy.set_deterministic():
        serial = rollouts(episodes, get_environment('gym', domain, task),
                          policy, 60, seed=100)
        parallel = parallel_rollouts(environments, policy, 60, seeds)
    assert [p['length'] for p in parallel] == [p['length'] for p in serial]
    if domain == 'Hopper':
        assert len({p['length'] for p in serial}) > 1
    for wanted, path in zip(serial, parallel):
        assert path['return'] == wanted['return']
        np.testing.assert_array_equal(path['actions'], wanted['actions'])


def test_each_environment_keeps_its_episodes_exploration_noise():
    """FastTD3's per-episode sigma with K environments: one per running
    episode, kept to its end, a new one when the next starts."""
    environments = [pendulum() for _ in range(3)]
    policy = get_numpy_policy(
        {'class_name': 'FeedforwardDeterministicPolicy',
         'config': {'hidden_layer_sizes': (8,),
                    'exploration_noise': {'std_min': 0.1, 'std_max': 0.4}}},
        environments[0], seed=0)
    vector = VectorStepper(environments, max_path_length=10, seed=0)
    vector.step(policy, 3 * 4)
    sigmas = [stepper.policy_state for stepper in vector.steppers]
    assert all(0.1 <= sigma <= 0.4 for sigma in sigmas)
    assert len(set(sigmas)) == 3
    vector.step(policy, 3 * 5)  # steps 5-9 of the same episodes
    assert [stepper.policy_state for stepper in vector.steppers] == sigmas
    vector.step(policy, 3)  # the episodes' last steps
    assert [stepper.policy_state for stepper in vector.steppers] == [None] * 3
    vector.step(policy, 3)  # each environment's next episode
    new = [stepper.policy_state for stepper in vector.steppers]
    assert all(0.1 <= sigma <= 0.4 for sigma in new)
    assert not set(new) & set(sigmas)
