"""dm_control's action repeat and the stepping both libraries share
(environments/adapters/dm_control_gymnasium.py): softlearning's adapter,
the variant (evaluation follows training), the suites' environment_kwargs,
and the peers' dm_control runs seeing the same task."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from peer_helpers import BENCHMARKS, REPO_ROOT, peers, plan_one, write_suite
from softlearning.environments import get_environment
from softlearning.experiments.benchmark.suites import SuiteError

pytest.importorskip('dm_control')

MODULE = os.path.join(REPO_ROOT, 'softlearning', 'environments', 'adapters',
                      'dm_control_gymnasium.py')
SUITE = """\
name: hard
algorithms: [SAC]
environments: [gym/Pendulum/v1, dm_control/cartpole/swingup]
seeds: [0]
steps: 2000
warmup_steps: 500
environment_kwargs:
  dm_control: {action_repeat: 2}
  dm_control/cartpole: {action_repeat: 3}
evaluation: {episodes: 2, first_seed: 1000, interval: 1000}
"""


def cartpole(action_repeat):
    return get_environment('dm_control', 'cartpole', 'swingup',
                           {'action_repeat': action_repeat})


def flat(environment, observation):
    return np.concatenate([observation[key]
                           for key in environment.observation_keys])


def test_a_repeated_action_sums_the_rewards_of_single_steps():
    once, twice = cartpole(1), cartpole(2)
    once.reset(seed=1000)
    twice.reset(seed=1000)
    actions = np.random.default_rng(0).uniform(-1, 1, (20, 1))
    for action in actions:
        (_, first, *_), (second_observation, second, *_) = (
            once.step(action), once.step(action))
        observation, reward, *_ = twice.step(action)
        assert reward == pytest.approx(first + second, abs=1e-12)
        np.testing.assert_array_equal(flat(twice, observation),
                                      flat(once, second_observation))


def test_an_episode_of_1000_frames_is_500_steps_at_repeat_2():
    environment = cartpole(2)
    assert environment.max_episode_steps == 500
    environment.reset(seed=1000)
    steps, done = 0, False
    while not done:
        *_, terminated, truncated, _ = environment.step(np.zeros(1))
        steps += 1
        done = terminated or truncated
    assert (steps, terminated, truncated) == (500, False, True)


@pytest.mark.parametrize('bad', [0, -1, 1.5, True])
def test_a_bad_action_repeat_names_the_value(bad):
    with pytest.raises(ValueError, match=f'action_repeat must be a positive '
                                         f'integer, got {bad!r}'):
        cartpole(bad)


def test_the_peers_environment_is_softlearnings_task():
    """The peer's gymnasium environment, built in a bare interpreter from
    the module's path (no softlearning, no TensorFlow), steps the same
    observations, rewards and ends as softlearning's adapter."""
    actions = np.random.default_rng(1).uniform(-1, 1, (510, 1))
    result = subprocess.run([sys.executable, '-I', '-c', f"""
import importlib.util, json, sys
import numpy as np
spec = importlib.util.spec_from_file_location('m', {MODULE!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
environment = module.gymnasium_environment('cartpole', 'swingup',
                                           action_repeat=2, seed=0)
observation, _ = environment.reset(seed=1000)
rows = [[observation.tolist(), 0.0, False, False]]
for action in {actions.tolist()!r}:
    observation, reward, terminated, truncated, _ = environment.step(
        np.array(action))
    rows.append([observation.tolist(), reward, terminated, truncated])
    if terminated or truncated:
        break
print(json.dumps({{'rows': rows, 'modules': [
    name for name in ('softlearning', 'tensorflow') if name in sys.modules],
    'shape': list(environment.observation_space.shape)}}))
"""], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    peer = json.loads(result.stdout.strip().splitlines()[-1])
    assert peer['modules'] == []
    ours = cartpole(2)
    rows = [[flat(ours, ours.reset(seed=1000)), 0.0, False, False]]
    for action in actions:
        observation, reward, terminated, truncated, _ = ours.step(action)
        rows.append([flat(ours, observation), reward, terminated, truncated])
        if terminated or truncated:
            break
    assert len(peer['rows']) == len(rows) == 501
    assert peer['shape'] == [rows[0][0].size]
    for (observation, *rest), (peer_observation, *peer_rest) in zip(
            rows, peer['rows']):
        np.testing.assert_array_equal(
            observation, np.asarray(peer_observation, np.float32))
        assert rest == peer_rest


def test_evaluation_takes_the_training_environments_kwargs():
    from softlearning.experiments import variant_spec
    spec = variant_spec(
        universe='dm_control', domain='cartpole', task='swingup',
        config={'environment_params.training.kwargs.action_repeat': 2})
    assert spec['environment_params']['evaluation']['kwargs'] == {
        'action_repeat': 2}
    spec = variant_spec(
        universe='dm_control', domain='cartpole', task='swingup',
        config={'environment_params.training.kwargs.action_repeat': 2,
                'environment_params.evaluation.kwargs.action_repeat': 4})
    assert spec['environment_params']['evaluation']['kwargs'] == {
        'action_repeat': 4}


def test_suites_set_environment_kwargs_by_universe_then_domain(tmp_path):
    suite = write_suite(tmp_path, SUITE)
    assert suite.kwargs_of(('dm_control', 'cartpole', 'swingup')) == {
        'action_repeat': 3}
    assert suite.kwargs_of(('dm_control', 'dog', 'run')) == {
        'action_repeat': 2}
    assert suite.kwargs_of(('gym', 'Pendulum', 'v1')) == {}
    with pytest.raises(SuiteError, match="'environment_kwargs' must map"):
        write_suite(tmp_path, SUITE.replace('dm_control: {action_repeat: 2}',
                                            'dm_control: 2'))


def test_a_suites_runs_get_their_environments_kwargs(tmp_path):
    from softlearning.experiments.benchmark.suite_experiment import (
        prepare_suite)
    suite = write_suite(tmp_path, SUITE)
    spec = prepare_suite(suite, local_dir=str(tmp_path), cpus=2).variant_spec
    for part in ('training', 'evaluation'):
        cells = spec['environment_params'][part]['kwargs'].func.args[0]
        assert cells == {'SAC-Pendulum-v1': {},
                         'SAC-cartpole-swingup': {'action_repeat': 3}}
    entries = spec['benchmark']['environment_kwargs'].func.args[0]
    assert entries['SAC-cartpole-swingup'] == {'action_repeat': 3}


def test_the_peers_run_dm_control_tasks_with_the_suites_repeat(tmp_path):
    suite = write_suite(tmp_path, SUITE)
    run = plan_one(suite, tmp_path, environment='dm_control/cartpole/swingup')
    assert run['gymnasium_id'] == 'dm_control/cartpole-swingup'
    assert run['environment_kwargs'] == {'action_repeat': 3}
    assert peers.extra_modules(run)[-1] == 'dm_control'
    params = peers.trial_params(suite, {'dm_control': '1.0'}, run)
    assert params['benchmark']['environment_kwargs'] == {'action_repeat': 3}
    with pytest.raises(SuiteError, match='universes'):
        peers.gymnasium_id('pybullet/HopperBulletEnv/v0')


def test_the_peers_refuse_kwargs_they_cannot_apply(tmp_path):
    suite = write_suite(tmp_path, SUITE.replace(
        '{action_repeat: 3}', '{action_repeat: 3, flat_observation: true}'))
    with pytest.raises(SuiteError, match='cannot apply'):
        plan_one(suite, tmp_path, environment='dm_control/cartpole/swingup')


def test_the_worker_builds_dm_control_tasks_through_the_shared_module():
    from peer_processes import DM_CONTROL_MODULE
    assert DM_CONTROL_MODULE == MODULE
    result = subprocess.run([sys.executable, '-I', '-c', f"""
import sys
sys.path.insert(0, {BENCHMARKS!r})
import peer_worker
environment = peer_worker.make_environment(
    'dm_control/cartpole-swingup',
    {{'dm_control_module': {MODULE!r}, 'seed': 0,
      'environment_kwargs': {{'action_repeat': 2}}}})
print(environment.repeat, environment.observation_space.shape)
"""], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split('\n')[-2] == '2 (5,)'


def test_the_random_score_of_a_dm_control_task_repeats_each_action_twice():
    import random_scores
    assert random_scores.DM_CONTROL_ACTION_REPEAT == 2
    score = random_scores.random_score('dm_control/cartpole-swingup', 1,
                                       1000, 0)
    ours = cartpole(2)
    ours.reset(seed=1000)
    rng, total, done = np.random.default_rng(0), 0.0, False
    while not done:
        action = rng.uniform(-np.ones(1), np.ones(1)).astype(np.float32)
        _, reward, terminated, truncated, _ = ours.step(action)
        total += reward
        done = terminated or truncated
    assert score['returns'] == [pytest.approx(total)]


def test_published_curves_read_mrqs_result_files(tmp_path):
    import published_curves
    results = tmp_path / 'results'
    results.mkdir()
    block = ('--------------------\nEnv: {name}\n'
             'Timestep\tSeed 0\t\tSeed 1\n'
             '0\t\t1.0\t\t3.0\n5000\t\t10.0\t\t20.0\n')
    (results / 'gym_results.txt').write_text(
        block.format(name='Gym-Ant-v4') + block.format(name='Gym-Humanoid-v4'))
    (results / 'dmc_results.txt').write_text(
        block.format(name='Dmc-dog-run') + block.format(
            name='Dmc-humanoid-run'))
    rows = published_curves.curve_rows(str(tmp_path))
    assert rows[:2] == [
        {'environment': 'gym/Humanoid/v5', 'source_task': 'Gym-Humanoid-v4',
         'steps': 0, 'mean': 2.0, 'std': 1.0, 'seeds': 2},
        {'environment': 'gym/Humanoid/v5', 'source_task': 'Gym-Humanoid-v4',
         'steps': 5000, 'mean': 15.0, 'std': 5.0, 'seeds': 2}]
    assert [row['environment'] for row in rows[2:]] == [
        'dm_control/dog/run'] * 2 + ['dm_control/humanoid/run'] * 2
