"""What each way of running an experiment does with each option.

``run_example_debug`` runs one trial in this process, without Tune: each
option of the experiment is either honoured there (and how) or refused with
the reason, never silently ignored; tests/test_cli.py checks that every
option is in one of the two tables. ``run_example_local`` and
``run_example_cluster`` refuse the few options they cannot honour.
"""

from .errors import ExperimentError

DEBUG_HONOURED = {
    'universe': 'the environment', 'domain': 'the environment',
    'task': 'the environment', 'algorithm': 'the variant',
    'policy': 'the variant', 'n_epochs': 'the variant',
    'epoch_length': 'the variant', 'max_path_length': 'the variant',
    'seed': 'the variant', 'config': 'the variant', 'n_step': 'the variant',
    'network': 'the variant',
    'mode': "debug-sized epochs unless '--mode local'",
    'run_eagerly': 'eager TensorFlow (default in debug mode)',
    'deterministic_ops': "TensorFlow's op determinism",
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
    'mlflow': 'trackers are Tune callbacks; it does not run Tune',
    'mlflow_experiment': 'trackers are Tune callbacks; it does not run Tune',
    'wandb_project': 'trackers are Tune callbacks; it does not run Tune',
    'wandb_mode': 'trackers are Tune callbacks; it does not run Tune',
}

REFUSED = {
    'debug': DEBUG_REFUSED,
    'local': {'address': 'it starts its own Ray instance; '
                         'run_example_cluster connects to a running one'},
    'cluster': {
        name: ('it connects to a running cluster, whose resources were set '
               'when it started')
        for name in ('cpus', 'gpus', 'resources')},
}

MODES = tuple(REFUSED)

# Defaults of options that are None until a mode decides them.
LOCAL_DEFAULTS = {'max_failures': 3, 'verbose': 1}


def check_refused_options(given, mode):
    """``given``: {option name: how the user wrote it (e.g. '--gpus 1')} of
    the options the user set. Raises ExperimentError for the first one the
    mode cannot honour."""
    refused = REFUSED[mode]
    for name, written in given.items():
        if name in refused:
            raise ExperimentError(
                f"run_example_{mode} cannot honour {written}: "
                f"{refused[name]}. Leave it out, or use another "
                "run_example_* command.")
