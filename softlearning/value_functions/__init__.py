"""Q-functions: ``get({'class_name': ..., 'config': {...}}, env)`` returns a
tuple of Q-functions (two for the default twin). Imported (with TensorFlow)
on first use."""

from softlearning.models.precision import DEFAULT_PRECISION
from softlearning.utils.registry import lazy_attributes, load, lookup

_FEEDFORWARD = 'softlearning.value_functions.feedforward_q_function'
_RECURRENT = 'softlearning.value_functions.recurrent_q_function'

VALUE_FUNCTIONS = {
    'double_feedforward_Q_function':
        f'{_FEEDFORWARD}:double_feedforward_Q_function',
    'feedforward_Q_function': f'{_FEEDFORWARD}:feedforward_Q_function',
    'feedforward_Q_functions': f'{_FEEDFORWARD}:feedforward_Q_functions',
    'double_recurrent_Q_function':
        f'{_RECURRENT}:double_recurrent_Q_function',
    'recurrent_Q_function': f'{_RECURRENT}:recurrent_Q_function',
}

__getattr__ = lazy_attributes({
    **VALUE_FUNCTIONS,
    'FeedforwardQFunction': f'{_FEEDFORWARD}:FeedforwardQFunction',
    'clone_Q_functions': f'{_FEEDFORWARD}:clone_Q_functions',
    'RecurrentQFunction': f'{_RECURRENT}:RecurrentQFunction',
}, __name__)


def get(params, env, encoder=None, precision=DEFAULT_PRECISION):
    """``encoder``: a pixel agent's ConvEncoder, shared by the Q-functions;
    ``precision``: what their networks compute in (models/precision.py)."""
    Q_function = load(lookup(VALUE_FUNCTIONS, params['class_name'],
                             'Q-function'))
    encoder_kwargs = {} if encoder is None else {'encoder': encoder}
    if precision != DEFAULT_PRECISION:
        encoder_kwargs['precision'] = precision
    return Q_function(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        **params.get('config', {}), **encoder_kwargs)


__all__ = ['FeedforwardQFunction', 'RecurrentQFunction', 'VALUE_FUNCTIONS',
           'clone_Q_functions',
           'double_feedforward_Q_function', 'double_recurrent_Q_function',
           'feedforward_Q_function', 'feedforward_Q_functions', 'get',
           'recurrent_Q_function']
