"""CPUs of a trial's trainer and sampler actors, checked before Ray starts,
and the Tune resources that reserve them."""

import math

from softlearning.experiments.errors import ExperimentError


def fraction_of(cpus, n):
    """``cpus / n``, rounded down to a hundredth (Ray's resource precision
    is finer, and rounding down keeps the sum within ``cpus``)."""
    return math.floor(100 * cpus / n) / 100


def resolve_cpus(args, available, trainer_in_ray, notice):
    """Sets the CPUs of the trainer (``args.trial_cpus``) and of each
    sampler actor (``args.sampler_cpus``), out of the ``available`` CPUs
    Ray gets.

    Under Tune the trainer and its actors share the trial's reservation; in
    debug mode the trainer is this process and only the actors ask Ray.
    Actors default to 1 CPU each, or to an equal share of what is left when
    that would not fit (with a ``notice``); the trainer defaults to what
    the actors leave. An explicit request that cannot fit would wait
    forever under Ray, so it is an error."""
    num_samplers = args.num_samplers or 0
    trainer = 0
    if trainer_in_ray:
        trainer = (args.resources_per_trial.get('cpu', 1)
                   if args.resources_per_trial else args.trial_cpus or 1)
    if num_samplers and args.sampler_cpus is None:
        spare = available - trainer
        if spare < 0.01 * num_samplers:
            raise ExperimentError(
                f"--num-samplers {num_samplers}: no CPUs are left for sampler "
                f"actors beside the trainer's {trainer:g} of the {available} "
                "CPUs Ray gets (--cpus); lower --trial-cpus or raise --cpus.")
        args.sampler_cpus = 1.0
        if num_samplers > spare:
            args.sampler_cpus = fraction_of(spare, num_samplers)
            beside = (f" beside the trainer's {trainer:g} CPU"
                      if trainer_in_ray else '')
            notice(f"{num_samplers} sampler actors get {args.sampler_cpus:g}"
                   f" CPU each to fit{beside} in the {available} CPUs Ray "
                   "gets (--cpus); --sampler-cpus sets it.")
    samplers = num_samplers * (args.sampler_cpus or 0)
    if args.trial_cpus is None:
        args.trial_cpus = max(1, available - samplers)
    if samplers + (args.trial_cpus if trainer_in_ray else 0) > available:
        parts = [f"--trial-cpus {args.trial_cpus:g}"] if trainer_in_ray else []
        if num_samplers:
            parts.append(f"--num-samplers {num_samplers} x --sampler-cpus "
                         f"{args.sampler_cpus:g}")
        raise ExperimentError(
            f"{' + '.join(parts)} is more than the {available} CPUs Ray gets "
            f"(--cpus); ask for at most {available}"
            f"{' in all' if len(parts) > 1 else ''}.")


def trial_cpus(args):
    if args.resources_per_trial:
        return args.resources_per_trial.get('cpu', 1)
    return args.trial_cpus


def learner_cpus(args):
    """CPUs TensorFlow's threads may use: the trial's, plus its sampler
    actors' when sampling is synchronous (the learner and its actors then
    take turns: the actors idle while it trains)."""
    cpus = trial_cpus(args)
    if args.num_samplers and not args.async_sampling:
        cpus += args.num_samplers * (args.sampler_cpus or 0)
    return cpus


def trial_resources(args, variant_spec):
    """Tune resources of a trial. With remote samplers, a placement group:
    one bundle for the trainer plus one per sampler actor, so Tune reserves
    the actors' CPUs too and never oversubscribes a node."""
    trainer = args.resources_per_trial or {
        'cpu': args.trial_cpus, 'gpu': args.trial_gpus}
    sampler_params = variant_spec['sampler_params']
    if sampler_params['class_name'] != 'RemoteSampler':
        return trainer
    from ray import tune
    config = sampler_params['config']
    bundles = [{'CPU': trainer.get('cpu', 1), 'GPU': trainer.get('gpu', 0)}]
    bundles += [{'CPU': config.get('sampler_cpus', 1)}
                for _ in range(config.get('num_samplers', 2))]
    return tune.PlacementGroupFactory(bundles)
