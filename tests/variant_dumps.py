"""Dumps of resolved experiments (variant spec, resolved options, trial
resources and Tune settings) for representative command lines, compared
with the golden files in tests/golden/variants/ by test_variant_dumps.py.

    python tests/variant_dumps.py            # write the golden files again

They pin what each command line resolves to, so that a change to how
options are defined or parsed shows as a difference here. The CPU count is
fixed at 4 while dumping (defaults derive from it), so that the dumps are
the same on every machine. Nothing here starts Ray or TensorFlow.
"""

import contextlib
import io
import json
import os
import sys

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN_DIR = os.path.join(REPOSITORY, 'tests', 'golden', 'variants')
CPUS = 4

DEV = 'examples.development'
SWEEPS = 'examples/sweeps'

# name -> (run mode, example module, argv)
COMMAND_LINES = {
    'debug_default': ('debug', DEV, []),
    'debug_mode_local': ('debug', DEV, ['--mode', 'local', '--n-epochs',
                                        '2']),
    'local_sac_pendulum': ('local', DEV, ['--algorithm', 'SAC', '--universe',
                                          'gym', '--domain', 'Pendulum',
                                          '--task', 'v1']),
    'local_sql': ('local', DEV, ['--algorithm', 'SQL']),
    'local_td3_seed': ('local', DEV, ['--algorithm', 'TD3', '--seed', '3',
                                      '--n-epochs', '4',
                                      '--epoch-length', '500']),
    'local_ddpg': ('local', DEV, ['--algorithm', 'DDPG',
                                  '--max-path-length', '100']),
    'local_tqc_halfcheetah': ('local', DEV, ['--algorithm', 'TQC',
                                             '--domain', 'HalfCheetah',
                                             '--task', 'v5']),
    'local_redq': ('local', DEV, ['--algorithm', 'REDQ']),
    'local_droq': ('local', DEV, ['--algorithm', 'DroQ']),
    # The preset's n-step pool takes --n-step's N.
    'local_fasttd3_n_step': ('local', DEV, ['--algorithm', 'FastTD3',
                                            '--n-step', '5']),
    'local_fastsac_pendulum': ('local', DEV, [
        '--algorithm', 'FastSAC', '--universe', 'gym', '--domain',
        'Pendulum', '--task', 'v1']),
    'local_crossq_checkpoints': ('local', DEV, [
        '--algorithm', 'CrossQ', '--checkpoint-frequency', '2',
        '--checkpoint-at-end', 'True', '--max-failures', '1',
        '--verbose', '2']),
    'local_config_overrides': ('local', DEV, [
        '--config', 'algorithm_params.config.discount=0.98',
        '--config', 'algorithm_params.config.tau={"grid_search": [0.005, '
                    '0.01]}',
        '--config', 'policy_params.config.hidden_layer_sizes=[64, 64]',
        '--num-samples', '3', '--trial-cpus', '1']),
    'local_pixels_dm_control': ('local', DEV, [
        '--observation', 'pixels', '--universe', 'dm_control',
        '--domain', 'cartpole', '--task', 'swingup']),
    'local_recurrent_pomdp': ('local', DEV, [
        '--policy', 'recurrent', '--pomdp', 'positions']),
    'local_pomdp_previous_action': ('local', DEV, [
        '--algorithm', 'TD3', '--policy', 'recurrent', '--pomdp',
        'velocities', '--pomdp-previous-action', 'True']),
    'local_curriculum_samplers': ('local', DEV, [
        '--domain', 'HalfCheetah', '--task', 'v5', '--curriculum',
        'examples/curriculum/half_cheetah_mass.json', '--num-samplers', '2',
        '--sampler-cpus', '1', '--trial-cpus', '1']),
    'local_async_samplers': ('local', DEV, [
        '--num-samplers', '3', '--async-sampling', 'True']),
    'local_network_simba_n_step': ('local', DEV, [
        '--network', 'simba', '--n-step', '3', '--algorithm', 'TQC']),
    'local_sweep_asha': ('local', DEV, ['--sweep',
                                        f'{SWEEPS}/pendulum_asha.json',
                                        '--num-samples', '2']),
    'local_sweep_grid': ('local', DEV, ['--sweep',
                                        f'{SWEEPS}/pendulum_lr.json']),
    'local_sweep_pbt': ('local', DEV, ['--sweep',
                                       f'{SWEEPS}/pendulum_pbt.yaml',
                                       '--max-concurrent-trials', '2']),
    'local_optuna': ('local', DEV, [
        '--search-algorithm', 'optuna', '--metric-mode', 'max',
        '--config', 'algorithm_params.config.policy_lr={"loguniform": '
                    '[0.0001, 0.003]}']),
    'local_resources': ('local', DEV, [
        '--cpus', '3', '--gpus', '0', '--resources-per-trial',
        '{"cpu": 2, "gpu": 0}', '--exp-name', 'named',
        '--deterministic-ops', 'True', '--run-eagerly', 'False']),
    'cluster_default': ('cluster', DEV, ['--trial-gpus', '0.5']),
    'cluster_samplers': ('cluster', DEV, ['--num-samplers', '2',
                                          '--address', '10.0.0.1:6379']),
    'multi_goal_local': ('local', 'examples.multi_goal', []),
    'multi_goal_debug_sac': ('debug', 'examples.multi_goal',
                             ['--algorithm', 'SAC']),
    'curriculum_example': ('local', 'examples.curriculum',
                           ['--num-samplers', '2']),
    'debug_samplers_pixels': ('debug', DEV, [
        '--observation', 'pixels', '--universe', 'dm_control', '--domain',
        'cheetah', '--task', 'run', '--trial-cpus', '2']),
}

# Bad command lines: their one-line errors.
ERROR_LINES = {
    'error_policy_for_algorithm': ('local', DEV, ['--algorithm', 'TD3',
                                                  '--policy', 'gaussian']),
    'error_unknown_config_key': ('local', DEV, [
        '--config', 'algorithm_params.config.nope=1']),
    'error_refused_in_debug': ('debug', DEV, ['--num-samples', '2']),
    'error_refused_on_cluster': ('cluster', DEV, ['--cpus', '2']),
    'error_refused_local': ('local', DEV, ['--address', 'x:1']),
    'error_bad_choice': ('local', DEV, ['--algorithm', 'PPO']),
    'error_unknown_option': ('local', DEV, ['--n-epochz', '3']),
    'error_not_an_integer': ('local', DEV, ['--n-epochs', 'abc']),
    'error_negative_samplers': ('local', DEV, ['--num-samplers', '-1']),
    'error_not_a_boolean': ('local', DEV, ['--async-sampling', 'maybe']),
    'error_not_json': ('local', DEV, ['--resources', '{']),
    'error_not_key_value': ('local', DEV, ['--config', 'nokey']),
    'error_unknown_sweep_option': ('local', DEV, [
        '--sweep', 'tests/golden/sweep_with_unknown_option.json']),
}

# The Python API: experiments.experiment(run=..., **options).
API_CALLS = {
    'api_sac': {'run': 'local', 'algorithm': 'SAC', 'n_epochs': 3,
                'seed': 1,
                'config': {'algorithm_params.config.tau': 0.01}},
    'api_debug_td3': {'run': 'debug', 'algorithm': 'TD3', 'num_samplers': 1},
    'api_sweep': {'run': 'local',
                  'sweep': f'{SWEEPS}/pendulum_asha.json', 'num_samples': 2},
}


# Attributes that differ between two runs (clock times).
VOLATILE = ('_start_time', '_last_report_time')


def plain(value):
    """A JSON-able copy of ``value``: Tune's search spaces and other
    objects by their class and their simple attributes."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return str(value)
    attributes = {}
    for name, item in sorted(vars(value).items()):
        if name.startswith('__') or callable(item) or name in VOLATILE:
            continue
        if item is None or isinstance(item, (bool, int, float, str)):
            attributes[name] = item
        elif name in ('sampler', 'domain') and hasattr(item, '__dict__'):
            attributes[name] = plain(item)
        elif name in ('categories', '_hyperparam_mutations',
                      '_metric_columns', '_parameter_columns'):
            attributes[name] = plain(item)
    return {'__class__': type(value).__name__, **attributes}


def experiment_dump(experiment):
    from softlearning.experiments.cluster.resources import trial_resources
    options = dict(vars(experiment.options))
    resources = (trial_resources(experiment.options, experiment.variant_spec)
                 if experiment.mode != 'debug' else None)
    return plain({
        'mode': experiment.mode,
        'options': options,
        'variant_spec': experiment.variant_spec,
        'trial_resources': resources,
        'tune_settings': experiment.tune_settings,
    })


@contextlib.contextmanager
def fixed_cpu_count():
    cpu_count = os.cpu_count
    os.cpu_count = lambda: CPUS
    try:
        yield
    finally:
        os.cpu_count = cpu_count


def _command_line(mode, example, argv):
    from softlearning.cli.run import prepare_from_command_line
    return prepare_from_command_line(example, argv, mode,
                                     check_storage=False)


def _api_call(options):
    from softlearning import experiments
    return experiments.experiment(**options)


def _error(function, *arguments):
    """The one line a bad input ends with (stderr), and its exit status."""
    from softlearning.cli.options import report_errors
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            status = report_errors(function, *arguments)
        except SystemExit as exit:
            status = exit.code
    return {'status': status, 'stderr': stderr.getvalue()}


def dumps():
    """{name: dump} of every command line, API call and error."""
    os.chdir(REPOSITORY)
    if REPOSITORY not in sys.path:
        sys.path.insert(0, REPOSITORY)
    results = {}
    with fixed_cpu_count(), contextlib.redirect_stderr(io.StringIO()):
        for name, (mode, example, argv) in COMMAND_LINES.items():
            results[name] = {
                'command': [f'run_example_{mode}', example, *argv],
                **experiment_dump(_command_line(mode, example, argv))}
        for name, options in API_CALLS.items():
            results[name] = {'call': options,
                             **experiment_dump(_api_call(dict(options)))}
        for name, (mode, example, argv) in ERROR_LINES.items():
            results[name] = {
                'command': [f'run_example_{mode}', example, *argv],
                **_error(_command_line, mode, example, argv)}
    # Paths in this checkout, as in any other.
    text = json.dumps(results, sort_keys=True).replace(REPOSITORY,
                                                       '<repository>')
    return json.loads(text)


def golden():
    result = {}
    for file_name in sorted(os.listdir(GOLDEN_DIR)):
        with open(os.path.join(GOLDEN_DIR, file_name)) as f:
            result[file_name[:-len('.json')]] = json.load(f)
    return result


def write_golden():
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    for name, dump in dumps().items():
        with open(os.path.join(GOLDEN_DIR, f'{name}.json'), 'w') as f:
            json.dump(dump, f, indent=1, sort_keys=True)
            f.write('\n')


if __name__ == '__main__':
    write_golden()
