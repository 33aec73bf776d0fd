"""Start a Ray cluster with the autoscaler, run an example on it, stop it.

    softlearning launch_example_ec2 examples.development [example options]
    softlearning launch_example_gce examples.development [example options]
    softlearning launch_example_cluster examples.development \\
        --config-file my-cluster.yaml [example options]

What it does, in order (``--dry-run`` prints the commands instead):
1. checks the example's options here, as ``run_example_cluster`` would;
2. loads the cluster YAML (default: ``cluster_configs/{gce,ec2}.yaml`` of this
   package), sets its ``cluster_name``, mounts softlearning's source (this
   checkout, or a copy of the installed package) at ``~/softlearning`` and
   the Ray token at ``~/.ray/auth_token``, and validates the result with
   Ray's own validation;
3. asks for confirmation (unless ``--confirm-remote False``; it never waits
   for an answer when standard input is not a terminal);
4. ``ray up -y CONFIG``;
5. ``ray exec --tmux CONFIG 'softlearning run_example_cluster ...; SHUTDOWN'``
   (or ``ray job submit`` with ``--submit job``), where SHUTDOWN stops the
   workers (``ray down --workers-only`` with the head's bootstrap config) and
   then the head itself, unless ``--keep-cluster True``.

(``ray exec --stop`` would append ``ray teardown``, a command Ray 2.60 no
longer has, and leave the workers running; hence the explicit SHUTDOWN.)
"""

import os
import shlex
import subprocess
import sys

from softlearning.utils.one_line import first_line, yaml_problem

from softlearning.experiments.errors import ExperimentError

# The cluster YAMLs shipped with the package.
CLUSTER_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               'cluster_configs')
REMOTE_PROJECT = '~/softlearning'
REMOTE_TOKEN = '~/.ray/auth_token'
BOOTSTRAP_CONFIG = '~/ray_bootstrap_config.yaml'

# provider -> (default config, module the launching machine needs, extra)
PROVIDERS = {
    'gce': (os.path.join(CLUSTER_CONFIGS, 'gce.yaml'), 'googleapiclient',
            'gcp'),
    'ec2': (os.path.join(CLUSTER_CONFIGS, 'ec2.yaml'), 'boto3', 'aws'),
    'cluster': (None, None, None),
}

# Stops the workers through the autoscaler, then the head. On EC2 the head
# is created with InstanceInitiatedShutdownBehavior=terminate, so it is
# terminated; on GCE it stops (its disk stays until `ray down`).
SHUTDOWN_COMMAND = (f'ray stop; ray down -y --workers-only {BOOTSTRAP_CONFIG}; '
                    'sudo shutdown -h now')


# Bad input for a launch: one line, exit code 2.
LaunchError = ExperimentError


def _require_cloud_client(module, extra):
    """The launching machine needs the cloud's client library and
    ray[default] (the autoscaler's own dependencies)."""
    import importlib.util
    needed = {module: module, 'aiohttp': 'ray[default]',
              'grpc': 'ray[default]'}
    missing = sorted({package for name, package in needed.items()
                      if name and importlib.util.find_spec(name) is None})
    if missing:
        raise LaunchError(
            f"Launching this cluster needs {', '.join(missing)} on this "
            f"machine: pip install -e '.[{extra}]'.")


def project_source(staging_dir, dry_run=False):
    """A folder the cluster's nodes install softlearning from (``pip
    install -e ~/softlearning`` in the cluster YAMLs): the checkout this
    package runs from, or, for an installed package, a copy of it with a
    minimal pyproject.toml (its dependencies from the installed
    metadata), made in ``staging_dir`` (not with ``dry_run``)."""
    import softlearning
    package = os.path.dirname(os.path.abspath(softlearning.__file__))
    checkout = os.path.dirname(package)
    if os.path.isfile(os.path.join(checkout, 'setup.py')):
        return checkout
    if dry_run:
        return staging_dir
    import importlib.metadata
    import shutil
    shutil.rmtree(staging_dir, ignore_errors=True)
    shutil.copytree(package, os.path.join(staging_dir, 'softlearning'),
                    ignore=shutil.ignore_patterns('__pycache__'))
    distribution = importlib.metadata.distribution('softlearning')
    requirements = [r for r in distribution.requires or []
                    if 'extra ==' not in r]
    with open(os.path.join(staging_dir, 'pyproject.toml'), 'w') as f:
        f.write('[build-system]\nrequires = ["setuptools"]\n'
                'build-backend = "setuptools.build_meta"\n\n'
                f'[project]\nname = "softlearning"\n'
                f'version = "{distribution.version}"\n'
                f'dependencies = {requirements!r}\n\n'
                '[project.scripts]\n'
                'softlearning = "softlearning.cli.main:main"\n\n'
                '[tool.setuptools.package-data]\n'
                '"*" = ["*.yaml", "*.json"]\n')
    return staging_dir


def load_cluster_config(path, cluster_name, token_path, project_source):
    """The cluster YAML with our name, mounts and token start-up; validated
    with Ray's own code. Raises LaunchError with Ray's message."""
    import contextlib
    import io
    import logging
    import yaml
    from softlearning.utils import ray_compat
    if not os.path.isfile(path):
        raise LaunchError(f"--config-file '{path}' does not exist.")
    try:
        with open(path) as f:
            config = yaml.safe_load(f)
    except yaml.YAMLError as error:
        raise LaunchError(f"--config-file '{path}' is not valid YAML: "
                          f"{yaml_problem(error)}.") from None
    if not isinstance(config, dict):
        raise LaunchError(f"--config-file '{path}' is not a cluster config "
                          "(a YAML mapping).")
    config['cluster_name'] = cluster_name
    config['file_mounts'] = {**(config.get('file_mounts') or {}),
                             REMOTE_PROJECT: project_source,
                             REMOTE_TOKEN: token_path}
    # Ray logs how it fills defaults in, and warns of mounts it would
    # rather have as folders for Docker (the token file), which this
    # cluster does not run: an invalid config raises.
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ray_compat.prepared_cluster_config(dict(config))
    except Exception as error:  # jsonschema / ValueError from Ray
        raise LaunchError(f"--config-file '{path}' is not a valid Ray "
                          f"autoscaler config: {first_line(error)}") from None
    finally:
        logging.disable(logging.NOTSET)
    return config


def example_command(example_module_name, example_argv):
    """What runs on the head node (a login shell there)."""
    run = shlex.join(['softlearning', 'run_example_cluster',
                      example_module_name, *example_argv])
    return f'cd {REMOTE_PROJECT} && {run}'


def launch_commands(config_path, run, shutdown, submit='tmux'):
    """``ray up``, then ``run`` on the head node inside tmux, followed by
    ``shutdown`` (if any) whatever run's exit status. With
    ``submit='job'``, ``run`` is a Ray job (``ray job submit`` on the head
    waits for it, so the shutdown still follows)."""
    if submit == 'job':
        run = shlex.join(['ray', 'job', 'submit', '--address',
                          'http://127.0.0.1:8265', '--', 'bash', '-lc', run])
    command = f'{run}; {shutdown}' if shutdown else run
    return [['ray', 'up', '-y', config_path],
            ['ray', 'exec', '--tmux', config_path, command]]


def _ensure_token(dry_run):
    """The Ray token every node of the cluster starts with."""
    path = os.path.expanduser(os.environ.get('RAY_AUTH_TOKEN_PATH')
                              or REMOTE_TOKEN)
    if not os.path.isfile(path) and not dry_run:
        from softlearning.utils import ray_compat
        ray_compat.generate_and_save_token()
    return path


def _check_confirmable():
    if not sys.stdin.isatty():
        raise LaunchError(
            "Standard input is not a terminal, so nobody can confirm starting "
            "a (billed) cluster: pass --confirm-remote False to start it "
            "without asking.")


def _confirm(cluster_name, config_path):
    answer = input(f"Start cluster '{cluster_name}' from {config_path} "
                   "(cloud resources are billed)? [y/N] ")
    return answer.strip().lower() in ('y', 'yes')


def launch(provider, launch_options, example_module_name, example_argv,
           exp_name):
    """Starts the cluster, runs the example there with run_example_cluster
    (``example_argv``, already checked here), shuts it down.
    ``launch_options``: the launcher's own options (cli/launch.py)."""
    args = launch_options
    _, extra_module, extra = PROVIDERS[provider]
    cluster_name = args.cluster_name or f'softlearning-{exp_name}'
    # What would stop the launch is checked before a token is made.
    if not args.dry_run and extra_module:
        _require_cloud_client(extra_module, extra)
    if not args.dry_run and args.confirm_remote:
        _check_confirmable()
    token_path = _ensure_token(args.dry_run)
    config_dir = os.path.expanduser('~/.softlearning/clusters')
    source = project_source(
        os.path.join(config_dir, f'{cluster_name}-source'), args.dry_run)
    config = load_cluster_config(args.config_file, cluster_name, token_path,
                                 source)
    import yaml
    os.makedirs(config_dir, exist_ok=True)
    config_path = os.path.join(config_dir, f'{cluster_name}.yaml')
    with open(config_path, 'w') as f:
        yaml.safe_dump(config, f, sort_keys=False)
    commands = launch_commands(
        config_path, example_command(example_module_name, example_argv),
        None if args.keep_cluster else SHUTDOWN_COMMAND, args.submit)
    if args.dry_run:
        for command in commands:
            print(shlex.join(command))
        return 0
    if args.confirm_remote and not _confirm(cluster_name, config_path):
        print('Not started.')
        return 1
    for command in commands:
        print(f"$ {shlex.join(command)}", flush=True)
        subprocess.run(command, check=True)
    print(f"The example runs on the head node of '{cluster_name}' in tmux: "
          f"`ray attach {config_path} --tmux` shows it; `ray down -y "
          f"{config_path}` stops the cluster now.")
    return 0
