"""Q-functions: ``get({'class_name': ..., 'config': {...}}, env)`` returns a
tuple of Q-functions (two for the default twin)."""

from .feedforward_q_function import (FeedforwardQFunction,
                                     double_feedforward_Q_function)

VALUE_FUNCTIONS = {
    'double_feedforward_Q_function': double_feedforward_Q_function,
    'feedforward_Q_function': lambda *a, **k: (FeedforwardQFunction(*a, **k),),
}


def get(params, env):
    class_name = params['class_name']
    if class_name not in VALUE_FUNCTIONS:
        raise ValueError(
            f"Unknown Q-function '{class_name}'. Valid Q-functions: "
            f"{', '.join(VALUE_FUNCTIONS)}")
    return VALUE_FUNCTIONS[class_name](
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape,
        **params.get('config', {}))


__all__ = ['FeedforwardQFunction', 'double_feedforward_Q_function', 'get']
