"""The options of how an experiment runs: its results folder, checkpoints
and trials, sweeps, trackers and resources (see option_types.py for what an
Option holds; ``%(default)s`` in a help text is the default shown by
--help)."""

import os

from softlearning.experiments.config import sweep_files as sweeps
from softlearning.experiments.config.option_types import (
    SWEEPS_GROUP as SWEEPS, TRACKING_GROUP as TRACKING, Option, boolean,
    every_mode, json_object, positive_int)

# The trackers' extra (what --mlflow and --wandb-project need installed)
# and W&B's modes; tune/tracking.py runs the trackers.
TRACKING_EXTRA = "pip install -e '.[tracking]'"
WANDB_MODES = ('online', 'offline')

EXPERIMENT, RESOURCES = 'experiment', 'resources'

DEFAULT_TRIAL_NAME_TEMPLATE = (
    'id={trial.trial_id}-seed={trial.config[run_params][seed]}')
VERBOSE_HELP = ("Console output: 1 (default) one line per trial and epoch, "
                "then each trial's result; 2 also Tune's status tables; 0 "
                "Tune says nothing but errors.")

# Why run_example_debug refuses an option.
ONE_TRIAL = 'it runs one trial'
TO_ITS_END = 'it runs one trial, to its end'
NO_TUNE = 'it does not run Tune'
NO_TRACKERS = 'trackers are Tune callbacks; it does not run Tune'
CLUSTER_RESOURCES = ('it connects to a running cluster, whose resources '
                     'were set when it started')
CHECKPOINTS = 'checkpoints in the trial folder'


def experiment_options():
    return [
        Option('exp_name', default='experiment', group=EXPERIMENT,
               debug='the results folder',
               help='Name of the experiment (default: %(default)s).'),
        Option('local_dir', default='~/ray_results', group=EXPERIMENT,
               debug='the results folder',
               help='Root folder of the results (default: %(default)s); '
                    'results go to LOCAL_DIR/<universe>/<domain>/<task>/'
                    '<timestamp>-<exp-name>.'),
        Option('upload_dir', metavar='URI', group=EXPERIMENT,
               refused={'debug': 'it writes to a local folder '
                                 '(--local-dir)'},
               help='Results root instead of --local-dir: a URI '
                    '(s3://bucket/path, gs://..., anything pyarrow '
                    'understands) or a folder every node of a cluster '
                    'shares.'),
        Option('address', group=EXPERIMENT,
               refused={'debug': 'it runs in this process '
                                 '(run_example_cluster connects)',
                        'local': 'it starts its own Ray instance; '
                                 'run_example_cluster connects to a running '
                                 'one'},
               help='run_example_cluster: the Ray cluster to join, '
                    'HOST:PORT (default: RAY_ADDRESS, else the cluster of '
                    'this machine).'),
        Option('num_samples', type=positive_int, default=1,
               group=EXPERIMENT, refused={'debug': ONE_TRIAL},
               help='Trials per grid point (each with its own seed, and its '
                    'own draw of random search spaces).'),
        Option('trial_name_template', default=DEFAULT_TRIAL_NAME_TEMPLATE,
               group=EXPERIMENT, debug='the trial folder name',
               help='Python format string of a trial name (default: '
                    '%(default)s).'),
        Option('checkpoint_frequency', type=int, group=EXPERIMENT,
               debug=CHECKPOINTS,
               help='Save a checkpoint every N epochs (0: never).'),
        Option('checkpoint_at_end', type=boolean, group=EXPERIMENT,
               debug=CHECKPOINTS,
               help='Save a checkpoint when a trial ends.'),
        Option('checkpoint_replay_pool', type=boolean, group=EXPERIMENT,
               debug=CHECKPOINTS,
               help='Also checkpoint the replay pool, incrementally (each '
                    'checkpoint stores only the experience added since the '
                    'previous one).'),
        Option('max_failures', type=int, group=EXPERIMENT,
               mode_defaults=every_mode(3),
               refused={'debug': 'it stops at the first error, so that you '
                                 'see it'},
               help='Restarts of a failed trial from its last checkpoint '
                    '(default: 3).'),
        Option('restore', group=EXPERIMENT,
               debug='a checkpoint folder to start from',
               help='An experiment folder: resume its unfinished trials '
                    'from their last checkpoints. A checkpoint (or trial) '
                    'folder: start a new trial from it.'),
        Option('verbose', type=int, choices=(0, 1, 2), group=EXPERIMENT,
               mode_defaults=every_mode(1),
               refused={'debug': 'it does not run Tune (its progress lines '
                                 'always print)'},
               help=VERBOSE_HELP),
    ]


def sweep_options():
    return [
        Option('sweep', metavar='FILE', group=SWEEPS,
               refused={'debug': 'a sweep runs many trials'},
               help='JSON (or YAML) file with --config overrides under '
                    '"config" and other options by name, e.g. "num_samples",'
                    ' "scheduler"; command-line options win over it.'),
        Option('scheduler', default='fifo', choices=sweeps.SCHEDULERS,
               group=SWEEPS, refused={'debug': TO_ITS_END},
               help='Trial scheduler on --metric: fifo runs every trial to '
                    'its end, asha stops poor trials early, pbt '
                    '(population-based training) copies good trials into '
                    'poor ones and perturbs their hyperparameters (default: '
                    '%(default)s).'),
        Option('scheduler_config', type=json_object, metavar='JSON',
               group=SWEEPS, refused={'debug': TO_ITS_END},
               help='Keyword arguments of the scheduler, e.g. '
                    '\'{"grace_period": 2000}\' (asha) or '
                    '\'{"perturbation_interval": 5000}\' (pbt); times count '
                    'environment steps.'),
        Option('search_algorithm', default='random',
               choices=sweeps.SEARCH_ALGORITHMS, group=SWEEPS,
               refused={'debug': ONE_TRIAL},
               help="How configurations are drawn: random (and grids), or "
                    "optuna's model-based search (pip install -e "
                    "'.[sweeps]'). Default: %(default)s."),
        Option('metric', default=sweeps.DEFAULT_METRIC, group=SWEEPS,
               refused={'debug': NO_TUNE},
               help='Result that schedulers and search algorithms optimize '
                    '(default: %(default)s).'),
        Option('metric_mode', default=sweeps.DEFAULT_MODE,
               choices=('max', 'min'), group=SWEEPS,
               refused={'debug': NO_TUNE},
               help='Maximize or minimize --metric (default: %(default)s).'),
        Option('max_concurrent_trials', type=positive_int, metavar='N',
               group=SWEEPS, refused={'debug': ONE_TRIAL},
               help='Run at most N trials at a time (default: as many as '
                    'the CPUs allow).'),
    ]


def tracking_options():
    return [
        Option('mlflow', metavar='URI', group=TRACKING,
               refused={'debug': NO_TRACKERS},
               help='Log every trial to MLflow: a tracking server '
                    '(http://127.0.0.1:5000), a database URI, or a folder '
                    f"(an SQLite store there). Needs {TRACKING_EXTRA}."),
        Option('mlflow_experiment', metavar='NAME', group=TRACKING,
               refused={'debug': NO_TRACKERS},
               help="MLflow experiment name (default: the results folder's "
                    "name)."),
        Option('wandb_project', metavar='NAME', group=TRACKING,
               refused={'debug': NO_TRACKERS},
               help='Log every trial to this Weights & Biases project. '
                    f'Needs {TRACKING_EXTRA}.'),
        Option('wandb_mode', choices=WANDB_MODES, group=TRACKING,
               refused={'debug': NO_TRACKERS},
               help="offline: write runs under ./wandb to 'wandb sync' "
                    "later (default: WANDB_MODE, else online)."),
    ]


def resource_options():
    return [
        Option('cpus', type=int, group=RESOURCES,
               debug="Ray's CPUs (for sampler actors) and TensorFlow's "
                     "threads",
               refused={'cluster': CLUSTER_RESOURCES},
               help='CPUs for ray.init (default: all).'),
        Option('gpus', type=int, group=RESOURCES,
               refused={'debug': 'it starts Ray only for sampler actors, '
                                 'which use no GPU',
                        'cluster': CLUSTER_RESOURCES},
               help='GPUs for ray.init (default: all).'),
        Option('resources', type=json_object, group=RESOURCES,
               refused={'debug': 'it starts Ray only for sampler actors, '
                                 'which need none',
                        'cluster': CLUSTER_RESOURCES},
               help='Custom resources for ray.init, as JSON.'),
        Option('trial_cpus', type=float, group=RESOURCES,
               debug="TensorFlow's threads",
               help='CPUs per trial; TensorFlow uses as many threads, plus '
                    "the trial's sampler actors' CPUs when sampling is "
                    'synchronous (they take turns) (default: all CPUs given'
                    f' to Ray, here {os.cpu_count()}). Lower it to run '
                    'trials side by side.'),
        Option('trial_gpus', type=float, default=0, group=RESOURCES,
               debug="whether TensorFlow reports CUDA problems",
               help='GPUs per trial (default: %(default)s).'),
        Option('resources_per_trial', type=json_object, group=RESOURCES,
               refused={'debug': 'its trial is this process, not a Tune '
                                 "trial; --trial-cpus sets TensorFlow's "
                                 'threads'},
               help='Tune resources per trial as JSON, e.g. \'{"cpu": 2, '
                    '"gpu": 0}\'; overrides --trial-cpus/--trial-gpus.'),
    ]


def options():
    return [*experiment_options(), *sweep_options(), *tracking_options(),
            *resource_options()]
