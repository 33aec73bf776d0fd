import numpy as np
import pytest

from softlearning.value_functions import double_feedforward_Q_function

OBSERVATION_SHAPES = {'observations': (4,)}


def test_twin_q_shapes_independence_and_clone():
    Q0, Q1 = double_feedforward_Q_function(
        OBSERVATION_SHAPES, (2,), hidden_layer_sizes=(8,))
    observations = {'observations': np.ones((5, 4), np.float32)}
    actions = np.zeros((5, 2), np.float32)
    assert Q0(observations, actions).shape == (5, 1)
    # Two independently initialised networks.
    assert not np.allclose(Q0(observations, actions), Q1(observations, actions))
    target = Q0.clone()
    np.testing.assert_array_equal(Q0(observations, actions),
                                  target(observations, actions))
    # The clone owns its variables.
    target.set_weights([w + 1 for w in target.get_weights()])
    assert not np.allclose(Q0(observations, actions),
                           target(observations, actions))
    assert len(Q0.trainable_variables) == 4


def test_registry_rejects_unknown_q_function():
    from softlearning import value_functions
    with pytest.raises(ValueError, match='double_feedforward_Q_function'):
        value_functions.get({'class_name': 'triple_Q'}, env=None)
