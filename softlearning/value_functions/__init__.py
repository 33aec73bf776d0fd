"""Q-functions: ``get({'class_name': ..., 'config': {...}}, env)`` returns a
tuple of Q-functions (two for the default twin)."""

from softlearning.utils.registry import lookup

from .feedforward_q_function import (FeedforwardQFunction,
                                     clone_Q_functions,
                                     double_feedforward_Q_function,
                                     feedforward_Q_function)
from .recurrent_q_function import (RecurrentQFunction,
                                   double_recurrent_Q_function,
                                   recurrent_Q_function)

VALUE_FUNCTIONS = {
    'double_feedforward_Q_function': double_feedforward_Q_function,
    'feedforward_Q_function': feedforward_Q_function,
    'double_recurrent_Q_function': double_recurrent_Q_function,
    'recurrent_Q_function': recurrent_Q_function,
}


def get(params, env, encoder=None):
    """``encoder``: a pixel agent's ConvEncoder, shared by the Q-functions."""
    Q_function = lookup(VALUE_FUNCTIONS, params['class_name'], 'Q-function')
    encoder_kwargs = {} if encoder is None else {'encoder': encoder}
    return Q_function(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        **params.get('config', {}), **encoder_kwargs)


__all__ = ['FeedforwardQFunction', 'RecurrentQFunction', 'VALUE_FUNCTIONS',
           'clone_Q_functions',
           'double_feedforward_Q_function', 'double_recurrent_Q_function',
           'feedforward_Q_function', 'get', 'recurrent_Q_function']
