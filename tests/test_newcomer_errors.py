"""What a newcomer hits, through the real commands and the Python API, on
environments of a user's own module: numbers that go non-finite stop the
trial (once, with one line, its last checkpoint kept), an unbounded action
space and an environment kwarg the constructor does not take are refused
before Ray starts, nested Dict observations and a constructor without
render_mode train, a finished run trains on with --restore and a larger
--n-epochs, the folder that ``Results:`` prints is a checkpoint path, and
a dozen small refusals say what is wrong and what is valid."""

import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import (FAKE_TENSORFLOW_STARTUP, REPO_ROOT, _cli,
                      assert_one_line_error, read_progress, run_cli,
                      run_clis_at_once, trial_dirs)
from test_first_day_runs import USER_MODULE

pytestmark = pytest.mark.slow

# The first day's PointMass, and what a newcomer's environments get wrong.
ENVIRONMENTS = USER_MODULE + textwrap.dedent('''
    class NanAt125(PointMass):
        """Its 125th step (the 25th of its 3rd episode) observes NaN."""
        steps = 0

        def step(self, action):
            observation, *rest = super().step(action)
            self.steps += 1
            if self.steps == 125:
                observation[0] = np.nan
            return (observation, *rest)


    class Unbounded(PointMass):
        def __init__(self, render_mode=None):
            super().__init__()
            self.action_space = gym.spaces.Box(-np.inf, np.inf, (1,),
                                               np.float32)


    class Nested(PointMass):
        """Nested Dict observations, and a constructor without render_mode
        (as gym.make(id) builds it)."""
        def __init__(self):
            super().__init__()
            box = lambda n: gym.spaces.Box(-10, 10, (n,), np.float32)
            self.observation_space = gym.spaces.Dict({
                'robot': gym.spaces.Dict({'position': box(1),
                                          'velocity': box(1)}),
                'target': box(1)})

        def _nested(self, state):
            return {'robot': {'position': state[:1], 'velocity': state[1:]},
                    'target': np.zeros(1, np.float32)}

        def reset(self, seed=None, options=None):
            state, info = super().reset(seed=seed)
            return self._nested(state), info

        def step(self, action):
            state, *rest = super().step(action)
            return (self._nested(state), *rest)


    for name in ('NanAt125', 'Unbounded', 'Nested'):
        gym.register(f'{name}-v0', entry_point=globals()[name],
                     max_episode_steps=50)
    ''')
SMALL = ['--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
         '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
         '--config', 'algorithm_params.config.eval_n_episodes=1']
RUN_GUARD_S = 900  # a hang guard; each run takes well under a minute
API_RUN = textwrap.dedent('''
    import os, sys
    from softlearning import experiments
    import softlearning
    experiment = experiments.experiment(
        domain='newcomer_envs:Nested', task='v0', n_epochs=2,
        epoch_length=100, seed=1, local_dir=sys.argv[1], cpus=1,
        config={'policy_params.config.hidden_layer_sizes': [16, 16],
                'Q_params.config.hidden_layer_sizes': [16, 16]})
    results = experiments.run(experiment)
    agent = softlearning.load(results[0].checkpoint.path)
    import gymnasium
    env = gymnasium.make('Nested-v0')
    observation, _ = env.reset(seed=0)
    action, state = agent.predict(observation)
    print('ACTION', action.tolist(), state)
    ''')


def _run(args, folder):
    command, env = _cli(['run_example_local', 'examples.development',
                         *args], None)
    return subprocess.run(command, cwd=folder, env=env, capture_output=True,
                          text=True, timeout=RUN_GUARD_S)


@pytest.fixture(scope='module')
def project(tmp_path_factory):
    """The user's folder, with the runs of this file made at once: a
    3-epoch run of PointMass (checkpoints every epoch), a run whose
    environment observes NaN in its third epoch, and a Python API run on
    nested observations with stdout going to a pipe. Their steps stay below
    a batch (no update is compiled): what is tested is around training."""
    folder = tmp_path_factory.mktemp('newcomer')
    (folder / 'newcomer_envs.py').write_text(ENVIRONMENTS)
    (folder / 'api_run.py').write_text(API_RUN)
    common = ['--task', 'v0', '--n-epochs', '3', '--epoch-length', '50',
              '--checkpoint-frequency', '1', '--seed', '3', '--cpus', '1',
              *SMALL]
    processes = {}
    for name, domain in (('base', 'PointMass'), ('nan', 'NanAt125')):
        command, env = _cli(['run_example_local', 'examples.development',
                             '--domain', f'newcomer_envs:{domain}', *common,
                             '--local-dir', folder / name], None)
        processes[name] = subprocess.Popen(
            command, cwd=folder, env=env, text=True, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
    _, env = _cli([], None)
    api = subprocess.run([sys.executable, 'api_run.py', str(folder / 'api')],
                         cwd=folder, env=env, capture_output=True, text=True,
                         timeout=RUN_GUARD_S)
    runs = {'folder': folder, 'api': api}
    for name, process in processes.items():
        stdout, stderr = process.communicate(timeout=RUN_GUARD_S)
        runs[name] = subprocess.CompletedProcess(
            process.args, process.returncode, stdout, stderr)
    return runs


def _importing(folder):
    """The environment of commands run elsewhere that import the user's
    module from ``folder``."""
    return {'PYTHONPATH': os.pathsep.join([FAKE_TENSORFLOW_STARTUP,
                                           REPO_ROOT, str(folder)])}


def _experiment(local_dir):
    (path,) = glob.glob(os.path.join(str(local_dir), '*', '*', '*', '*'))
    return path


# Non-finite numbers --------------------------------------------------------

def test_a_nan_observation_stops_the_trial_once_and_keeps_its_checkpoint(
        project):
    result = project['nan']
    assert result.returncode == 1, result.stderr[-3000:]
    expected = ("returned a non-finite observation 'observations' (nan at "
                "index 0) at step 25 of episode 2")
    assert expected in result.stderr, result.stderr[-3000:]
    assert "Training's environment steps" in result.stderr
    assert 'Traceback' not in result.stderr, result.stderr[-3000:]
    (trial,) = trial_dirs(project['folder'] / 'nan')
    errors = open(os.path.join(trial, 'error.txt')).read()
    assert errors.count('Failure #') == 1, errors  # not retried
    # Epochs 1 and 2 checkpointed; epoch 3 (steps 101-150) never ended.
    checkpoints = sorted(glob.glob(os.path.join(trial, 'checkpoint_*')))
    assert [os.path.basename(path) for path in checkpoints] == [
        'checkpoint_000000', 'checkpoint_000001']
    assert list(read_progress(trial)['epoch']) == [1, 2]
    summary = run_cli('summary', project['folder'] / 'nan')
    assert summary.returncode == 0, summary.stderr
    assert '[error]' in summary.stdout and 'non-finite' in summary.stdout


def test_the_kept_checkpoint_acts(project):
    import warnings

    import softlearning
    (trial,) = trial_dirs(project['folder'] / 'nan')
    with warnings.catch_warnings():
        # (The first day's tests may have registered PointMass-v0 in this
        # process already: the module registers it again.)
        warnings.filterwarnings('ignore', '.*Overriding environment')
        agent = softlearning.load(trial)
    action, _ = agent.predict(np.array([0.5, -0.1], np.float32))
    assert np.isfinite(action).all()


def test_an_unbounded_action_space_is_refused_before_ray(project):
    result = _run(['--domain', 'newcomer_envs:Unbounded', '--task', 'v0'],
                  project['folder'])
    assert_one_line_error(
        result, 'gym/newcomer_envs:Unbounded/v0 has actions without finite '
                'bounds (low [-inf], high [inf])')


# Observations and constructors ---------------------------------------------

def test_nested_dict_observations_and_no_render_mode_train_through_the_api(
        project):
    """Also: the Python API writes no colour codes into a redirected
    stdout, and predict returns (action, state) on the nested observation
    the environment gives."""
    result = project['api']
    assert result.returncode == 0, result.stderr[-3000:]
    assert '\x1b[' not in result.stdout, result.stdout[-2000:]
    assert 'epoch     2/2' in result.stdout
    (line,) = [line for line in result.stdout.splitlines()
               if line.startswith('ACTION')]
    action = json.loads(line.split(' ', 1)[1].rsplit(' ', 1)[0])
    assert len(action) == 1 and line.endswith(' None')
    (trial,) = trial_dirs(project['folder'] / 'api')
    columns = read_progress(trial).columns
    assert not read_progress(trial)['evaluation/return-mean'].isna().any()
    assert 'timesteps_total' in columns  # TensorBoard's x-axis: env steps


def test_environment_kwargs_are_checked_before_ray(project):
    results = run_clis_at_once({
        'dotted': ['show-config', 'examples.development', '--domain',
                   'Pendulum', '--task', 'v1', '--config',
                   'environment_params.training.kwargs.gg=5.0'],
        'whole': ['show-config', 'examples.development', '--domain',
                  'Pendulum', '--task', 'v1', '--config',
                  'environment_params.training.kwargs={"gg": 5.0}'],
        'good': ['show-config', 'examples.development', '--domain',
                 'Pendulum', '--task', 'v1', '--config',
                 'environment_params.training.kwargs.g=9.0'],
    })
    for name in ('dotted', 'whole'):
        assert_one_line_error(
            results[name], "Unknown environment kwarg 'gg' for "
                           "gym/Pendulum/v1; valid: g, max_episode_steps, "
                           "observation_keys, observation_transform, "
                           "render_mode.")
    assert results['good'].returncode == 0, results['good'].stderr
    assert 'g: 9.0' in results['good'].stdout


# Resuming -------------------------------------------------------------------

def test_a_finished_run_trains_on_to_a_larger_n_epochs(project, tmp_path):
    assert project['base'].returncode == 0, project['base'].stderr[-3000:]
    experiment = shutil.copytree(_experiment(project['folder'] / 'base'),
                                 tmp_path / 'longer')
    result = _run(['--restore', experiment, '--n-epochs', '5'],
                  project['folder'])
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'Every trial trains on to epoch 5' in result.stdout
    assert 'epoch     5/5' in result.stdout
    (trial,) = trial_dirs(experiment)
    progress = read_progress(trial)
    assert list(progress['epoch']) == [1, 2, 3, 4, 5]
    assert list(progress['total_timestep']) == [50, 100, 150, 200, 250]
    assert progress['num_train_steps'].is_monotonic_increasing
    with open(os.path.join(trial, 'params.json')) as f:
        assert json.load(f)['algorithm_params']['config']['n_epochs'] == 5


def test_too_few_epochs_for_a_checkpoint_are_refused(project, tmp_path):
    experiment = _experiment(project['folder'] / 'base')
    (trial,) = trial_dirs(experiment)
    results = run_clis_at_once({
        'experiment': ['run_example_local', 'examples.development',
                       '--restore', experiment, '--n-epochs', '2'],
        'checkpoint': ['run_example_local', 'examples.development',
                       '--domain', 'newcomer_envs:PointMass', '--task', 'v0',
                       *SMALL, '--restore',
                       os.path.join(trial, 'checkpoint_000001'),
                       '--n-epochs', '2'],
        'other_sizes': ['run_example_local', 'examples.development',
                        '--domain', 'newcomer_envs:PointMass', '--task',
                        'v0', '--restore',
                        os.path.join(trial, 'checkpoint_000001')],
    }, env=_importing(project['folder']))
    assert_one_line_error(
        results['experiment'],
        f"--n-epochs 2: trial {os.path.basename(trial)} of {experiment} has "
        "a checkpoint at epoch 3 already")
    assert_one_line_error(
        results['checkpoint'],
        'its checkpoint is at epoch 2 and the run trains to epoch 2')
    assert_one_line_error(
        results['other_sizes'],
        'was trained with other settings: '
        'policy_params.config.hidden_layer_sizes [16, 16] there, [256, 256] '
        'here; Q_params.config.hidden_layer_sizes [16, 16] there, [256, 256] '
        'here')


def test_the_api_refuses_zero_epochs():
    from softlearning import experiments
    with pytest.raises(experiments.ExperimentError,
                       match='n_epochs=0: expected a positive integer'):
        experiments.experiment(domain='Pendulum', task='v1', n_epochs=0)


def test_a_read_only_experiment_is_refused_before_ray(project, tmp_path):
    experiment = shutil.copytree(_experiment(project['folder'] / 'base'),
                                 tmp_path / 'copy')
    read_only = _read_only(experiment, tmp_path / 'mounted')
    try:
        result = _run(['--restore', read_only], project['folder'])
    finally:
        if read_only != experiment:
            subprocess.run(['umount', str(read_only)], check=True)
    assert_one_line_error(result, 'the experiment folder is read-only here')


def _read_only(folder, mount_point):
    """``folder`` as a user would find it read-only: its permissions, or
    (root ignores them) a read-only bind mount of it."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        return folder
    os.makedirs(mount_point)
    for command in (['mount', '--bind', str(folder), str(mount_point)],
                    ['mount', '-o', 'remount,bind,ro', str(mount_point)]):
        if subprocess.run(command, capture_output=True).returncode:
            subprocess.run(['umount', str(mount_point)], capture_output=True)
            pytest.skip('no read-only folder here: root ignores permissions, '
                        'and mounting is not allowed')
    return mount_point


# The folder Results: prints ------------------------------------------------

def test_the_results_folder_of_one_trial_is_a_checkpoint_path(project,
                                                              tmp_path):
    experiment = _experiment(project['folder'] / 'base')
    several = shutil.copytree(experiment, tmp_path / 'several')
    (trial,) = trial_dirs(several)
    shutil.copytree(trial, trial + '_copy')
    results = run_clis_at_once({
        'one': ['simulate', experiment, '--max-path-length', '10'],
        'several': ['simulate', several, '--max-path-length', '10'],
    }, env=_importing(project['folder']))
    assert results['one'].returncode == 0, results['one'].stderr[-2000:]
    assert_one_line_error(
        results['several'],
        f"is an experiment of 2 trials; name one of its trial folders: "
        f"{os.path.basename(trial)}, {os.path.basename(trial)}_copy.")


# Small ones -----------------------------------------------------------------

def test_small_refusals_and_notices(tmp_path):
    sweep = tmp_path / 'sweep.json'
    sweep.write_text(json.dumps({'n_epochs': 0}))
    base = ['show-config', 'examples.development', '--domain', 'Pendulum',
            '--task', 'v1']
    results = run_clis_at_once({
        'sweep': [*base, '--sweep', sweep],
        'policy': [*base, '--config', 'policy_params.class_name="Nope"'],
        'name': [*base, '--exp-name', 'my exp ü'],
        'short': [*base, '--epoch-length', '1'],
        'envs': [*base, '--envs-per-sampler', '0'],
        'vector': [*base, '--envs-per-sampler', '4', '--num-samplers', '2',
                   '--vector-mode', 'async'],
        'async_alone': [*base, '--vector-mode', 'async'],
        'mode': [*base, '--envs-per-sampler', '2', '--vector-mode', 'threads'],
    })
    assert_one_line_error(results['sweep'], f"--sweep {sweep}: n_epochs 0: "
                                            "expected a positive integer")
    assert_one_line_error(results['policy'],
                          "Unknown policy 'Nope'. Valid choices: ")
    assert results['name'].returncode == 0, results['name'].stderr
    assert ("--exp-name 'my exp ü' is written 'my_exp_ü' in the results "
            "folder's name.") in results['name'].stderr
    assert results['short'].returncode == 0, results['short'].stderr
    assert 'it will train nothing' in results['short'].stderr
    assert_one_line_error(results['envs'], "argument --envs-per-sampler: "
                                           "expected a positive integer, got 0")
    assert results['vector'].returncode == 0, results['vector'].stderr
    assert 'class_name: RemoteSampler  # from: option' in results['vector'].stdout
    assert 'envs_per_sampler: 4  # from: option' in results['vector'].stdout
    assert 'vector_mode: async  # from: option' in results['vector'].stdout
    assert_one_line_error(results['async_alone'],
                          "--vector-mode async steps all but a sampler's first "
                          "environment in processes of their own: it needs "
                          "--envs-per-sampler 2 or more (this run has 1).")
    assert_one_line_error(results['mode'], "argument --vector-mode: invalid "
                                           "choice: 'threads'")
