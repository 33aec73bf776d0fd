"""RemoteSampler with real Ray actors and real MuJoCo/TensorFlow."""

import os
import time

import numpy as np
import pytest
import ray

from softlearning import environments, policies, replay_pools, samplers
from softlearning.samplers import Sampler
from softlearning.utils import local_ray

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENVIRONMENT_PARAMS = {'universe': 'gym', 'domain': 'HalfCheetah',
                      'task': 'v5', 'kwargs': {}}
POLICY_PARAMS = {'class_name': 'FeedforwardGaussianPolicy',
                 'config': {'hidden_layer_sizes': (8, 8)}}
EXPLORATION_PARAMS = {'class_name': 'UniformPolicy', 'config': {}}
# Actors must import this checkout of softlearning.
ACTOR_OPTIONS = {'runtime_env': {'env_vars': {
    'PYTHONPATH': REPO_ROOT, 'TF_CPP_MIN_LOG_LEVEL': '2'}}}


@pytest.fixture(scope='module')
def ray_cluster():
    local_ray.start(num_cpus=2, include_dashboard=False,
                    runtime_env=ACTOR_OPTIONS['runtime_env'])
    yield
    ray.shutdown()


def make_sampler(num_samplers=2, seed=7, **config):
    environment = environments.get_environment_from_params(ENVIRONMENT_PARAMS)
    policy = policies.get(POLICY_PARAMS, environment, seed=seed)
    exploration = policies.get(EXPLORATION_PARAMS, environment, seed=seed)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': 10000}}, environment)
    variant = {'environment_params': {'training': ENVIRONMENT_PARAMS},
               'policy_params': POLICY_PARAMS,
               'exploration_policy_params': EXPLORATION_PARAMS,
               'sampler_params': {'class_name': 'RemoteSampler', 'config': {
                   'max_path_length': 30, 'num_samplers': num_samplers,
                   'sampler_cpus': 0.5, **config}}}
    sampler = samplers.get_from_variant(variant, seed=seed)
    sampler.initialize(environment, policy, pool)
    return sampler, policy, exploration, pool


def test_split_steps():
    assert samplers.remote_sampler.split_steps(5, 2) == [3, 2]
    assert samplers.remote_sampler.split_steps(1, 3) == [1, 0, 0]
    assert sum(samplers.remote_sampler.split_steps(1001, 4)) == 1001


def test_two_actors_fill_pool_from_differently_seeded_environments(
        ray_cluster):
    sampler, policy, exploration, pool = make_sampler()
    try:
        assert isinstance(sampler, Sampler)
        sampler.sample(40, exploration)
        assert pool.size == 40 == sampler.total_samples
        seeds = [ray.get(actor.get_seed.remote()) for actor in sampler.actors]
        assert len(set(seeds)) == 2
        # Each actor's first 20 transitions start from its own reset: the
        # two first observations differ (different seeds), and each batch
        # is a contiguous trajectory of that actor's environment.
        observations = pool.data['observations']['observations'][:40]
        next_observations = pool.data['next_observations'][
            'observations'][:40]
        first_a, first_b = observations[0], observations[20]
        assert not np.allclose(first_a, first_b)
        np.testing.assert_allclose(observations[1:20], next_observations[:19])
        np.testing.assert_allclose(observations[21:40],
                                   next_observations[20:39])
        # 40 steps with paths of at most 30: each actor finished none yet.
        assert sampler.get_diagnostics()['episodes'] == 0
        sampler.sample(40, exploration)
        diagnostics = sampler.get_diagnostics()
        assert diagnostics['episodes'] == 2  # one 30-step path per actor
        assert diagnostics['episode-length-max'] == 30
        assert set(samplers.SimpleSampler(30).get_diagnostics()) <= set(
            diagnostics)
    finally:
        sampler.close()


def test_pushed_weights_match_learner(ray_cluster):
    sampler, policy, exploration, pool = make_sampler()
    try:
        new_weights = [w + np.float32(0.5) for w in policy.get_weights()]
        policy.set_weights(new_weights)
        sampler.sample(4, policy)
        for actor_weights in sampler.get_actor_weights():
            for actor_w, learner_w in zip(actor_weights,
                                          policy.get_weights()):
                np.testing.assert_array_equal(actor_w, learner_w)
        # The actors act with those weights: a deterministic action of the
        # learner on a pooled observation is what actor policies give.
        diagnostics = sampler.get_diagnostics()
        assert diagnostics['policy-lag-max'] == 0
    finally:
        sampler.close()


def test_warm_up_acts_uniformly(ray_cluster):
    sampler, policy, exploration, pool = make_sampler()
    try:
        # A policy with huge biases would saturate actions at +-1; the
        # uniform one spreads them over [-1, 1].
        policy.set_weights([np.full_like(w, 5.0) for w in
                            policy.get_weights()])
        sampler.sample(100, exploration)
        actions = pool.data['actions'][:100]
        assert np.mean(np.abs(actions) > 0.99) < 0.1
        sampler.sample(20, policy)
        actions = pool.data['actions'][100:120]
        assert np.mean(np.abs(actions) > 0.99) > 0.9
    finally:
        sampler.close()


def _wait_until_dead(actor, timeout=300):
    """ray.kill only asks Ray to kill the actor: a call made at once may
    still run on it. Returns once a call fails as on a dead actor."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.get(actor.get_seed.remote(), timeout=timeout)
        except ray.exceptions.RayActorError:
            return
        assert time.monotonic() < deadline, 'the killed actor still answers'
        time.sleep(0.1)


def test_killed_actor_is_replaced_and_sampling_goes_on(ray_cluster):
    sampler, policy, exploration, pool = make_sampler()
    try:
        sampler.set_physical_parameters({'mass': 1.5})
        sampler.sample(10, policy)
        old_actor = sampler.actors[0]
        ray.kill(old_actor)
        _wait_until_dead(old_actor)
        sampler.sample(10, policy)
        assert pool.size == 20
        assert sampler.actors[0] is not old_actor
        assert sampler.get_diagnostics()['actor-restarts'] == 1
        # The replacement got the physical parameters and a new seed.
        values = sampler.get_physical_parameters()
        assert values == [{'mass': 1.5}, {'mass': 1.5}]
        seeds = [ray.get(actor.get_seed.remote()) for actor in sampler.actors]
        assert len(set(seeds)) == 2
    finally:
        sampler.close()


def test_state_of_the_layout_before_the_rename_restores(ray_cluster):
    """Checkpoints written before the physical-parameter rename hold the
    pushed values under 'environment_state'."""
    sampler, policy, exploration, pool = make_sampler(num_samplers=1)
    try:
        sampler.set_physical_parameters({'mass': 1.5})
        sampler.sample(5, exploration)
        state = sampler.get_state()
        old_layout = dict(state)
        old_layout['environment_state'] = old_layout.pop(
            'physical_parameters')
    finally:
        sampler.close()
    restored, _, _, _ = make_sampler(num_samplers=1)
    try:
        restored.set_state(old_layout)
        assert restored.get_physical_parameters() == [{'mass': 1.5}]
        assert restored.get_state()['physical_parameters'] == {'mass': 1.5}
        assert restored.total_samples == 5
    finally:
        restored.close()


PENDULUM = {'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1',
            'kwargs': {}}


def pendulum_actor_pool(**options):
    from softlearning.samplers.actor_pool import ActorPool
    return ActorPool(
        1, {'environment_params': PENDULUM, 'policy_params': POLICY_PARAMS,
            'exploration_policy_params': EXPLORATION_PARAMS,
            'max_path_length': 10},
        seed=3, cpus=0.5, actor_options=ACTOR_OPTIONS, **options)


def test_dead_actor_is_replaced_and_the_call_retried_once(ray_cluster):
    """The one retry helper every actor call goes through: an actor that
    dies during a call is replaced (with a new seed) and the call is made
    once more, on the replacement; one that dies every time fails the call
    after MAX_ATTEMPTS."""
    from softlearning.samplers import actor_pool

    def die(worker):
        os._exit(1)

    replaced = []
    pool = pendulum_actor_pool(on_replace=replaced.append)
    pool.start()
    try:
        first_actor = pool.actors[0]
        first_seed = ray.get(first_actor.get_seed.remote())
        calls = []

        def dies_the_first_time(actor):
            calls.append(actor)
            if len(calls) == 1:
                return actor.__ray_call__.remote(die)
            return actor.get_seed.remote()

        seed = pool.call(0, dies_the_first_time)
        assert calls == [first_actor, pool.actors[0]]  # retried once
        assert pool.actors[0] is not first_actor
        assert seed == pool.seed(0) != first_seed
        assert pool.restarts == 1 and replaced == [0]

        with pytest.raises(ray.exceptions.RayActorError):
            pool.call(0, lambda actor: actor.__ray_call__.remote(die))
        assert pool.restarts == 1 + actor_pool.MAX_ATTEMPTS - 1
    finally:
        pool.close()


def test_rollout_and_an_actor_produce_the_same_episode(ray_cluster):
    """A RemoteSampler's actor collects the episode ``rollout`` runs with
    the actor's seed (and its exploration policy's, the seed + 1)."""
    environment = environments.get_environment_from_params(PENDULUM)
    policy = policies.get(POLICY_PARAMS, environment, seed=0)
    exploration = policies.get(EXPLORATION_PARAMS, environment, seed=0)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': 100}}, environment)
    sampler = samplers.RemoteSampler(
        max_path_length=20, num_samplers=1, sampler_cpus=0.5,
        environment_params=PENDULUM, policy_params=POLICY_PARAMS,
        exploration_policy_params=EXPLORATION_PARAMS, seed=4,
        actor_options=ACTOR_OPTIONS)
    sampler.initialize(environment, policy, pool)
    try:
        sampler.sample(20, exploration)
        seed = ray.get(sampler.actors[0].get_seed.remote())
    finally:
        sampler.close()
    path = samplers.rollout(
        environments.get_environment_from_params(PENDULUM),
        policies.get(EXPLORATION_PARAMS, environment, seed=seed + 1), 20,
        seed=seed)
    np.testing.assert_array_equal(
        path['observations']['observations'],
        pool.data['observations']['observations'][:20])
    np.testing.assert_array_equal(path['actions'], pool.data['actions'][:20])
    np.testing.assert_array_equal(path['rewards'], pool.data['rewards'][:20])
    diagnostics = sampler.get_diagnostics()
    assert (diagnostics['return-mean'], diagnostics['episode-length-max']) == (
        path['return'], path['length'])


def test_actors_report_the_success_rate_of_a_goal_task(ray_cluster):
    """FetchReach's episodes succeed or fail: the actors' collected and
    evaluation episodes carry their successes to the learner."""
    fetch_reach = {'universe': 'gym', 'domain': 'FetchReach', 'task': 'v4',
                   'kwargs': {}}
    environment = environments.get_environment_from_params(fetch_reach)
    policy = policies.get(POLICY_PARAMS, environment, seed=0)
    exploration = policies.get(EXPLORATION_PARAMS, environment, seed=0)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': 200}}, environment)
    sampler = samplers.RemoteSampler(
        max_path_length=50, num_samplers=1, sampler_cpus=0.5,
        environment_params=fetch_reach, policy_params=POLICY_PARAMS,
        exploration_policy_params=EXPLORATION_PARAMS, seed=4,
        actor_options=ACTOR_OPTIONS,
        evaluation_environment_params=fetch_reach)
    sampler.initialize(environment, policy, pool)
    try:
        sampler.sample(20, exploration)
        # No episode ended yet: the rate is NaN, but its column is there.
        assert np.isnan(sampler.get_diagnostics()['success-rate'])
        sampler.sample(80, exploration)
        assert 0.0 <= sampler.get_diagnostics()['success-rate'] <= 1.0
        returns, lengths, successes = sampler.evaluate(3, first_seed=0)
    finally:
        sampler.close()
    assert lengths == [50, 50, 50] and len(returns) == 3
    assert set(successes) <= {0.0, 1.0}
    assert 0.0 <= samplers.path_statistics(returns, lengths, successes)[
        'success-rate'] <= 1.0


def test_asynchronous_mode_reports_bounded_lag(ray_cluster):
    sampler, policy, exploration, pool = make_sampler(asynchronous=True)
    try:
        for _ in range(3):
            sampler.sample(10, policy)
        diagnostics = sampler.get_diagnostics()
        assert pool.size == 30
        assert diagnostics['policy-lag-max'] == 1
    finally:
        sampler.close()


def test_mass_set_inside_each_actor_physics(ray_cluster):
    sampler, policy, exploration, pool = make_sampler()
    try:
        sampler.set_physical_parameters({'mass/torso': 3.0})

        def torso_mass(worker):
            model = worker.environment.physical_parameters.model
            return float(model.body('torso').mass[0])

        masses = [ray.get(actor.__ray_call__.remote(torso_mass))
                  for actor in sampler.actors]
        nominal = environments.get_environment_from_params(
            ENVIRONMENT_PARAMS).unwrapped.model.body('torso').mass[0]
        np.testing.assert_allclose(masses, [3.0 * nominal] * 2)
    finally:
        sampler.close()


PIXEL_ENVIRONMENT_PARAMS = {
    'universe': 'dm_control', 'domain': 'cheetah', 'task': 'run',
    'kwargs': {'render_observations': True,
               'render_kwargs': {'width': 32, 'height': 32}}}
PIXEL_SHAPES = {'position': (8,), 'velocity': (9,), 'pixels': (32, 32, 3)}


@pytest.mark.slow
def test_actors_collect_pixel_observations(ray_cluster):
    """Actors are TensorFlow-free, so they render with OSMesa. Nothing is
    rendered in this (TensorFlow) process: the pool is built from shapes."""
    from softlearning.replay_pools.simple_replay_pool import SimpleReplayPool
    policy_params = {'class_name': 'FeedforwardGaussianPolicy', 'config': {
        'hidden_layer_sizes': (8,),
        'observation_keys': ('position', 'velocity')}}
    policy = policies.FeedforwardGaussianPolicy(
        PIXEL_SHAPES, (6,), seed=0, **policy_params['config'])
    exploration = policies.UniformPolicy(PIXEL_SHAPES, (6,), seed=0)
    pool = SimpleReplayPool(PIXEL_SHAPES, (6,), max_size=100)
    sampler = samplers.RemoteSampler(
        max_path_length=1000, num_samplers=2, sampler_cpus=0.5,
        environment_params=PIXEL_ENVIRONMENT_PARAMS,
        policy_params=policy_params,
        exploration_policy_params=EXPLORATION_PARAMS, seed=3)
    sampler.initialize(None, policy, pool)
    try:
        sampler.sample(20, exploration)
        sampler.sample(20, policy)
        assert pool.size == 40
        pixels = pool.data['observations']['pixels'][:40]
        next_pixels = pool.data['next_observations']['pixels'][:40]
        assert pixels.min() >= 0 and pixels.max() <= 255
        assert pixels.std() > 1.0  # a picture, not a blank frame
        # Frames follow the simulation: each actor's 10-step batches are
        # contiguous, and the cheetah moves between frames.
        for start in (0, 10, 20, 30):
            np.testing.assert_array_equal(
                pixels[start + 1:start + 10], next_pixels[start:start + 9])
        assert not np.array_equal(pixels[0], pixels[9])
        assert sampler.get_diagnostics()['policy-lag-max'] == 0
    finally:
        sampler.close()


@pytest.mark.slow
def test_recurrent_trial_on_actors_resumes_exactly(ray_cluster, tmp_path):
    """Recurrent SAC collected by two actors with two environments each: a
    checkpoint holds each environment's running episode and LSTM state
    (and the sequence pool), so
    epoch 3 after a restore equals epoch 3 of the run that never stopped."""
    from checkpoint_helpers import assert_resume_is_exact, tiny_variant

    variant = tiny_variant(
        algorithm='SAC', domain='Pendulum', task='v1', epochs=3,
        policy='recurrent', pomdp='positions', num_samplers=2,
        envs_per_sampler=2, sampler_cpus=0.5, max_path_length=20,
        config={'algorithm_params.config.batch_size': 8})
    variant['sampler_params']['config']['actor_options'] = ACTOR_OPTIONS

    def mid_episode(runner):
        states = runner.sampler.get_state()['actors']
        assert all(stepper['policy_state'] is not None
                   for state in states
                   for stepper in state['vector']['steppers'])
        assert all(len(state['vector']['steppers']) == 2 for state in states)

    assert_resume_is_exact(variant, tmp_path / 'checkpoint_000002',
                           ('Q_loss', 'policy_loss', 'Q_value-mean'),
                           before_save=mid_episode)


@pytest.mark.slow
def test_hindsight_trial_on_actors_resumes_exactly(ray_cluster, tmp_path):
    """SAC with hindsight relabeling on FetchReach, collected by two actors
    with two environments each (their episodes reach the pool
    interleaved), each actor's second environment in a process of its own
    (--vector-mode async; the goal, kept outside the physics, comes back
    with the episode's state): the checkpoint's pool rebuilds its episode
    index, and epoch 3 after a restore equals epoch 3 of the run that never
    stopped."""
    pytest.importorskip('gymnasium_robotics')
    from checkpoint_helpers import assert_resume_is_exact, tiny_variant

    variant = tiny_variant(
        algorithm='SAC', domain='FetchReach', task='v4', epochs=3,
        epoch_length=70, num_samplers=2, envs_per_sampler=2,
        vector_mode='async', sampler_cpus=0.5)
    assert variant['sampler_params']['config']['vector_mode'] == 'async'
    variant['sampler_params']['config']['actor_options'] = ACTOR_OPTIONS
    assert variant['replay_pool_params']['class_name'] == (
        'HindsightReplayPool')

    def relabels_interleaved_episodes(runner):
        pool = runner.pool
        episodes = pool.data['episodes'][:pool.size]
        # Four environments' episodes, and each known to the index whole.
        assert len(set(episodes.tolist())) >= 4
        index = pool._index
        for episode, slot in index.open.items():
            assert index.length[slot] == 1 + max(
                pool.data['episode_steps'][:pool.size][episodes == episode])

    assert_resume_is_exact(variant, tmp_path / 'checkpoint_000002',
                           ('Q_loss', 'policy_loss', 'Q_value-mean'),
                           before_save=relabels_interleaved_episodes)
