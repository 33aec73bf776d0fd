"""``softlearning launch_example_{gce,ec2,cluster} EXAMPLE``: the launcher's
options; the example's options are checked as run_example_cluster's (see
softlearning/experiments/cluster/launch.py for what a launch does)."""

import os

from softlearning.experiments.cluster.launch import PROVIDERS, launch

from .options import ArgumentParser, str2bool


def get_parser(provider):
    parser = ArgumentParser(
        prog=f'softlearning launch_example_{provider} EXAMPLE',
        description='Start a Ray cluster with the autoscaler, run the '
                    'example on it with run_example_cluster, then shut the '
                    'cluster down. Options not listed here are the '
                    "example's (see 'softlearning run_example_cluster "
                    "EXAMPLE --help').")
    default_config = PROVIDERS[provider][0]
    parser.add_argument(
        '--config-file', type=str, default=default_config,
        required=default_config is None,
        help='Ray autoscaler cluster YAML' + (
            f' (default: softlearning\'s {os.path.basename(default_config)},'
            f' {default_config}).' if default_config else '.'))
    parser.add_argument('--cluster-name', type=str, default=None,
                        help='Name of the cluster (default: softlearning-'
                             '<exp-name>).')
    parser.add_argument('--confirm-remote', type=str2bool, default=True,
                        help='Ask before starting the cluster (default: '
                             '%(default)s).')
    parser.add_argument('--keep-cluster', type=str2bool, default=False,
                        help='Leave the cluster running after the example '
                             '(default: %(default)s; stop it with `ray down '
                             'CONFIG`).')
    parser.add_argument('--submit', choices=('tmux', 'job'), default='tmux',
                        help="How the example runs on the head: 'tmux' "
                             "(ray exec --tmux; default) or 'job' (ray job "
                             'submit, needs ray[default] on the cluster).')
    parser.add_argument('--dry-run', action='store_true',
                        help='Print the commands instead of running them.')
    return parser


def main(provider, example_module_name, argv):
    from .run import prepare_from_command_line
    args, example_argv = get_parser(provider).parse_known_args(argv)
    # The example's options are checked here, before any cloud resource.
    experiment = prepare_from_command_line(
        example_module_name, list(example_argv), 'cluster',
        check_storage=False)
    return launch(provider, args, example_module_name, example_argv,
                  experiment.options.exp_name)
