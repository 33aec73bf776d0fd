"""Experiment trackers a user already runs, as Tune's logger callbacks:

- TensorBoard: always. Tune writes each trial's results as TensorBoard
  events in its folder (tensorboardX); ``tensorboard --logdir
  ~/ray_results`` shows them.
- MLflow (``--mlflow URI``): a tracking server (http://host:5000), a
  database URI, or a folder (an SQLite store there); one MLflow run per
  trial, with its variant as parameters, its results as metrics and its
  folder (checkpoints included) as artifacts when it ends.
- Weights & Biases (``--wandb-project NAME``, ``--wandb-mode offline`` to
  write runs locally and ``wandb sync`` them later): one W&B run per trial,
  with its config and metrics; offline runs are written to
  the experiment's folder (EXPERIMENT/wandb/offline-run-*).

Both need the tracking extra (``pip install -e '.[tracking]'``). What can
be known before Ray starts is checked then: the package, a local store's
folder, a server that answers, W&B's login in online mode.
"""

import importlib.util
import os
import pathlib

from softlearning.utils import storage

from softlearning.experiments.config.options_of_the_run import (
    TRACKING_EXTRA as EXTRA, WANDB_MODES)
from softlearning.experiments.errors import ExperimentError



def _require(module, option):
    if importlib.util.find_spec(module) is None:
        raise ExperimentError(
            f"{option} needs the {module} package: {EXTRA}")


def mlflow_uri(uri):
    """The tracking URI of ``--mlflow``: a server or a database as given; a
    folder becomes an SQLite store in it (FOLDER/mlflow.db, artifacts in
    FOLDER/artifacts), which ``mlflow ui --backend-store-uri
    sqlite:///FOLDER/mlflow.db`` shows."""
    folder = _local_folder(uri)
    if folder is None:
        return uri
    return 'sqlite:///' + os.path.join(folder, 'mlflow.db')


def _local_folder(uri):
    """The folder ``--mlflow`` names, or None for a server or database."""
    if '://' in uri or uri.startswith(('databricks', 'sqlite:')):
        return None
    return storage.normalize(uri)


def check(options):
    """The tracker options, before Ray starts (ExperimentError)."""
    uri = options.mlflow
    if uri:
        _require('mlflow', '--mlflow')
        folder = _local_folder(uri)
        if folder is not None:
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as error:
                raise ExperimentError(
                    f"--mlflow {uri}: cannot create the local store "
                    f"({error.strerror or error}).") from None
        elif uri.startswith(('http://', 'https://')):
            _check_server(uri)
    project = options.wandb_project
    mode = options.wandb_mode
    if mode and not project:
        raise ExperimentError(f"--wandb-mode {mode} needs --wandb-project.")
    if project:
        _require('wandb', '--wandb-project')
        if (mode or os.environ.get('WANDB_MODE', 'online')) == 'online' and (
                not _wandb_logged_in()):
            raise ExperimentError(
                f"--wandb-project {project}: W&B online needs a login "
                "(wandb login, or WANDB_API_KEY); or --wandb-mode offline.")


def _check_server(uri):
    import urllib.request
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health",
                                    timeout=10) as response:
            response.read()
    except OSError as error:
        raise ExperimentError(
            f"--mlflow {uri}: no MLflow server answers there "
            f"({getattr(error, 'reason', error)}); start one with 'mlflow "
            "server', or give a folder for a local store.") from None


def _wandb_logged_in():
    if os.environ.get('WANDB_API_KEY'):
        return True
    netrc = os.path.expanduser('~/.netrc')
    return os.path.isfile(netrc) and 'api.wandb.ai' in open(netrc).read()


def set_environment(options):
    """Before Ray starts (its processes inherit the environment): W&B's
    offline mode (without it Ray asks for an API key), and a generous
    start-up time for W&B's service on a busy machine (90 s by default)."""
    if options.wandb_project:
        if options.wandb_mode == 'offline':
            os.environ['WANDB_MODE'] = 'offline'
        os.environ.setdefault('WANDB_INIT_TIMEOUT', '600')
        # W&B's own console (each trial's run summary, tens of lines) stays
        # out of the command's; where the runs went is said once, by
        # wandb_notice.
        os.environ.setdefault('WANDB_SILENT', 'true')


def wandb_notice(options, experiment_folder):
    """The line that says where a run's W&B runs are, or None."""
    if not options.wandb_project:
        return None
    if options.wandb_mode == 'offline' and not storage.is_uri(
            experiment_folder):
        runs = os.path.join(experiment_folder, 'wandb')
        return (f"W&B: offline runs in {runs}; upload them with "
                f"wandb sync {runs}/offline-run-*")
    return f"W&B: runs in project {options.wandb_project}."


def callbacks(options, experiment_folder):
    """The Tune callbacks of the tracker options (an empty list without
    them) for the experiment in ``experiment_folder``."""
    found = []
    experiment_name = os.path.basename(experiment_folder.split('?')[0])
    uri = options.mlflow
    if uri:
        name = options.mlflow_experiment or experiment_name
        _create_local_experiment(uri, name)
        found.append(_mlflow_callback_class()(
            tracking_uri=mlflow_uri(uri), experiment_name=name,
            save_artifact=True))
    project = options.wandb_project
    if project:
        mode = options.wandb_mode
        settings = {'mode': mode} if mode else {}
        if not storage.is_uri(experiment_folder):
            # Offline runs (and W&B's files) in the experiment's folder.
            os.makedirs(experiment_folder, exist_ok=True)
            settings['dir'] = experiment_folder
        from softlearning.utils import ray_compat
        found.append(ray_compat.wandb_callback_without_restarts()(
            project=project, group=experiment_name,
            **settings))
    return found


def _create_local_experiment(uri, name):
    """A local store's experiment keeps its artifacts beside its database
    (MLflow would put them in the working directory)."""
    folder = _local_folder(uri)
    if folder is None:
        return
    import logging

    import mlflow
    logging.getLogger('mlflow').setLevel(logging.WARNING)  # its DB set-up
    client = mlflow.MlflowClient(mlflow_uri(uri))
    if client.get_experiment_by_name(name) is None:
        client.create_experiment(name, artifact_location=pathlib.Path(
            folder, 'artifacts').as_uri())


def _mlflow_callback_class():
    from ray.air.integrations.mlflow import MLflowLoggerCallback

    class MLflowWithCheckpoints(MLflowLoggerCallback):
        """Tune's MLflow callback, which logs a trial's folder when it
        ends, plus each checkpoint when it is saved (the one at the end is
        written after the trial's end was logged)."""

        def log_trial_save(self, trial):
            checkpoint = getattr(trial, 'checkpoint', None)
            run_id = self._trial_runs.get(trial)
            if checkpoint is None or run_id is None or not os.path.isdir(
                    checkpoint.path):
                return
            import mlflow
            mlflow.MlflowClient(self.tracking_uri).log_artifacts(
                run_id, checkpoint.path,
                artifact_path=os.path.basename(checkpoint.path))

    return MLflowWithCheckpoints
