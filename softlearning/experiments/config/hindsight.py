"""``--her``: hindsight relabeling on goal-conditioned tasks."""

from softlearning.experiments.config.presets import common


def set_hindsight(variant_spec, strategy, universe, domain):
    """``--her STRATEGY``: a HindsightReplayPool relabels goals
    (replay_pools/hindsight_replay_pool.py); not given: the domain's
    (``common.HINDSIGHT_DOMAINS``: 'future' on the Fetch tasks) for an agent
    whose pool is a SimpleReplayPool, none otherwise. The environment is
    built here once, so that one without goals fails before Ray starts."""
    pool = variant_spec['replay_pool_params']
    if strategy is None:
        strategy = (common.HINDSIGHT_DOMAINS.get(f'{universe}/{domain}', 'off')
                    if pool['class_name'] == 'SimpleReplayPool' else 'off')
    if strategy == 'off':
        return
    if pool['class_name'] != 'SimpleReplayPool':
        raise ValueError(
            f"--her {strategy} relabels the transitions of a "
            f"SimpleReplayPool; this agent's pool is a {pool['class_name']}"
            " (--her off; hindsight relabeling takes SAC, TD3, DDPG, TQC, "
            "CrossQ, REDQ, DroQ, SimbaV2 and SQL on state observations).")
    from softlearning.environments import get_environment_from_params
    from softlearning.replay_pools.hindsight_replay_pool import (
        check_goal_environment)
    training = variant_spec['environment_params']['training']
    environment = get_environment_from_params(training)
    try:
        check_goal_environment(
            environment, f"{training['universe']}/{training['domain']}/"
                         f"{training['task']}")
    finally:
        environment.close()
    variant_spec['replay_pool_params'] = {
        'class_name': 'HindsightReplayPool',
        'config': {**pool['config'], 'strategy': strategy}}
