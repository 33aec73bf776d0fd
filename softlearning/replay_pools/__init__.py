"""Replay pools: ``get({'class_name': ..., 'config': {...}}, env)``."""

from softlearning.utils.registry import lookup

from .frame_replay_pool import FrameReplayPool
from .n_step_replay_pool import NStepReplayPool
from .sequence_replay_pool import SequenceReplayPool
from .simple_replay_pool import SimpleReplayPool

REPLAY_POOLS = {'SimpleReplayPool': SimpleReplayPool,
                'SequenceReplayPool': SequenceReplayPool,
                'FrameReplayPool': FrameReplayPool,
                'NStepReplayPool': NStepReplayPool}


def get(params, env, seed=None):
    pool_class = lookup(REPLAY_POOLS, params['class_name'], 'replay pool')
    return pool_class(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape, seed=seed,
        **params.get('config', {}))


__all__ = ['FrameReplayPool', 'NStepReplayPool', 'SequenceReplayPool',
           'SimpleReplayPool', 'get']
