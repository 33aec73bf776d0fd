import numpy as np

from softlearning import samplers
from softlearning.environments import get_environment
from softlearning.policies import UniformPolicy
from softlearning.replay_pools import SimpleReplayPool
from softlearning.samplers import (RemoteSampler, Sampler, SamplerWorker,
                                   SimpleSampler, rollout, rollouts)


def make(domain='Pendulum', task='v1', max_path_length=50):
    env = get_environment('gym', domain, task)
    policy = UniformPolicy(env.observation_shapes, env.action_shape, seed=0)
    pool = SimpleReplayPool(env.observation_shapes, env.action_shape,
                            max_size=10000, seed=0)
    sampler = SimpleSampler(max_path_length=max_path_length, seed=0)
    sampler.initialize(env, policy, pool)
    return env, policy, pool, sampler


def test_paths_are_capped_and_recorded():
    _, _, pool, sampler = make(max_path_length=50)
    sampler.sample(120)
    assert pool.size == 120 and sampler.total_samples == 120
    diagnostics = sampler.get_diagnostics()
    assert diagnostics['episodes'] == 2
    assert diagnostics['episode-length-max'] == 50
    assert np.isfinite(diagnostics['return-mean'])
    paths = sampler.last_n_paths
    assert len(paths) == 2 and paths[0]['rewards'].shape == (50, 1)
    np.testing.assert_allclose(
        diagnostics['return-mean'],
        np.mean([p['rewards'].sum() for p in paths]), rtol=1e-5)
    # Path-length caps are truncations: nothing is stored as terminal.
    assert pool.data['terminals'][:120].sum() == 0


def test_next_observation_chains_within_a_path():
    _, _, pool, sampler = make(max_path_length=50)
    sampler.sample(30)
    observations = pool.data['observations']['observations'][:30]
    next_observations = pool.data['next_observations']['observations'][:30]
    np.testing.assert_array_equal(observations[1:], next_observations[:-1])


def test_true_terminals_are_stored():
    _, _, pool, sampler = make('Hopper', 'v5', max_path_length=1000)
    sampler.sample(400)  # random Hopper falls within a few dozen steps
    terminals = pool.data['terminals'][:400, 0]
    assert terminals.sum() == sampler.get_diagnostics()['episodes'] > 0


def test_epoch_window():
    _, _, _, sampler = make(max_path_length=50)
    sampler.sample(100)
    sampler.start_epoch()
    sampler.sample(10)
    # No path finished this epoch: the recent paths are reported instead.
    assert sampler.get_diagnostics()['episodes'] == 2
    sampler.sample(40)
    assert sampler.get_diagnostics()['episodes'] == 1


def test_rollouts():
    env, policy, _, _ = make()
    paths = rollouts(2, env, policy, path_length=30)
    assert [p['length'] for p in paths] == [30, 30]
    assert paths[0]['actions'].shape == (30, 1)
    np.testing.assert_allclose(paths[0]['return'], paths[0]['rewards'].sum(),
                               rtol=1e-5)


def _layout_of_one_environment(state):
    """The sampler state as checkpoints before K environments per sampler
    held it."""
    state = dict(state)
    (path,) = state.pop('_current_paths')
    (stepper,) = state.pop('vector')['steppers']
    state.update(_current_path=path, stepper=stepper)
    return state


def _old_layout(state):
    """The sampler state as checkpoints before the episode stepper held it."""
    state = _layout_of_one_environment(state)
    stepper = state.pop('stepper')
    state.update(_current_observation=stepper['observation'],
                 _path_length=stepper['path_length'],
                 _path_return=stepper['path_return'],
                 _num_paths=stepper['num_paths'],
                 environment=stepper['environment'])
    return state


def test_restored_sampler_continues_the_episode_exactly():
    """A restored sampler (also from the older checkpoint layouts) steps on
    bit for bit, mid-episode."""
    _, _, pool, sampler = make(max_path_length=50)
    sampler.sample(70)
    state = sampler.get_state()
    policy_state = sampler.policy.get_np_random_state()
    sampler.sample(40)
    expected = pool.data['observations']['observations'][70:110].copy()
    for saved in (state, _layout_of_one_environment(state),
                  _old_layout(state)):
        _, policy, restored_pool, restored = make(max_path_length=50)
        restored.set_state(saved)
        policy.set_np_random_state(policy_state)
        restored.sample(40)
        np.testing.assert_array_equal(
            restored_pool.data['observations']['observations'][:40], expected)
        assert restored.get_diagnostics()['total-paths'] == 2


def test_every_sampler_is_a_sampler():
    assert all(issubclass(sampler_class, Sampler)
               for sampler_class in samplers.SAMPLERS.values())
    simple = SimpleSampler(max_path_length=10)
    remote = RemoteSampler(  # no actors start before initialize
        max_path_length=10, environment_params={'universe': 'gym'},
        policy_params={'class_name': 'FeedforwardGaussianPolicy'})
    assert isinstance(simple, Sampler) and isinstance(remote, Sampler)
    # The base class's default: the algorithm evaluates on its own
    # environment.
    assert simple.evaluates_on_actors is False
    assert remote.evaluates_on_actors is False


PENDULUM = {'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1',
            'kwargs': {}}


def assert_same_path(path, other):
    for key, observations in path['observations'].items():
        np.testing.assert_array_equal(observations,
                                      other['observations'][key])
    for key in ('actions', 'rewards', 'terminals'):
        np.testing.assert_array_equal(path[key], other[key], err_msg=key)


def test_rollout_and_the_samplers_produce_the_same_episode():
    """Same seed, same policy: ``rollout``, SimpleSampler and a sampler
    actor's body step the same episode (one episode loop)."""
    env, _, pool, sampler = make(max_path_length=30)
    sampler.sample(30)
    path = rollout(get_environment('gym', 'Pendulum', 'v1'),
                   UniformPolicy(env.observation_shapes, env.action_shape,
                                 seed=0), 30, seed=0)
    (sampled,) = sampler.last_n_paths
    assert_same_path(path, sampled)
    assert path['length'] == 30
    assert path['return'] == sampler.get_diagnostics()['return-mean']
    np.testing.assert_array_equal(
        path['observations']['observations'],
        pool.data['observations']['observations'][:30])

    # A RemoteSampler actor's body (in this process): its exploration policy
    # is seeded with its seed + 1.
    worker = SamplerWorker(
        PENDULUM, {'class_name': 'FeedforwardGaussianPolicy',
                   'config': {'hidden_layer_sizes': (4,)}},
        {'class_name': 'UniformPolicy', 'config': {}}, max_path_length=30,
        seed=5)
    batch = worker.sample(30, 'exploration')
    path = rollout(get_environment('gym', 'Pendulum', 'v1'),
                   UniformPolicy(env.observation_shapes, env.action_shape,
                                 seed=6), 30, seed=5)
    assert_same_path(path, batch['samples'])
    assert batch['returns'] == [path['return']]
    assert batch['lengths'] == [path['length']]
