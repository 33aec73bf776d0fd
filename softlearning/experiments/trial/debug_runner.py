"""Debug mode: an experiment's one trial in this process, without Tune, so
that pdb and prints just work (``run_example_debug``)."""

import csv
import json
import os

from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.config.results_folder import experiment_dir


def _flatten(diagnostics, prefix=''):
    flat = {}
    for key, value in diagnostics.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            flat.update(_flatten(value, f'{name}/'))
        else:
            flat[name] = value
    return flat


def sample_variant(variant_spec):
    """One variant drawn from a spec that may hold Tune search spaces (as a
    trial would get it)."""
    from ray.tune.search.variant_generator import generate_variants
    _, variant = next(generate_variants(variant_spec))
    return variant


def _single_variant(variant_spec):
    """The one variant a debug run trains; a grid search (several trials)
    is an error rather than a silent first pick."""
    from ray.tune.search.variant_generator import generate_variants
    variants = [variant for _, variant in generate_variants(variant_spec)]
    if len(variants) > 1:
        raise ExperimentError(
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
        raise ExperimentError(
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


def run_in_process(experiment):
    """Runs the experiment's one trial in this process (eagerly, with small
    epochs in debug mode); writes what a Tune trial writes (progress.csv,
    result.json, params.json, checkpoint_NNNNNN folders). Returns the trial
    folder."""
    args, variant_spec = experiment.options, experiment.variant_spec
    variant = _single_variant(variant_spec)
    run_params = variant['run_params']
    storage_path, experiment_name = experiment_dir(args, variant_spec)
    trial_dir = os.path.join(
        storage_path, experiment_name,
        _debug_trial_name(args.trial_name_template, variant))
    os.makedirs(trial_dir, exist_ok=True)
    with open(os.path.join(trial_dir, 'params.json'), 'w') as f:
        json.dump(variant, f, indent=2, default=str)

    from softlearning.utils.tensorflow_logging import import_tensorflow
    import_tensorflow(gpu_in_use=bool(args.trial_gpus))
    from softlearning.experiments.trial.trainable import build_outside_tune
    uses_ray = variant['sampler_params']['class_name'] == 'RemoteSampler'
    if uses_ray:
        import ray
        from softlearning.utils import local_ray
        local_ray.start(num_cpus=args.cpus, include_dashboard=False)
    try:
        _train_in_process(
            build_outside_tune(experiment.trainable_class, variant),
            trial_dir, variant)
    finally:
        if uses_ray:
            ray.shutdown()
    print(f"\nResults: {trial_dir}")
    return trial_dir


def _train_in_process(trainable, trial_dir, variant):
    from softlearning.experiments.trial.console import progress_line
    run_params = variant['run_params']
    rows, checkpoint_index = [], 0
    try:
        with open(os.path.join(trial_dir, 'result.json'), 'w') as results:
            while True:
                result = trainable.train()
                print(progress_line(variant, result), flush=True)
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
