"""Replay pools: ``get({'class_name': ..., 'config': {...}}, env)``."""

from softlearning.utils.registry import lookup

from .frame_replay_pool import FrameReplayPool
from .hindsight_replay_pool import HindsightReplayPool
from .n_step_replay_pool import NStepReplayPool
from .sequence_replay_pool import SequenceReplayPool
from .simple_replay_pool import SimpleReplayPool

REPLAY_POOLS = {'SimpleReplayPool': SimpleReplayPool,
                'SequenceReplayPool': SequenceReplayPool,
                'FrameReplayPool': FrameReplayPool,
                'NStepReplayPool': NStepReplayPool,
                'HindsightReplayPool': HindsightReplayPool}


def get(params, env, seed=None):
    pool_class = lookup(REPLAY_POOLS, params['class_name'], 'replay pool')
    extra = {}
    if getattr(pool_class, 'takes_reward_function', False):
        # Relabeled goals get their rewards from the environment.
        from .hindsight_replay_pool import check_goal_environment
        check_goal_environment(env)
        extra['reward_function'] = env.compute_reward
    return pool_class(
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape, seed=seed,
        **extra, **params.get('config', {}))


__all__ = ['FrameReplayPool', 'HindsightReplayPool', 'NStepReplayPool', 'SequenceReplayPool',
           'SimpleReplayPool', 'get']
