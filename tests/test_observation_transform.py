"""observation_transform=symlog: what the agent observes, what stays as
the task gives it, and the variant's checks before a run starts."""

import numpy as np
import pytest

from softlearning.environments import get_environment_from_params
from softlearning.environments.observation_transform import (
    TransformedObservations, symlog, transformed)


def _params(domain, task, **kwargs):
    return {'universe': 'gym', 'domain': domain, 'task': task,
            'kwargs': kwargs}


def test_symlog_keeps_sign_and_order_and_is_near_identity_at_zero():
    x = np.array([-40000.0, -2.0, -1e-3, 0.0, 1e-3, 2.0, 40000.0])
    y = symlog(x)
    np.testing.assert_allclose(y, np.sign(x) * np.log(1 + np.abs(x)))
    assert np.all(np.diff(y) > 0)
    assert y[3] == 0 and y[4] == pytest.approx(1e-3, rel=1e-3)
    assert y[-1] < 11


def test_the_agent_sees_symlog_of_what_the_task_returns():
    plain = get_environment_from_params(_params('Pendulum', 'v1'))
    wrapped = get_environment_from_params(
        _params('Pendulum', 'v1', observation_transform='symlog'))
    assert isinstance(wrapped, TransformedObservations)
    first, second = plain.reset(seed=3), wrapped.reset(seed=3)
    assert set(first) == set(second) == {'observations'}
    np.testing.assert_allclose(second['observations'],
                               symlog(first['observations']), rtol=1e-6)
    assert second['observations'].dtype == first['observations'].dtype
    action = np.array([0.5], np.float32)
    step, transformed = plain.step(action), wrapped.step(action)
    np.testing.assert_allclose(transformed[0]['observations'],
                               symlog(step[0]['observations']), rtol=1e-6)
    assert transformed[1:4] == step[1:4]  # reward, terminated, truncated
    space = wrapped.observation_space['observations']
    np.testing.assert_allclose(
        space.high, symlog(plain.observation_space['observations'].high))
    assert wrapped.action_shape == plain.action_shape


def test_goals_stay_as_the_task_gives_them():
    pytest.importorskip('gymnasium_robotics')
    plain = get_environment_from_params(_params('FetchReach', 'v4'))
    wrapped = get_environment_from_params(
        _params('FetchReach', 'v4', observation_transform='symlog'))
    first, second = plain.reset(seed=5), wrapped.reset(seed=5)
    for key in ('achieved_goal', 'desired_goal'):
        np.testing.assert_array_equal(first[key], second[key])
    np.testing.assert_allclose(second['observation'],
                               symlog(first['observation']), rtol=1e-6)


def test_the_setting_is_checked_before_the_run_and_evaluation_follows():
    from softlearning.experiments import variant_spec
    key = 'environment_params.training.kwargs.observation_transform'
    with pytest.raises(ValueError, match='observation_transform takes one '
                                         'of none, symlog'):
        variant_spec(algorithm='SAC', config={key: 'log'})
    spec = variant_spec(algorithm='SAC', config={key: 'symlog'})
    for which in ('training', 'evaluation'):
        assert spec['environment_params'][which]['kwargs'][
            'observation_transform'] == 'symlog'


def test_none_leaves_the_observations_as_the_task_gives_them():
    plain = get_environment_from_params(_params('Pendulum', 'v1'))
    untouched = get_environment_from_params(
        _params('Pendulum', 'v1', observation_transform='none'))
    assert not isinstance(untouched, TransformedObservations)
    np.testing.assert_array_equal(plain.reset(seed=4)['observations'],
                                  untouched.reset(seed=4)['observations'])
    assert transformed(plain, None) is plain
    with pytest.raises(ValueError, match="other than 'none'"):
        TransformedObservations(plain, 'none')
    with pytest.raises(ValueError, match="valid: none, symlog"):
        TransformedObservations(plain, 'log')
