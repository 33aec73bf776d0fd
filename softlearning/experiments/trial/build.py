"""Every component of a trial, built from its variant: environments, the
pixel encoder, policies, Q-functions, replay pool, sampler, curriculum and
the algorithm that trains them. Each comes from its family's registry
(``{'class_name', 'config'}``); what one component needs of another is
passed here, and only here."""

import dataclasses
from typing import Any, Optional


@dataclasses.dataclass
class Components:
    training_environment: Any
    evaluation_environment: Optional[Any]
    evaluation_environment_copies: list
    policy: Any
    initial_exploration_policy: Any
    Qs: tuple
    pool: Any
    sampler: Any
    curriculum: Optional[Any]
    algorithm: Any


def build_components(variant, seed):
    """The components of ``variant``, seeded from ``seed``."""
    from softlearning import (
        algorithms, curriculum, environments, policies, replay_pools, samplers,
        value_functions)
    from softlearning.environments.rendering import renders_observations
    from softlearning.models.conv_encoder import get_encoder
    from softlearning.models.precision import DEFAULT_PRECISION

    environment_params = variant['environment_params']
    training_environment = environments.get_environment_from_params(
        environment_params['training'])
    evaluation_environment = (
        environments.get_environment_from_params(
            environment_params['evaluation'])
        if environment_params.get('evaluation') else None)
    if evaluation_environment is not None and not renders_observations(
            environment_params['evaluation']):
        # Seeded once, so evaluation episodes are reproducible (and their
        # RNG state can be checkpointed). Environments that render run their
        # evaluation episodes on the sampler actors instead.
        evaluation_environment.reset(seed=seed + 2)

    evaluation_environment_copies = _evaluation_copies(
        variant, evaluation_environment)

    # The networks the update trains compute in its precision
    # (algorithms/precision.py); the warm-up policy has none.
    precision = variant['algorithm_params'].get('config', {}).get(
        'precision', DEFAULT_PRECISION)
    # Pixel agents: one convolutional encoder, trained by the Q-functions
    # and read by the policy (models/conv_encoder.py).
    encoder = get_encoder(variant.get('encoder_params'),
                          training_environment.observation_shapes,
                          precision=precision)
    policy = policies.get(variant['policy_params'], training_environment,
                          seed=seed, encoder=encoder, precision=precision)
    initial_exploration_policy = policies.get(
        variant['exploration_policy_params'], training_environment,
        seed=seed + 1)
    Qs = value_functions.get(variant['Q_params'], training_environment,
                             encoder=encoder, precision=precision)
    pool = replay_pools.get(variant['replay_pool_params'],
                            training_environment, seed=seed)
    sampler = samplers.get_from_variant(variant, seed=seed)
    sampler.initialize(training_environment, policy, pool)
    # The environment-parameter curriculum runs at the start of every epoch
    # (= iteration) and pushes its values to the samplers.
    schedule = (curriculum.get(variant['curriculum'], sampler,
                               evaluation_environment)
                if variant.get('curriculum') else None)
    algorithm = algorithms.get(
        variant['algorithm_params'],
        training_environment=training_environment,
        evaluation_environment=evaluation_environment,
        evaluation_environment_copies=evaluation_environment_copies,
        policy=policy,
        initial_exploration_policy=initial_exploration_policy,
        Qs=Qs,
        pool=pool,
        sampler=sampler,
        iteration_callbacks=[schedule] if schedule else [],
        seed=seed)
    return Components(training_environment, evaluation_environment,
                      evaluation_environment_copies, policy,
                      initial_exploration_policy, Qs, pool, sampler,
                      schedule, algorithm)


def _evaluation_copies(variant, evaluation_environment):
    """Copies of the evaluation environment, one per evaluation episode but
    the first, where the episodes start from fixed seeds (``eval_seed``, the
    benchmarks' protocol): the algorithm steps them as one vector
    (samplers.parallel_rollouts). None where the sampler actors evaluate
    (environments that render) or the episodes go on from the environment's
    own random state."""
    from softlearning.environments import get_environment_from_params
    from softlearning.environments.rendering import renders_observations
    config = variant['algorithm_params']['config']
    params = variant['environment_params'].get('evaluation')
    if (evaluation_environment is None or config.get('eval_seed') is None
            or renders_observations(params)):
        return []
    return [get_environment_from_params(params)
            for _ in range(int(config.get('eval_n_episodes', 1)) - 1)]
