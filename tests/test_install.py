"""softlearning installed as a user installs it (``pip install .``, not
editable) and run from another folder: the quick start, simulate, summary
and a launch's dry run need nothing from the repository.

The throw-away virtual environment gets softlearning itself from this
checkout, built as a wheel; its dependencies are this environment's (a
.pth file), so the test downloads nothing."""

import os
import subprocess
import sys
import sysconfig

import pytest

from conftest import REPO_ROOT, read_progress, trial_dirs

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    venv = tmp_path_factory.mktemp('venv')
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', venv],
                   check=True, timeout=300)
    python = str(venv / 'bin' / 'python')
    purelib = subprocess.run(
        [python, '-c', 'import sysconfig; print(sysconfig.get_paths()'
                       '["purelib"])'],
        check=True, capture_output=True, text=True).stdout.strip()
    # This environment's packages, but not its editable softlearning (an
    # editable install is a finder .pth, which a path entry does not run).
    with open(os.path.join(purelib, 'dependencies.pth'), 'w') as f:
        f.write(sysconfig.get_paths()['purelib'] + '\n')
    build = tmp_path_factory.mktemp('build')
    subprocess.run(
        [python, '-m', 'pip', 'install', '-q', '--no-deps',
         '--no-build-isolation', '--no-index', '--target', purelib,
         '--upgrade', REPO_ROOT],
        check=True, timeout=600, cwd=build, capture_output=True)
    # The console script, as pip writes it for an installed package.
    script = venv / 'bin' / 'softlearning'
    script.write_text(f'#!{python}\nimport sys\n'
                      'from softlearning.cli.main import main\n'
                      'sys.exit(main())\n')
    script.chmod(0o755)
    home = tmp_path_factory.mktemp('home')
    env = {key: value for key, value in os.environ.items()
           if key not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}:{env['PATH']}",
               RAY_USAGE_STATS_ENABLED='0')
    return python, env, home


def run(installed, *args, timeout=900):
    python, env, home = installed
    return subprocess.run(['softlearning', *map(str, args)], cwd=home,
                          env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_package_comes_from_the_installation(installed):
    python, env, home = installed
    result = subprocess.run(
        [python, '-c', 'import importlib.util, softlearning; '
                       'print(softlearning.__file__); '
                       'print(importlib.util.find_spec("examples"))'],
        cwd=home, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    location, examples = result.stdout.split()
    assert not location.startswith(REPO_ROOT), location
    assert examples == 'None'  # no top-level 'examples' package installed


def test_quick_start_simulate_summary_and_launch(installed):
    _, _, home = installed
    result = run(installed, 'run_example_local', 'examples.development',
                 '--algorithm', 'SAC', '--universe', 'gym', '--domain',
                 'Pendulum', '--task', 'v1', '--n-epochs', '1',
                 '--epoch-length', '300', '--cpus', '2',
                 '--config',
                 'algorithm_params.config.n_initial_exploration_steps=100')
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (trial_dir,) = trial_dirs(home / 'ray_results')
    assert len(read_progress(trial_dir)) == 1

    result = run(installed, 'simulate', trial_dir, '--max-path-length', '20')
    assert result.returncode == 0, result.stderr[-3000:]
    assert 'rollout 0: return' in result.stdout

    result = run(installed, 'summary', home / 'ray_results')
    assert result.returncode == 0, result.stderr[-3000:]
    assert '1 done' in result.stdout

    result = run(installed, 'launch_example_ec2', 'examples.development',
                 '--dry-run', '--exp-name', 'installed')
    assert result.returncode == 0, result.stderr[-3000:]
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ['ray', 'up'], ['ray', 'exec']]
    config = home / '.softlearning' / 'clusters' / 'softlearning-installed.yaml'
    assert config.is_file()
