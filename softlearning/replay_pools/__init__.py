"""Replay pools: ``get({'class_name': ..., 'config': {...}}, env)``."""

from .simple_replay_pool import SimpleReplayPool

REPLAY_POOLS = {'SimpleReplayPool': SimpleReplayPool}


def get(params, env, seed=None):
    class_name = params['class_name']
    if class_name not in REPLAY_POOLS:
        raise ValueError(
            f"Unknown replay pool '{class_name}'. Valid replay pools: "
            f"{', '.join(REPLAY_POOLS)}")
    return REPLAY_POOLS[class_name](
        observation_shapes=env.observation_shapes,
        action_shape=env.action_shape, seed=seed,
        **params.get('config', {}))


__all__ = ['SimpleReplayPool', 'get']
