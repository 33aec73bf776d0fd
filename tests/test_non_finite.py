"""The checks that stop a trial whose numbers went non-finite
(softlearning/utils/non_finite.py), and that Tune does not retry it."""

import math

import numpy as np
import pytest

from softlearning.experiments.tune import behaviour as tune_behaviour
from softlearning.utils import non_finite
from softlearning.utils.non_finite import NonFiniteError


class Environment:
    universe, domain, task = 'gym', 'Pendulum', 'v1'


def test_describe_names_the_first_bad_entry():
    assert non_finite.describe(np.array([1.0, 2.0])) is None
    assert non_finite.describe(np.array([1, 2])) is None  # integers
    assert non_finite.describe(np.array([1.0, np.nan, np.inf])) == (
        'nan at index 1')
    assert non_finite.describe(np.array([[0.0, 0.0], [0.0, -np.inf]])) == (
        '-inf at index (1, 1)')
    assert non_finite.describe(np.float32(np.nan)) == 'nan'


@pytest.mark.parametrize('action, observation, reward, expected', [
    ([np.nan], {'observations': [0.0]}, 0.0,
     'The policy returned a non-finite action (nan at index 0) at step 3 '
     'of episode 1 of gym/Pendulum/v1.'),
    ([0.0], {'observations': [0.0, np.inf]}, 0.0,
     "The environment gym/Pendulum/v1 returned a non-finite observation "
     "'observations' (inf at index 1) at step 3 of episode 1."),
    ([0.0], {'observations': [0.0]}, math.nan,
     'The environment gym/Pendulum/v1 returned a non-finite reward (nan) at '
     'step 3 of episode 1.'),
])
def test_a_step_with_a_non_finite_number_is_one_line(action, observation,
                                                       reward, expected):
    with pytest.raises(NonFiniteError) as raised:
        non_finite.check_step(
            Environment(), np.asarray(action),
            {key: np.asarray(value) for key, value in observation.items()},
            reward, 'at step 3 of episode 1')
    message = str(raised.value)
    assert message.startswith(expected) and '\n' not in message
    assert non_finite.HINT in message


def test_finite_steps_pass():
    non_finite.check_step(Environment(), np.zeros(1),
                          {'observations': np.zeros(3, np.float32),
                           'pixels': np.zeros((2, 2, 3), np.uint8)},
                          -1.5, 'at step 1 of episode 0')


def test_only_losses_are_held_to_finite():
    non_finite.check_losses({'Q_loss': 1.0, 'Q_value-mean': math.nan}, '')
    with pytest.raises(NonFiniteError, match=r'Q_loss = inf, policy_loss = '
                                             r'nan in updates 5-8'):
        non_finite.check_losses({'Q_loss': math.inf, 'policy_loss': math.nan,
                                 'alpha': 0.1}, 'in updates 5-8')


def test_tune_does_not_retry_it_and_says_the_trial_stopped():
    error = NonFiniteError('Training went non-finite: Q_loss = nan.')
    wrapped = RuntimeError('the trial failed')
    wrapped.cause = error
    assert tune_behaviour.cannot_heal(wrapped)
    assert tune_behaviour.build_error_line(wrapped) == str(error)
    assert tune_behaviour._cannot_heal_notice('abc', wrapped) == (
        'Trial abc stopped: Training went non-finite: Q_loss = nan.')
    assert not tune_behaviour.cannot_heal(RuntimeError('a lost node'))
