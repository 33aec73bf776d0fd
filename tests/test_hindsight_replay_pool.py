"""The hindsight replay pool: goals relabeled as a brute-force reading of the
stored episodes says they should be, rewards recomputed by the
environment's function, exact resume, Fetch tasks under --universe gym, and
refusals before Ray starts."""

import numpy as np
import pytest

from conftest import assert_one_line_error, run_cli, run_python
from softlearning import replay_pools
from softlearning.replay_pools.hindsight_replay_pool import (
    HindsightReplayPool, check_goal_environment)

SHAPES = {'observation': (2,), 'achieved_goal': (2,), 'desired_goal': (2,)}
THRESHOLD = 0.5


def sparse_reward(achieved_goal, desired_goal, info):
    """Fetch's form: -1 unless within THRESHOLD of the goal."""
    assert info == {}
    distance = np.linalg.norm(achieved_goal - desired_goal, axis=-1)
    return -(distance > THRESHOLD).astype(np.float32)


def pool_of(max_size=1000, strategy='future', relabeled_goals=4, seed=3):
    return HindsightReplayPool(SHAPES, (1,), max_size,
                               reward_function=sparse_reward,
                               strategy=strategy,
                               relabeled_goals=relabeled_goals, seed=seed)


def transition(episode, step):
    """Step ``step`` of ``episode``: its achieved goal after the step is
    (episode, step + 1), so a goal names the transition it came from."""
    achieved = np.array([episode, step], np.float32)
    goal = np.array([100.0 + episode, 0.0], np.float32)
    return ({'observation': achieved, 'achieved_goal': achieved,
             'desired_goal': goal},
            np.zeros(1, np.float32), -1.0, False,
            {'observation': achieved + [0, 1], 'achieved_goal':
             achieved + [0, 1], 'desired_goal': goal},
            episode, step)


def fill(pool, episodes=(0, 1, 2), length=20, interleave=True):
    """Episodes stepped side by side (as K environments of a sampler add
    them), or one after the other."""
    order = ([(e, t) for t in range(length) for e in episodes] if interleave
             else [(e, t) for e in episodes for t in range(length)])
    for episode, step in order:
        pool.add_sample(*transition(episode, step))
    return order


def expected_goal_steps(pool, position, strategy):
    """Brute force: the steps of the transition's episode that are stored,
    from which the strategy draws (in order)."""
    data = pool.data
    episode = data['episodes'][position]
    step = data['episode_steps'][position]
    stored = np.arange(pool.size)
    steps = sorted(data['episode_steps'][stored][
        data['episodes'][stored] == episode])
    return {'future': [s for s in steps if s >= step],
            'final': steps[-1:],
            'episode': steps}[strategy]


@pytest.mark.parametrize('strategy', ['future', 'final', 'episode'])
@pytest.mark.parametrize('interleave', [True, False])
def test_relabeled_goals_and_rewards_match_a_direct_computation(
        strategy, interleave):
    pool = pool_of(strategy=strategy)
    fill(pool, interleave=interleave)
    indices = pool.random_indices((4, 64))
    # The pool's random stream after drawing the indices: the relabel
    # draws, then one uniform per relabeled transition.
    rng = np.random.default_rng()
    rng.bit_generator.state = pool.get_np_random_state()
    batch = pool.relabeled_batch(indices)
    relabel = rng.random(indices.size) < 4 / 5
    uniforms = iter(rng.random(relabel.sum()))
    flat_goals = batch['observations']['desired_goal'].reshape(-1, 2)
    flat_next_goals = batch['next_observations']['desired_goal'].reshape(
        -1, 2)
    flat_rewards = batch['rewards'].reshape(-1)
    assert 0.6 < relabel.mean() < 0.95
    for n, position in enumerate(indices.reshape(-1)):
        episode = pool.data['episodes'][position]
        achieved = pool.data['next_observations']['achieved_goal'][position]
        if not relabel[n]:
            np.testing.assert_array_equal(flat_goals[n], [100 + episode, 0])
            assert flat_rewards[n] == -1
            continue
        steps = expected_goal_steps(pool, position, strategy)
        goal_step = steps[int(next(uniforms) * len(steps))]
        # The achieved goal after step s is (episode, s + 1).
        expected = np.array([episode, goal_step + 1], np.float32)
        np.testing.assert_array_equal(flat_goals[n], expected)
        np.testing.assert_array_equal(flat_next_goals[n], expected)
        assert flat_rewards[n] == sparse_reward(achieved, expected, {})
    # Relabeling draws from the episode's later steps: some succeed.
    assert (flat_rewards == 0).any()
    np.testing.assert_array_equal(batch['observations']['observation'],
                                  pool.data['observations']['observation'][
                                      indices])


def test_no_relabeled_goals_is_the_stored_transitions():
    pool = pool_of(relabeled_goals=0)
    fill(pool)
    indices = pool.random_indices((2, 32))
    batch = pool.relabeled_batch(indices)
    np.testing.assert_array_equal(
        batch['observations']['desired_goal'],
        pool.data['observations']['desired_goal'][indices])
    assert set(batch) == {'observations', 'next_observations', 'actions',
                          'rewards', 'terminals'}


def test_an_overwritten_episode_relabels_with_its_steps_still_stored():
    # 3 episodes of 20 interleaved in a ring of 25: the oldest steps of
    # each are gone.
    pool = pool_of(max_size=25, strategy='episode')
    fill(pool, length=20)
    assert pool.size == 25
    for _ in range(20):
        indices = pool.random_indices((1, 64))
        rng = np.random.default_rng()
        rng.bit_generator.state = pool.get_np_random_state()
        batch = pool.relabeled_batch(indices)
        relabel = rng.random(indices.size) < 4 / 5
        goals = batch['observations']['desired_goal'][0]
        for n, position in enumerate(indices[0]):
            if not relabel[n]:
                continue
            episode = pool.data['episodes'][position]
            steps = expected_goal_steps(pool, position, 'episode')
            assert goals[n][0] == episode
            assert goals[n][1] - 1 in steps


def test_a_restarted_episode_id_starts_a_new_episode():
    """A checkpoint whose environment could not be restored cuts the
    episode; the next steps come again from step 0 under the same id."""
    pool = pool_of(strategy='final', relabeled_goals=1000)
    for step in range(10):
        pool.add_sample(*transition(0, step))
    for step in range(3):
        pool.add_sample(*transition(0, step))
    batch = pool.relabeled_batch(np.arange(10, 13))
    # The final step of the second run of episode 0 is step 2.
    assert sorted(batch['observations']['desired_goal'][:, 1]) == [3, 3, 3]


def test_exact_resume_from_checkpoint_pieces():
    """A pool rebuilt from the pieces a checkpoint stores (and its state)
    draws the same relabeled minibatches, also when the first piece starts
    mid-episode (a pool that had wrapped)."""
    original = pool_of(max_size=50)
    fill(original, episodes=(0, 1), length=20)
    first = original.experience_since(0)
    mark = original.total_samples
    fill(original, episodes=(2, 3, 4), length=10)
    second = original.experience_since(mark)
    resumed = pool_of(max_size=50, seed=99)
    resumed.add_experience(first)
    resumed.add_experience(second)
    resumed.set_state(original.get_state())
    for _ in range(3):
        a, b = original.random_batches(2, 32), resumed.random_batches(2, 32)
        for key in ('rewards', 'actions'):
            np.testing.assert_array_equal(a[key], b[key])
        for key in SHAPES:
            np.testing.assert_array_equal(a['observations'][key],
                                          b['observations'][key])
    # Resumed from a snapshot of the wrapped pool alone.
    snapshot = pool_of(max_size=50, seed=5)
    snapshot.add_experience(original.experience_since(0))
    snapshot.set_state(original.get_state())
    a, b = original.random_batches(4, 64), snapshot.random_batches(4, 64)
    np.testing.assert_array_equal(a['observations']['desired_goal'],
                                  b['observations']['desired_goal'])


def test_batches_added_at_once_are_indexed_as_single_ones():
    one_by_one, batched = pool_of(), pool_of()
    order = fill(one_by_one)
    from softlearning.samplers.episode_stepper import stack_transitions
    batched.add_samples(stack_transitions(
        [transition(e, t) for e, t in order]))
    a = one_by_one.random_batches(3, 50)
    b = batched.random_batches(3, 50)
    np.testing.assert_array_equal(a['observations']['desired_goal'],
                                  b['observations']['desired_goal'])


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="Valid strategies: future"):
        pool_of(strategy='later')
    with pytest.raises(ValueError, match='achieved_goal, desired_goal'):
        HindsightReplayPool({'observations': (3,)}, (1,), 10)


# gymnasium-robotics -------------------------------------------------------

@pytest.fixture(scope='module')
def fetch_reach():
    pytest.importorskip('gymnasium_robotics')
    from softlearning.environments import get_environment
    environment = get_environment('gym', 'FetchReach', 'v4', {})
    yield environment
    environment.close()


def test_fetch_pool_recomputes_rewards_with_the_environments_function(
        fetch_reach):
    pool = replay_pools.get({'class_name': 'HindsightReplayPool',
                             'config': {'max_size': 500}}, fetch_reach,
                            seed=0)
    rng = np.random.default_rng(0)
    for episode in range(4):
        observation = fetch_reach.reset(seed=episode)
        for step in range(50):
            action = rng.uniform(-1, 1, 4).astype(np.float32)
            next_observation, reward, terminated, _, _ = fetch_reach.step(
                action)
            pool.add_sample(observation, action, reward, terminated,
                            next_observation, episode=episode, step=step)
            observation = next_observation
    batch = pool.random_batch(512)
    expected = fetch_reach.compute_reward(
        batch['next_observations']['achieved_goal'],
        batch['next_observations']['desired_goal'], {})
    np.testing.assert_array_equal(batch['rewards'][:, 0], expected)
    assert (batch['rewards'] == 0).mean() > 0.2  # random actions alone: ~0


def test_fetch_tasks_resolve_and_continue_mid_episode_with_their_goal(
        fetch_reach):
    from softlearning.environments import get_environment, resolve_task
    assert resolve_task('gym', 'FetchPush', 'v4') == 'v4'
    fetch_reach.reset(seed=3)
    fetch_reach.step(np.full(4, 0.3, np.float32))
    state = fetch_reach.get_episode_state()
    expected = fetch_reach.step(np.full(4, -0.2, np.float32))[0]
    other = get_environment('gym', 'FetchReach', 'v4', {})
    other.reset(seed=11)  # another goal
    other.set_episode_state(state)
    observed = other.step(np.full(4, -0.2, np.float32))[0]
    for key in expected:
        np.testing.assert_array_equal(observed[key], expected[key])
    other.close()


def test_goal_environment_check_names_what_is_missing():
    from softlearning.environments import get_environment
    pendulum = get_environment('gym', 'Pendulum', 'v1', {})
    with pytest.raises(ValueError, match='no compute_reward'):
        check_goal_environment(pendulum)


def run_example(*options):
    return run_cli('run_example_local', 'examples.development', *options,
                   timeout=300)


def test_her_on_an_environment_without_goals_stops_before_ray():
    result = run_example('--universe', 'gym', '--domain', 'Pendulum',
                         '--task', 'v1', '--her', 'future')
    assert_one_line_error(result, 'softlearning: error: Hindsight replay '
                          'needs a goal-conditioned environment: '
                          'gym/Pendulum/v1')
    assert 'Ray' not in result.stderr and 'ray' not in result.stdout


def test_her_with_an_agent_whose_pool_cannot_relabel_stops_before_ray():
    pytest.importorskip('gymnasium_robotics')
    result = run_example('--algorithm', 'FastTD3', '--universe', 'gym',
                         '--domain', 'FetchReach', '--task', 'v4', '--her',
                         'future')
    assert_one_line_error(result, "this agent's pool is a NStepReplayPool "
                          '(--her off')


def test_simulate_builds_fetch_tasks_at_the_frame_size_asked_for(
        fetch_reach):
    """Headless, as softlearning simulate films it (MUJOCO_GL=osmesa is
    read when MuJoCo first renders: in a process of its own)."""
    script = (
        "from softlearning.experiments.trial.policy_loading import "
        "build_environment\n"
        "variant = {'environment_params': {'training': {'universe': 'gym', "
        "'domain': 'FetchReach', 'task': 'v4', 'kwargs': {}}}}\n"
        "environment = build_environment(variant, 'rgb_array', "
        "{'width': 64, 'height': 48})\n"
        "environment.reset(seed=0)\n"
        "print(environment.render().shape)\n")
    result = run_python(script, env={'MUJOCO_GL': 'osmesa',
                                     'PYOPENGL_PLATFORM': 'osmesa'})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == '(48, 64, 3)'


@pytest.mark.slow
def test_a_hindsight_trial_with_three_environments_resumes_exactly(
        fetch_reach, tmp_path):
    """In the trial's process, three environments stepped as one vector;
    checkpoints fall mid-episode (epochs of 70 steps, episodes of 50)."""
    from checkpoint_helpers import assert_resume_is_exact, tiny_variant
    variant = tiny_variant(domain='FetchReach', task='v4', epoch_length=70,
                           envs_per_sampler=3)
    assert variant['replay_pool_params'] == {
        'class_name': 'HindsightReplayPool',
        'config': {'max_size': 1000000, 'strategy': 'future',
                   'relabeled_goals': 4}}
    assert variant['algorithm_params']['config']['discount'] == 0.95
    assert_resume_is_exact(variant, tmp_path / 'checkpoint_000002')


@pytest.mark.slow
@pytest.mark.parametrize('algorithm',
                         ['SAC', 'TD3', 'DDPG', 'TQC', 'CrossQ', 'REDQ'])
def test_off_policy_agents_train_on_relabeled_goals(fetch_reach, algorithm):
    """Each agent's Fetch preset gives it the hindsight pool, and an epoch
    of its compiled update runs on relabeled minibatches."""
    import math
    from checkpoint_helpers import make_runner, tiny_variant
    variant = tiny_variant(algorithm=algorithm, domain='FetchReach',
                           task='v4', epochs=1, epoch_length=120)
    assert variant['replay_pool_params']['class_name'] == (
        'HindsightReplayPool')
    runner = make_runner(variant)
    result = runner.train()
    assert runner.pool.size == 120
    assert result['num_train_steps'] > 0
    assert 0 <= result['evaluation']['success-rate'] <= 1
    for key in runner.algorithm.training_diagnostic_keys:
        assert math.isfinite(result[key]), key
