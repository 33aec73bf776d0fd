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

from softlearning.utils import storage

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


# run_example_debug runs one trial in this process, without Tune. Each
# option of the example's parser is either honoured there (and how) or
# refused with the reason, never silently ignored; tests/test_cli.py checks
# that every option is in one of these tables.
DEBUG_HONOURED = {
    'universe': 'the environment', 'domain': 'the environment',
    'task': 'the environment', 'algorithm': 'the variant',
    'policy': 'the variant', 'n_epochs': 'the variant',
    'epoch_length': 'the variant', 'max_path_length': 'the variant',
    'seed': 'the variant', 'config': 'the variant',
    'mode': "debug-sized epochs unless '--mode local'",
    'run_eagerly': 'eager TensorFlow (default in debug mode)',
    'exp_name': 'the results folder', 'local_dir': 'the results folder',
    'trial_name_template': 'the trial folder name',
    'checkpoint_frequency': 'checkpoints in the trial folder',
    'checkpoint_at_end': 'checkpoints in the trial folder',
    'checkpoint_replay_pool': 'checkpoints in the trial folder',
    'restore': 'a checkpoint folder to start from',
    'num_samplers': 'sampler actors on a local Ray instance',
    'sampler_cpus': "the sampler actors' CPUs",
    'async_sampling': 'the sampler actors',
    'curriculum': 'the variant',
    'pomdp': 'the environment', 'pomdp_previous_action': 'the environment',
    'observation': 'the environment',
    'cpus': "Ray's CPUs (for sampler actors) and TensorFlow's threads",
    'trial_cpus': "TensorFlow's threads",
    'trial_gpus': "whether TensorFlow reports CUDA problems",
}
DEBUG_REFUSED = {
    'upload_dir': 'it writes to a local folder (--local-dir)',
    'address': 'it runs in this process (run_example_cluster connects)',
    'num_samples': 'it runs one trial',
    'max_failures': 'it stops at the first error, so that you see it',
    'verbose': "it does not run Tune (its progress lines always print)",
    'resources_per_trial': ('its trial is this process, not a Tune trial; '
                            "--trial-cpus sets TensorFlow's threads"),
    'gpus': 'it starts Ray only for sampler actors, which use no GPU',
    'resources': 'it starts Ray only for sampler actors, which need none',
    'sweep': 'a sweep runs many trials',
    'scheduler': 'it runs one trial, to its end',
    'scheduler_config': 'it runs one trial, to its end',
    'search_algorithm': 'it runs one trial',
    'metric': 'it does not run Tune',
    'metric_mode': 'it does not run Tune',
    'max_concurrent_trials': 'it runs one trial',
}

# Options run_example_local and run_example_cluster cannot honour.
REFUSED = {
    'debug': DEBUG_REFUSED,
    'local': {'address': 'it starts its own Ray instance; '
                         'run_example_cluster connects to a running one'},
    'cluster': {
        name: ('it connects to a running cluster, whose resources were set '
               'when it started')
        for name in ('cpus', 'gpus', 'resources')},
}

# Defaults of options that are None in the parser, so that run_example_debug
# can tell an option the user gave from a default.
LOCAL_DEFAULTS = {'max_failures': 3, 'verbose': 1}


def _given_options(parser, args):
    """Destinations of the options whose values differ from the defaults."""
    return [action for action in parser._actions
            if action.dest in vars(args) and action.option_strings
            and getattr(args, action.dest) != action.default]


def _check_refused_options(parser, args, mode):
    refused = REFUSED.get(mode, {})
    for action in _given_options(parser, args):
        if action.dest in refused:
            value = getattr(args, action.dest)
            raise ExampleError(
                f"run_example_{mode} cannot honour "
                f"{action.option_strings[0]} {value}: {refused[action.dest]}."
                " Leave it out, or use another run_example_* command.")


def parse_example(example_module_name, example_argv, mode,
                  check_storage=True):
    """Parses the example's options and builds its variant spec. Everything
    that can be wrong with the input fails here, before any long work.
    (A launcher checks the options for a cluster, whose storage it may not
    reach itself: ``check_storage=False``.)"""
    # This process, the trials and Ray's workers import TensorFlow: none may
    # load OSMesa, whatever MUJOCO_GL the user exported (rendering actors
    # still get the user's choice).
    from softlearning.environments.rendering import (
        keep_opengl_out_of_learner)
    keep_opengl_out_of_learner()
    example = _load_example(example_module_name)
    parser = example.get_parser()
    parser.prog = f'softlearning run_example_{mode} {example_module_name}'
    from examples import tune_settings
    try:
        sweep_config = tune_settings.apply_sweep_file(parser, example_argv)
    except tune_settings.SweepError as error:
        raise ExampleError(str(error)) from None
    args = parser.parse_args(example_argv)
    args.sweep_config = sweep_config
    args.notices = []
    _check_refused_options(parser, args, mode)
    for name, default in LOCAL_DEFAULTS.items():
        if getattr(args, name, None) is None:
            setattr(args, name, default)
    if getattr(args, 'mode', None) is None:
        args.mode = 'debug' if mode == 'debug' else 'local'
    # Defaults that follow from other options (the example's own rules).
    prepare_args = getattr(example, 'prepare_args', None)
    if prepare_args is not None:
        prepare_args(args)
    if mode == 'cluster':
        # The cluster's CPUs are not known here (an autoscaler may add
        # nodes): Tune waits for the trial's resources.
        args.trial_cpus = args.trial_cpus or 1
        if args.num_samplers and args.sampler_cpus is None:
            args.sampler_cpus = 1.0
    else:
        _resolve_cpus(parser, args, trainer_in_ray=(mode == 'local'))
    try:
        variant_spec = example.get_variant_spec(args)
    except ValueError as error:
        parser.error(str(error))
    run_params = variant_spec['run_params']
    if run_params.get('tf_num_threads') is None:
        run_params['tf_num_threads'] = max(1, math.ceil(_learner_cpus(args)))
    if check_storage:
        _check_storage_option(args, variant_spec)
    args.restore_experiment = _check_restore(args, variant_spec)
    if mode in ('local', 'cluster') and not args.restore_experiment:
        try:
            args.tune_settings = _tune_settings(args, variant_spec,
                                                on_cluster=mode == 'cluster')
        except tune_settings.SweepError as error:
            raise ExampleError(str(error)) from None
    if mode == 'debug' and args.restore_experiment:
        raise ExampleError(
            f"--restore {args.restore}: an experiment folder is resumed by "
            "run_example_local; run_example_debug starts from a checkpoint "
            "folder (e.g. .../<trial>/checkpoint_000000).")
    _print_notices(args)
    return example, args, variant_spec


def _tune_settings(args, variant_spec, on_cluster=False):
    """Scheduler, search algorithm, metric and console table of a sweep,
    checked before Ray starts."""
    if not hasattr(args, 'scheduler'):  # an example without sweep options
        return {}
    from examples import tune_settings
    tune_settings.check_metric(args.metric)
    search_alg = tune_settings.prepare_search(args, variant_spec)
    scheduler = tune_settings.get_scheduler(args, variant_spec)
    # Tune checks every result for the metric when it optimizes it, and
    # then tells the console table itself.
    optimizes = scheduler is not None or search_alg is not None
    metric = {'metric': args.metric, 'mode': args.metric_mode}
    return {
        'tune_config': {
            'scheduler': scheduler, 'search_alg': search_alg,
            'max_concurrent_trials': args.max_concurrent_trials,
            **(metric if optimizes else {}),
        },
        'progress_reporter': tune_settings.get_progress_reporter(
            variant_spec, **metric, told_by_tune=optimizes),
        # On a cluster every trial gets a process of its own: a reused one
        # kept trials on one node, one after another, in Ray 2.60.
        'reuse_actors': (tune_settings.reuses_processes(scheduler)
                         and not on_cluster),
    }


def _notice(args, message):
    """A notice about a default the input implied; printed once the whole
    input is known to be good (a bad input prints its one error only)."""
    args.notices.append(message)


def _print_notices(args):
    for message in args.notices:
        print(f"[softlearning] Notice: {message}", file=sys.stderr,
              flush=True)


def _fraction_of(cpus, n):
    """``cpus / n``, rounded down to a hundredth (Ray's resource precision
    is finer, and rounding down keeps the sum within ``cpus``)."""
    return math.floor(100 * cpus / n) / 100


def _resolve_cpus(parser, args, trainer_in_ray=True):
    """CPUs of the trainer (``--trial-cpus``) and of each sampler actor
    (``--sampler-cpus``), out of the ``available`` CPUs Ray gets.

    Under Tune the trainer and its actors share the trial's reservation; in
    debug mode the trainer is this process and only the actors ask Ray.
    Actors default to 1 CPU each, or to an equal share of what is left when
    that would not fit (with a notice); the trainer defaults to what the
    actors leave. An explicit request that cannot fit would wait forever
    under Ray, so it is an error."""
    available = args.cpus or os.cpu_count()
    num_samplers = getattr(args, 'num_samplers', 0) or 0
    trainer = 0
    if trainer_in_ray:
        trainer = (args.resources_per_trial.get('cpu', 1)
                   if args.resources_per_trial else args.trial_cpus or 1)
    if num_samplers and getattr(args, 'sampler_cpus', None) is None:
        spare = available - trainer
        if spare < 0.01 * num_samplers:
            parser.error(
                f"--num-samplers {num_samplers}: no CPUs are left for sampler "
                f"actors beside the trainer's {trainer:g} of the {available} "
                "CPUs Ray gets (--cpus); lower --trial-cpus or raise --cpus.")
        args.sampler_cpus = 1.0
        if num_samplers > spare:
            args.sampler_cpus = _fraction_of(spare, num_samplers)
            beside = (f" beside the trainer's {trainer:g} CPU"
                      if trainer_in_ray else '')
            _notice(args, f"{num_samplers} sampler actors get {args.sampler_cpus:g}"
                    f" CPU each to fit{beside} in the {available} CPUs Ray "
                    "gets (--cpus); --sampler-cpus sets it.")
    samplers = num_samplers * (getattr(args, 'sampler_cpus', None) or 0)
    if args.trial_cpus is None:
        args.trial_cpus = max(1, available - samplers)
    if samplers + (args.trial_cpus if trainer_in_ray else 0) > available:
        parts = [f"--trial-cpus {args.trial_cpus:g}"] if trainer_in_ray else []
        if num_samplers:
            parts.append(f"--num-samplers {num_samplers} x --sampler-cpus "
                         f"{args.sampler_cpus:g}")
        parser.error(f"{' + '.join(parts)} is more than the {available} CPUs "
                     f"Ray gets (--cpus); ask for at most {available}"
                     f"{' in all' if len(parts) > 1 else ''}.")


def _is_experiment_dir(path):
    return storage.exists(storage.join(path, 'tuner.pkl'))


def _results_root(args):
    return getattr(args, 'upload_dir', None) or args.local_dir


def _check_storage_option(args, variant_spec):
    """A results URI must be writable from here, before Ray starts."""
    root = _results_root(args)
    if not storage.is_uri(root):
        return
    if variant_spec['run_params'].get('checkpoint_replay_pool'):
        raise ExampleError(
            "--checkpoint-replay-pool True needs results in a file system "
            "(a local or shared folder), not a URI: the pool pieces are "
            f"written beside the trial ('{root}' given).")
    try:
        storage.check_writable(root)
    except OSError as error:
        raise ExampleError(f"Cannot write results to --upload-dir: {error}")\
            from None


def _check_restore(args, variant_spec):
    """Validates ``--restore`` before Ray starts. Returns the experiment
    folder to resume, or None; a checkpoint (or trial) folder instead goes
    into the variant (run_params.restore) and starts new trials from it."""
    restore = getattr(args, 'restore', None)
    if not restore:
        return None
    from softlearning.utils import checkpoints
    path = storage.normalize(restore)
    if _is_experiment_dir(path):
        return path
    if storage.is_uri(path):
        raise ExampleError(
            f"--restore {restore}: no experiment there (no tuner.pkl); from "
            "a URI, only experiments are resumed.")
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


def _learner_cpus(args):
    """CPUs TensorFlow's threads may use: the trial's, plus its sampler
    actors' when sampling is synchronous (the learner and its actors then
    take turns: the actors idle while it trains)."""
    cpus = _trial_cpus(args)
    if getattr(args, 'num_samplers', 0) and not getattr(
            args, 'async_sampling', False):
        cpus += args.num_samplers * (args.sampler_cpus or 0)
    return cpus


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
    """(storage path, experiment name): results go to STORAGE/NAME, with
    STORAGE = <results root>/<universe>/<domain>/<task>, a folder or a
    URI."""
    environment = variant_spec['environment_params']['training']
    timestamp = datetime.datetime.now().strftime('%Y-%m-%dT%H-%M-%S')
    storage_path = storage.join(
        _results_root(args), environment['universe'], environment['domain'],
        environment['task'])
    return storage_path, f'{timestamp}-{args.exp_name}'


def _trial_name_creator(template):
    def create(trial):
        return template.format(trial=trial)
    return create


def run_example_local(example_module_name, example_argv=None):
    """Runs the example as a Tune experiment on a local Ray instance."""
    example, args, variant_spec = parse_example(
        example_module_name, example_argv, 'local')

    def start_ray():
        import ray
        ray.init(num_cpus=args.cpus, num_gpus=args.gpus,
                 resources=args.resources, include_dashboard=False)
    return _run_experiment(example, args, variant_spec, start_ray)


def run_example_cluster(example_module_name, example_argv=None):
    """Runs the example as a Tune experiment on a running Ray cluster
    (``--address``, else RAY_ADDRESS, else the cluster of this machine)."""
    example, args, variant_spec = parse_example(
        example_module_name, example_argv, 'cluster')

    def join_cluster():
        from examples import cluster
        cluster.connect(args.address)
        cluster.check_storage_reachable(_results_root(args))
    return _run_experiment(example, args, variant_spec, join_cluster)


def launch_example_gce(example_module_name, example_argv=None):
    """Starts a GCE cluster, runs the example on it, shuts it down."""
    from examples.launch import launch_example
    return launch_example('gce', example_module_name, example_argv or [])


def launch_example_ec2(example_module_name, example_argv=None):
    """Starts an EC2 cluster, runs the example on it, shuts it down."""
    from examples.launch import launch_example
    return launch_example('ec2', example_module_name, example_argv or [])


def launch_example_cluster(example_module_name, example_argv=None):
    """Like launch_example_{gce,ec2}, for any --config-file."""
    from examples.launch import launch_example
    return launch_example('cluster', example_module_name, example_argv or [])


def _run_experiment(example, args, variant_spec, start_ray):
    """The Tune experiment of the variant spec (or the experiment that
    ``--restore`` resumes), on the Ray instance ``start_ray`` starts or
    joins."""
    import ray
    from ray import tune

    from examples.pending_trials import PendingTrials

    storage_path, experiment_name = _experiment_dir(args, variant_spec)
    run_params = variant_spec['run_params']
    try:
        start_ray()  # first: a cluster that is not there fails in seconds
        trainable = tune.with_resources(example.get_trainable_class(args),
                                        _trial_resources(args, variant_spec))
        if args.restore_experiment:
            # Unfinished and errored trials continue from their last
            # checkpoints, in the same experiment folder.
            print(f"Resuming experiment {args.restore_experiment}",
                  flush=True)
            tuner = tune.Tuner.restore(
                args.restore_experiment, trainable,
                resume_unfinished=True, resume_errored=True)
            return _report(tuner.fit(), args.restore_experiment)
        settings = getattr(args, 'tune_settings', {})
        tuner = tune.Tuner(
            trainable,
            param_space=variant_spec,
            tune_config=tune.TuneConfig(
                num_samples=args.num_samples,
                trial_name_creator=_trial_name_creator(
                    args.trial_name_template),
                trial_dirname_creator=_trial_name_creator(
                    args.trial_name_template),
                # A trial that ends hands its process (TensorFlow imported)
                # to the next one: ExperimentRunner.reset_config.
                reuse_actors=settings.get('reuse_actors', True),
                **settings.get('tune_config', {})),
            run_config=tune.RunConfig(
                name=experiment_name,
                storage_path=storage_path,
                checkpoint_config=tune.CheckpointConfig(
                    checkpoint_frequency=run_params['checkpoint_frequency'],
                    checkpoint_at_end=run_params['checkpoint_at_end']),
                failure_config=tune.FailureConfig(
                    max_failures=args.max_failures),
                progress_reporter=settings.get('progress_reporter'),
                # Ends the run when trials no longer fit a cluster that no
                # autoscaler can grow (pending_trials.py).
                callbacks=[PendingTrials(
                    storage.join(storage_path, experiment_name))],
                verbose=args.verbose))
        results = tuner.fit()
    finally:
        ray.shutdown()
    return _report(results, storage.join(storage_path, experiment_name))


def _report(results, experiment_dir):
    """One line per trial. ``experiment_dir`` is a folder or a URI, shown
    without its query (which may hold endpoint options)."""
    shown = experiment_dir.split('?')[0]
    print(f"\nResults: {shown}")
    failed = 0
    for result in results:
        metrics = result.metrics or {}
        evaluation = metrics.get('evaluation', {}).get('return-mean')
        status = 'ERROR' if result.error else 'OK'
        failed += bool(result.error)
        trial = storage.join(shown, os.path.basename(result.path))
        line = f"  [{status}] {trial}"
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


def _single_variant(variant_spec):
    """The one variant a debug run trains; a grid search (several trials)
    is an error rather than a silent first pick."""
    from ray.tune.search.variant_generator import generate_variants
    variants = [variant for _, variant in generate_variants(variant_spec)]
    if len(variants) > 1:
        raise ExampleError(
            f"The variant is a grid of {len(variants)} trials, and "
            "run_example_debug runs one: fix the grid-searched --config "
            "values, or use run_example_local.")
    return variants[0]


class _DebugTrial:
    """What a --trial-name-template sees of the debug run's one trial."""

    trial_id = 'debug'

    def __init__(self, config):
        self.config = config

    def __str__(self):
        return self.trial_id


def _debug_trial_name(template, variant):
    try:
        return template.format(trial=_DebugTrial(variant))
    except (AttributeError, KeyError, IndexError) as error:
        raise ExampleError(
            f"--trial-name-template '{template}': {error!r}; in debug mode "
            "a trial has .trial_id ('debug') and .config (the variant).") \
            from None


def _debug_checkpoint_due(run_params, epoch, done):
    frequency = run_params['checkpoint_frequency']
    return bool((frequency and epoch % frequency == 0)
                or (done and run_params['checkpoint_at_end']))


def _write_progress(trial_dir, rows):
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with open(os.path.join(trial_dir, 'progress.csv'), 'w', newline='') as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def run_example_debug(example_module_name, example_argv=None):
    """Runs one trial of the example in this process, eagerly, with small
    epochs; writes what a Tune trial writes (progress.csv, result.json,
    params.json, checkpoint_NNNNNN folders)."""
    example, args, variant_spec = parse_example(
        example_module_name, example_argv, 'debug')
    variant = _single_variant(variant_spec)
    run_params = variant['run_params']
    storage_path, experiment_name = _experiment_dir(args, variant_spec)
    trial_dir = os.path.join(
        storage_path, experiment_name,
        _debug_trial_name(args.trial_name_template, variant))
    os.makedirs(trial_dir, exist_ok=True)
    with open(os.path.join(trial_dir, 'params.json'), 'w') as f:
        json.dump(variant, f, indent=2, default=str)

    from softlearning.utils.tensorflow_logging import import_tensorflow
    import_tensorflow(gpu_in_use=bool(args.trial_gpus))
    uses_ray = variant['sampler_params']['class_name'] == 'RemoteSampler'
    if uses_ray:
        import ray
        ray.init(num_cpus=args.cpus, include_dashboard=False)
    try:
        _train_in_process(example.get_trainable_class(args)(config=variant),
                          trial_dir, run_params)
    finally:
        if uses_ray:
            ray.shutdown()
    print(f"\nResults: {trial_dir}")
    return 0


def _train_in_process(trainable, trial_dir, run_params):
    rows, checkpoint_index = [], 0
    try:
        with open(os.path.join(trial_dir, 'result.json'), 'w') as results:
            while True:
                result = trainable.train()
                rows.append(_flatten(result))
                results.write(json.dumps(result, default=float) + '\n')
                results.flush()
                done = bool(result.get('done'))
                if _debug_checkpoint_due(run_params, result['epoch'], done):
                    # Tune's layout: checkpoint_000000, _000001, ... in the
                    # trial folder (the manifest, written last, marks each
                    # one complete).
                    path = os.path.join(
                        trial_dir, f'checkpoint_{checkpoint_index:06d}')
                    os.makedirs(path, exist_ok=True)
                    trainable.save_checkpoint(path)
                    checkpoint_index += 1
                    print(f"checkpoint: {path}", flush=True)
                if done:
                    break
    finally:
        if rows:
            _write_progress(trial_dir, rows)
        trainable.stop()


def main_with_errors_reported(function, *args):
    try:
        return function(*args)
    except ExampleError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
