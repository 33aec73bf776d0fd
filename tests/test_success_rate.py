"""Goal-conditioned tasks' success rate: an episode's success is the
``is_success`` of its last step's info; samplers, evaluation, the console
and the agent report its rate beside the return, and tasks without goals
report exactly what they did."""

import types

import gymnasium
import numpy as np
import pytest

from softlearning.algorithms.rl_algorithm import RLAlgorithm
from softlearning.environments import get_environment_from_params
from softlearning.policies.base_policy import BasePolicy
from softlearning.policies.numpy_policies import NumpyUniformPolicy
from softlearning.replay_pools import SimpleReplayPool
from softlearning.samplers import (RemoteSampler, Sampler, SamplerWorker,
                                   SimpleSampler, path_statistics, rollout)
from softlearning.samplers.episode_stepper import (EpisodeStepper,
                                                   FinishedEpisode)
from softlearning.samplers.utils import STATISTIC_KEYS, EpisodeLog

FETCH_REACH = {'universe': 'gym', 'domain': 'FetchReach', 'task': 'v4',
               'kwargs': {}}
PENDULUM = {'universe': 'gym', 'domain': 'Pendulum', 'task': 'v1',
            'kwargs': {}}
UNIFORM = {'class_name': 'UniformPolicy', 'config': {}}


class ScriptedGoalEnvironment:
    """Episodes of ``len(script)`` steps (then a time limit) whose step t's
    info has ``is_success`` ``script[t]`` (as Fetch tasks give it, an
    np.float32), or no ``is_success`` at all with ``reports=False``."""

    observation_shapes = {'observations': (1,)}
    action_shape = (1,)

    def __init__(self, script, reports=True):
        self.script, self.reports = list(script), reports
        self.t = 0

    def _observation(self):
        return {'observations': np.full(1, self.t, np.float32)}

    def reset(self, seed=None):
        self.t = 0
        return self._observation()

    def step(self, action):
        self.t += 1
        info = ({'is_success': np.float32(self.script[self.t - 1])}
                if self.reports else {})
        return (self._observation(), -1.0, False,
                self.t >= len(self.script), info)

    def get_episode_state(self):
        return None

    def set_physical_parameters(self, values):
        pass


def uniform(environment, seed=0):
    return NumpyUniformPolicy(environment.observation_shapes,
                              environment.action_shape, seed=seed)


def run_episode(stepper, policy):
    while True:
        _, finished = stepper.step(policy)
        if finished is not None:
            return finished


# The episode stepper ------------------------------------------------------

@pytest.mark.parametrize('script, success', [
    ([0, 0, 1], 1.0),
    # Reached, then left: the episode failed.
    ([0, 1, 0], 0.0),
])
def test_an_episodes_success_is_its_last_steps(script, success):
    environment = ScriptedGoalEnvironment(script)
    stepper = EpisodeStepper(environment, max_path_length=10, seed=0)
    assert not stepper.reports_success
    finished = run_episode(stepper, uniform(environment))
    assert finished == FinishedEpisode(-3.0, 3, success)
    assert type(finished.success) is float
    assert stepper.reports_success


def test_an_episode_cut_at_max_path_length_takes_its_last_steps_success():
    environment = ScriptedGoalEnvironment([0, 1, 0, 0])
    stepper = EpisodeStepper(environment, max_path_length=2, seed=0)
    assert run_episode(stepper, uniform(environment)).success == 1.0


def test_environments_without_successes_report_none():
    environment = ScriptedGoalEnvironment([1, 1], reports=False)
    stepper = EpisodeStepper(environment, max_path_length=10, seed=0)
    assert run_episode(stepper, uniform(environment)) == (-2.0, 2, None)
    assert not stepper.reports_success
    path = rollout(environment, uniform(environment), 10, seed=0)
    assert (path['return'], path['length'], path['success']) == (-2.0, 2,
                                                                 None)


def test_the_stepper_state_is_that_of_older_checkpoints():
    """Success needs no state: the stepper's checkpoint keys are the ones
    older checkpoints hold, and a restored stepper reports successes."""
    environment = ScriptedGoalEnvironment([0, 0, 1])
    stepper = EpisodeStepper(environment, max_path_length=10, seed=0)
    stepper.step(uniform(environment))
    state = stepper.get_state()
    assert set(state) == {'observation', 'path_length', 'path_return',
                          'num_paths', 'policy_state', 'environment'}
    fresh = EpisodeStepper(ScriptedGoalEnvironment([0, 0, 1]), 10, seed=0)
    fresh.set_state(state)
    assert run_episode(fresh, uniform(environment)).success == 1.0


# Statistics and the episode log -------------------------------------------

def test_path_statistics_without_successes_keep_their_keys():
    keys = [*STATISTIC_KEYS, 'episodes']
    assert list(path_statistics([1.0, 2.0], [5, 5])) == keys
    assert list(path_statistics([1.0, 2.0], [5, 5], [None, None])) == keys
    assert list(path_statistics([], [], [])) == keys


def test_path_statistics_success_rate_is_the_mean_of_the_reported():
    stats = path_statistics([1.0, 2.0, 3.0, 4.0], [5] * 4,
                            [1.0, 0.0, 1.0, 1.0])
    assert stats['success-rate'] == 0.75
    assert type(stats['success-rate']) is float
    # Episodes of an older checkpoint, saved without their successes.
    assert path_statistics([1.0] * 3, [5] * 3, [None, 1.0, 0.0])[
        'success-rate'] == 0.5


def test_the_episode_log_reports_this_epochs_then_the_recent_rates():
    log = EpisodeLog(store_last_n_paths=3)
    assert 'success-rate' not in log.statistics()
    log.reports_success = True  # the sampler saw a step's is_success
    # No episode ended yet: the column is there from the first epoch.
    assert np.isnan(log.statistics()['success-rate'])
    for success in (1.0, 0.0, 0.0, 1.0):
        log.add(-1.0, 10, success)
    assert log.statistics()['success-rate'] == 0.5
    log.start_epoch()
    # None this epoch: the last three.
    assert log.statistics()['success-rate'] == pytest.approx(1 / 3)


def scripted_sampler(script, reports=True, max_path_length=10):
    environment = ScriptedGoalEnvironment(script, reports)
    pool = SimpleReplayPool(environment.observation_shapes,
                            environment.action_shape, max_size=1000, seed=0)
    sampler = SimpleSampler(max_path_length=max_path_length, seed=0)
    sampler.initialize(environment, uniform(environment), pool)
    return sampler


def test_a_sampler_reports_the_rate_from_its_first_epoch():
    sampler = scripted_sampler([0, 0, 1])
    sampler.sample(2)  # no episode ended
    assert np.isnan(sampler.get_diagnostics()['success-rate'])
    sampler.sample(4)
    assert sampler.get_diagnostics()['success-rate'] == 1.0
    plain = scripted_sampler([0, 0, 1], reports=False)
    plain.sample(6)
    assert 'success-rate' not in plain.get_diagnostics()


def test_simple_sampler_state_round_trip_keeps_the_successes():
    sampler = scripted_sampler([0, 1, 0, 1])
    sampler.sample(10)
    sampler.start_epoch()
    sampler.sample(4)
    state = sampler.get_state()
    assert state['_epoch_successes'] == [1.0]
    assert state['_recent_successes'] == [1.0, 1.0, 1.0]
    restored = scripted_sampler([0, 1, 0, 1])
    restored.set_state(state)
    assert restored.get_diagnostics() == sampler.get_diagnostics()
    restored.start_epoch()
    assert restored.get_diagnostics()['success-rate'] == 1.0


def test_simple_sampler_loads_a_state_saved_without_successes():
    sampler = scripted_sampler([0, 1, 0, 1])
    sampler.sample(10)
    state = sampler.get_state()
    del state['_epoch_successes'], state['_recent_successes']
    restored = scripted_sampler([0, 1, 0, 1])
    restored.set_state(state)
    diagnostics = restored.get_diagnostics()
    assert 'success-rate' not in diagnostics
    assert diagnostics['return-mean'] == sampler.get_diagnostics()[
        'return-mean']
    # Its next episodes have successes again.
    restored.start_epoch()
    restored.sample(8)
    assert restored.get_diagnostics()['success-rate'] == 1.0


def remote_sampler(params=FETCH_REACH):
    """A RemoteSampler whose actors are never started: its statistics and
    checkpoint state only."""
    sampler = RemoteSampler(
        max_path_length=50, num_samplers=1, environment_params=params,
        policy_params=UNIFORM, asynchronous=True, store_last_n_paths=3)
    environment = get_environment_from_params(params)
    sampler.pool = SimpleReplayPool(environment.observation_shapes,
                                    environment.action_shape,
                                    max_size=1000, seed=0)
    return sampler


def test_a_sampler_actors_results_carry_their_successes():
    """A sampler actor's body, in this process, on FetchReach: its sample
    and evaluate results, and the remote sampler's statistics of them."""
    worker = SamplerWorker(FETCH_REACH, UNIFORM, UNIFORM, max_path_length=50,
                           seed=3, evaluation_environment_params=FETCH_REACH)
    result = worker.sample(120, 'exploration')
    assert result['lengths'] == [50, 50]
    assert len(result['successes']) == 2
    assert set(result['successes']) <= {0.0, 1.0}
    assert result['reports_success']
    evaluated = worker.evaluate([0, 1])
    assert [episode.length for episode in evaluated] == [50, 50]
    assert all(episode.success in (0.0, 1.0) for episode in evaluated)

    sampler = remote_sampler()
    sampler._add_result(result)
    diagnostics = sampler.get_diagnostics()
    assert diagnostics['success-rate'] == np.mean(result['successes'])

    # Its checkpoint state: a round trip, and a state saved before
    # successes were kept.
    state = sampler.get_state()
    assert state['recent_successes'] == result['successes']
    restored = remote_sampler()
    restored.set_state(state)
    assert restored.get_diagnostics()['success-rate'] == diagnostics[
        'success-rate']
    del state['recent_successes']
    older = remote_sampler()
    older.set_state(state)
    assert 'success-rate' not in older.get_diagnostics()
    assert older.get_diagnostics()['return-mean'] == diagnostics[
        'return-mean']


def test_a_sampler_actor_on_a_task_without_goals_reports_none():
    worker = SamplerWorker(PENDULUM, UNIFORM, UNIFORM, max_path_length=20,
                           seed=3)
    result = worker.sample(40, 'exploration')
    assert result['successes'] == [None, None]
    assert not result['reports_success']
    sampler = remote_sampler(PENDULUM)
    sampler._add_result(result)
    assert 'success-rate' not in sampler.get_diagnostics()


# Evaluation on FetchReach-v4 ---------------------------------------------

class ReachPolicy(BasePolicy):
    """Moves the gripper straight at the goal (5 cm a step at most):
    FetchReach's goals are within reach in a few steps."""

    def actions_np(self, observations):
        delta = observations['desired_goal'] - observations['achieved_goal']
        return np.concatenate([np.clip(20 * delta, -1, 1),
                               np.zeros((len(delta), 1))],
                              axis=-1).astype(np.float32)


class ActorsInThisProcess(Sampler):
    """A sampler that evaluates 'on its actors' (as RemoteSampler does for
    pixel environments): a SamplerWorker's evaluate, in this process."""

    evaluates_on_actors = True

    def __init__(self, policy_params, first_seeds):
        super().__init__(max_path_length=50)
        self.worker = SamplerWorker(
            FETCH_REACH, policy_params, UNIFORM, max_path_length=50, seed=0,
            evaluation_environment_params=FETCH_REACH)
        self.first_seeds = first_seeds

    def evaluate(self, n_episodes, first_seed, deterministic=True,
                 physical_parameters=None):
        self.first_seeds.append(first_seed)
        episodes = self.worker.evaluate(
            np.arange(n_episodes) + first_seed, deterministic)
        return tuple(list(column) for column in zip(*episodes))

    def sample(self, n_steps, policy=None):
        raise AssertionError('not sampled here')

    set_physical_parameters = get_physical_parameters = sample
    get_state = set_state = sample


def evaluation(policy, **kwargs):
    environment = get_environment_from_params(FETCH_REACH)
    algorithm = RLAlgorithm(
        pool=None, sampler=kwargs.pop('sampler', None) or SimpleSampler(50),
        policy=policy, training_environment=environment,
        evaluation_environment=environment, eval_n_episodes=4,
        max_path_length=50, **kwargs)
    return algorithm._evaluate()


def fetch_policies():
    environment = get_environment_from_params(FETCH_REACH)
    keys, shape = environment.observation_shapes, environment.action_shape
    return (NumpyUniformPolicy(keys, shape, seed=0),
            ReachPolicy(tuple(keys), shape))


def test_evaluation_on_fetch_reach_reports_a_success_rate():
    uniform_policy, reach = fetch_policies()
    for kwargs in ({}, {'eval_seed': 100}):
        stats = evaluation(uniform_policy, **kwargs)
        assert 0.0 <= stats['success-rate'] <= 1.0
        assert stats['episodes'] == 4
        # Going at the goal succeeds where sitting still (the uniform
        # policy's deterministic action) does not.
        assert evaluation(reach, **kwargs)['success-rate'] == 1.0
    # As one vector over copies of the environment.
    copies = [get_environment_from_params(FETCH_REACH)]
    assert evaluation(reach, eval_seed=100,
                      evaluation_environment_copies=copies)[
        'success-rate'] == 1.0


def test_evaluation_on_actors_reports_a_success_rate():
    first_seeds = []
    sampler = ActorsInThisProcess(UNIFORM, first_seeds)
    stats = evaluation(fetch_policies()[0], sampler=sampler, eval_seed=7)
    assert first_seeds == [7]
    assert 0.0 <= stats['success-rate'] <= 1.0 and stats['episodes'] == 4


def test_evaluation_of_a_task_without_goals_keeps_its_keys():
    environment = get_environment_from_params(PENDULUM)
    algorithm = RLAlgorithm(
        pool=None, sampler=SimpleSampler(20), policy=uniform(environment),
        training_environment=environment, evaluation_environment=environment,
        eval_n_episodes=2, max_path_length=20)
    assert list(algorithm._evaluate()) == [*STATISTIC_KEYS, 'episodes']


def test_an_agent_evaluates_the_success_rate_of_a_goal_task():
    from softlearning.agent import Agent
    from softlearning.environments.adapters.robotics import (
        register_robotics_environments)
    adapter = get_environment_from_params(FETCH_REACH)
    _, reach = fetch_policies()
    agent = Agent(types.SimpleNamespace(
        policy=reach, checkpoint_dir='fetch-reach',
        variant={'environment_params': {'training': FETCH_REACH}},
        environment=adapter))
    assert register_robotics_environments()
    env = gymnasium.make('FetchReach-v4')
    try:
        result = agent.evaluate(env, episodes=3, seed=0)
    finally:
        env.close()
    assert result['success-rate'] == 1.0
    assert result['successes'] == [1.0, 1.0, 1.0]
    assert len(result['returns']) == 3


# The console ---------------------------------------------------------------

def epoch(evaluation_stats):
    return {'epoch': 3, 'total_timestep': 3000, 'num_train_steps': 2000,
            'timesteps_per_second': 100.0, 'evaluation': evaluation_stats,
            'training': {'return-mean': -40.0}}


def test_the_epoch_line_shows_the_evaluation_success_rate():
    from softlearning.experiments.trial.console import format_progress
    line = format_progress(epoch({'return-mean': -12.5,
                                  'success-rate': 0.8}), 10)
    assert ('| eval return     -12.5 | eval success 0.80 | train return '
            '    -40.0 |') in line
    plain = format_progress(epoch({'return-mean': -12.5}), 10)
    assert plain == ('epoch     3/10 | steps      3000 | eval return     '
                     '-12.5 | train return     -40.0 |   100.0 steps/s')


def test_the_final_lines_show_the_success_rate(capsys):
    from softlearning.experiments.tune.runner import report
    results = [types.SimpleNamespace(
        metrics={'done': True, 'epoch': 10, 'evaluation': evaluation_stats},
        error=None, path=f'/results/trial_{i}')
        for i, evaluation_stats in enumerate((
            {'return-mean': -5.0, 'success-rate': 0.75},
            {'return-mean': -150.0}))]
    run = types.SimpleNamespace(results=results, folder='/results',
                                interrupted=False)
    assert report(run) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].endswith(
        'epoch 10, evaluation return-mean -5.0, success-rate 0.75')
    assert lines[-1].endswith('epoch 10, evaluation return-mean -150.0')
