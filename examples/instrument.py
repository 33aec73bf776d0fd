"""Runs an example's variant as a Ray Tune experiment (or, for debugging, in
this process).

    run_example_local('examples.development', ['--domain', 'Pendulum', ...])
    run_example_debug('examples.development', [...])
"""

import csv
import datetime
import importlib
import json
import math
import os
import sys

DEFAULT_EXAMPLE = 'examples.development'


class ExampleError(Exception):
    """A bad command line or variant: reported in one line, no traceback."""


def _load_example(example_module_name):
    try:
        return importlib.import_module(example_module_name)
    except ModuleNotFoundError as error:
        raise ExampleError(
            f"Cannot import example module '{example_module_name}' "
            f"({error}); e.g. use '{DEFAULT_EXAMPLE}'.") from None


def parse_example(example_module_name, example_argv, mode):
    """Parses the example's options and builds its variant spec. Everything
    that can be wrong with the input fails here, before any long work."""
    example = _load_example(example_module_name)
    parser = example.get_parser()
    parser.prog = f'softlearning run_example_{mode} {example_module_name}'
    args = parser.parse_args(example_argv)
    if mode == 'debug':
        args.mode = 'debug'
    try:
        variant_spec = example.get_variant_spec(args)
    except ValueError as error:
        parser.error(str(error))
    _resolve_trial_cpus(parser, args)
    run_params = variant_spec['run_params']
    if run_params.get('tf_num_threads') is None:
        run_params['tf_num_threads'] = max(1, math.ceil(_trial_cpus(args)))
    args.restore_experiment = _check_restore(args, variant_spec)
    return example, args, variant_spec


def _resolve_trial_cpus(parser, args):
    """Defaults a trial's trainer to the CPUs Ray gets, less those of its
    sampler actors. A trial asking for more than Ray has would wait forever,
    so that is an error."""
    available = args.cpus or os.cpu_count()
    samplers = (getattr(args, 'num_samplers', 0) or 0) * getattr(
        args, 'sampler_cpus', 1)
    if args.trial_cpus is None:
        args.trial_cpus = max(1, available - samplers)
    if args.trial_cpus + samplers > available:
        needed = (f"--trial-cpus {args.trial_cpus:g} + --num-samplers "
                  f"{args.num_samplers} x --sampler-cpus {args.sampler_cpus:g}"
                  if samplers else f"--trial-cpus {args.trial_cpus:g}")
        parser.error(f"{needed} is more than the {available} CPUs Ray gets "
                     f"(--cpus); ask for at most {available}.")


def _is_experiment_dir(path):
    return os.path.isfile(os.path.join(path, 'tuner.pkl'))


def _check_restore(args, variant_spec):
    """Validates ``--restore`` before Ray starts. Returns the experiment
    folder to resume, or None; a checkpoint (or trial) folder instead goes
    into the variant (run_params.restore) and starts new trials from it."""
    restore = getattr(args, 'restore', None)
    if not restore:
        return None
    from softlearning.utils import checkpoints
    path = os.path.abspath(os.path.expanduser(restore))
    if os.path.isdir(path) and _is_experiment_dir(path):
        return path
    try:
        checkpoint_dir = checkpoints.resolve_checkpoint(path)
        checkpoints.read_manifest(checkpoint_dir)
        checkpoints.check_compatible(
            checkpoint_dir, checkpoints.read_variant(checkpoint_dir),
            variant_spec)
    except checkpoints.CheckpointError as error:
        raise ExampleError(f"--restore: {error}") from None
    variant_spec['run_params']['restore'] = checkpoint_dir
    return None


def _trial_cpus(args):
    if args.resources_per_trial:
        return args.resources_per_trial.get('cpu', 1)
    return args.trial_cpus


def _trial_resources(args, variant_spec):
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


def _experiment_dir(args, variant_spec):
    environment = variant_spec['environment_params']['training']
    timestamp = datetime.datetime.now().strftime('%Y-%m-%dT%H-%M-%S')
    storage_path = os.path.join(
        os.path.abspath(os.path.expanduser(args.local_dir)),
        environment['universe'], environment['domain'], environment['task'])
    return storage_path, f'{timestamp}-{args.exp_name}'


def _trial_name_creator(template):
    def create(trial):
        return template.format(trial=trial)
    return create


def run_example_local(example_module_name, example_argv=None):
    """Runs the example as a Tune experiment on a local Ray instance."""
    example, args, variant_spec = parse_example(
        example_module_name, example_argv, 'local')

    import ray
    from ray import tune

    storage_path, experiment_name = _experiment_dir(args, variant_spec)
    resources_per_trial = _trial_resources(args, variant_spec)
    run_params = variant_spec['run_params']

    trainable = tune.with_resources(example.get_trainable_class(args),
                                    resources_per_trial)
    ray.init(num_cpus=args.cpus, num_gpus=args.gpus,
             resources=args.resources, include_dashboard=False)
    try:
        if args.restore_experiment:
            # Unfinished and errored trials continue from their last
            # checkpoints, in the same experiment folder.
            print(f"Resuming experiment {args.restore_experiment}",
                  flush=True)
            tuner = tune.Tuner.restore(
                args.restore_experiment, trainable,
                resume_unfinished=True, resume_errored=True)
            results = tuner.fit()
            return _report(results, args.restore_experiment)
        tuner = tune.Tuner(
            trainable,
            param_space=variant_spec,
            tune_config=tune.TuneConfig(
                num_samples=args.num_samples,
                trial_name_creator=_trial_name_creator(
                    args.trial_name_template),
                trial_dirname_creator=_trial_name_creator(
                    args.trial_name_template)),
            run_config=tune.RunConfig(
                name=experiment_name,
                storage_path=storage_path,
                checkpoint_config=tune.CheckpointConfig(
                    checkpoint_frequency=run_params['checkpoint_frequency'],
                    checkpoint_at_end=run_params['checkpoint_at_end']),
                failure_config=tune.FailureConfig(
                    max_failures=args.max_failures),
                verbose=args.verbose))
        results = tuner.fit()
    finally:
        ray.shutdown()
    return _report(results, os.path.join(storage_path, experiment_name))


def _report(results, experiment_dir):
    print(f"\nResults: {experiment_dir}")
    failed = 0
    for result in results:
        metrics = result.metrics or {}
        evaluation = metrics.get('evaluation', {}).get('return-mean')
        status = 'ERROR' if result.error else 'OK'
        failed += bool(result.error)
        line = f"  [{status}] {result.path}"
        if evaluation is not None:
            line += (f"  epoch {metrics.get('epoch')}, evaluation return-mean "
                     f"{evaluation:.1f}")
        print(line)
        if result.error:
            print(f"    {type(result.error).__name__}: {result.error}")
    return 1 if failed else 0


# Debug mode: one trial in this process, so pdb and prints just work. -----

def _flatten(diagnostics, prefix=''):
    flat = {}
    for key, value in diagnostics.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            flat.update(_flatten(value, f'{name}/'))
        else:
            flat[name] = value
    return flat


def _resolve_variant(variant_spec):
    """Samples one variant from a spec that may hold Tune search spaces."""
    from ray.tune.search.variant_generator import generate_variants
    _, variant = next(generate_variants(variant_spec))
    return variant


def run_example_debug(example_module_name, example_argv=None):
    """Runs one trial of the example in this process, eagerly, with small
    epochs; writes progress.csv and result.json like a Tune trial."""
    example, args, variant_spec = parse_example(
        example_module_name, example_argv, 'debug')
    variant = _resolve_variant(variant_spec)
    storage_path, experiment_name = _experiment_dir(args, variant_spec)
    trial_dir = os.path.join(
        storage_path, experiment_name,
        f"debug-seed={variant['run_params']['seed']}")
    os.makedirs(trial_dir, exist_ok=True)
    with open(os.path.join(trial_dir, 'params.json'), 'w') as f:
        json.dump(variant, f, indent=2, default=str)

    trainable = example.get_trainable_class(args)(config=variant)
    rows = []
    with open(os.path.join(trial_dir, 'result.json'), 'w') as result_file:
        while True:
            result = trainable.train()
            flat = _flatten(result)
            rows.append(flat)
            result_file.write(json.dumps(result, default=float) + '\n')
            result_file.flush()
            if result.get('done'):
                break
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with open(os.path.join(trial_dir, 'progress.csv'), 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    trainable.stop()
    print(f"\nResults: {trial_dir}")
    return 0


def main_with_errors_reported(function, *args):
    try:
        return function(*args)
    except ExampleError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
