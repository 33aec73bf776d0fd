"""The release: one version (softlearning/__init__.py) that `softlearning
--version`, setup.py, CITATION.cff and CHANGELOG.md agree on; the release
files; a wheel that holds every file the package has."""

import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

import softlearning
from conftest import REPO_ROOT, TENSORFLOW_IMPORTED, _cli


def _read(name):
    with open(os.path.join(REPO_ROOT, name)) as f:
        return f.read()


def _console_script():
    """The `softlearning` command installed beside this Python (as
    install.sh installs it), else the one on PATH."""
    script = os.path.join(os.path.dirname(sys.executable), 'softlearning')
    return script if os.path.isfile(script) else shutil.which('softlearning')


def test_version_through_the_console_script():
    script = _console_script()
    assert script, 'no softlearning command: pip install -e . first'
    # PYTHONPATH as the other command-line tests have it (this checkout,
    # and the fake TensorFlow start-up that tells an import of TensorFlow).
    _, env = _cli([], None)
    result = subprocess.run([script, '--version'], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f'softlearning {softlearning.__version__}'
    # It answers at once: neither TensorFlow nor Ray is imported.
    assert TENSORFLOW_IMPORTED not in result.stderr
    check = subprocess.run(
        [sys.executable, '-c', 'import sys; from softlearning.cli.main '
         'import main; main(["--version"]); print(sorted(m for m in '
         '("tensorflow", "ray") if m in sys.modules))'],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert check.stdout.splitlines() == [
        f'softlearning {softlearning.__version__}', '[]'], check.stderr


def test_setup_reads_the_one_version():
    setup = _read('setup.py')
    assert 'version=version' in setup
    assert not re.search(r"version='\d", setup)
    result = subprocess.run([sys.executable, 'setup.py', '--version'],
                            cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip().splitlines()[-1] == softlearning.__version__


def test_release_files():
    version = softlearning.__version__
    for name in ('LICENSE', 'CHANGELOG.md', 'CITATION.cff',
                 'CONTRIBUTING.md'):
        assert os.path.isfile(os.path.join(REPO_ROOT, name)), name
    assert 'MIT License' in _read('LICENSE')
    changelog = _read('CHANGELOG.md')
    sections = re.findall(r'^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$',
                          changelog, re.MULTILINE)
    # Unreleased first, then the releases, newest first.
    assert sections[0] == ('Unreleased', ''), sections
    released = dict(sections[1:])
    assert version in released, f'CHANGELOG.md has no section for {version}'
    citation = yaml.safe_load(_read('CITATION.cff'))
    assert citation['cff-version'] == '1.2.0'
    assert citation['version'] == version
    assert str(citation['date-released']) == released[version]
    assert citation['license'] == 'MIT'


def _tracked(prefix):
    """The files git tracks under ``prefix`` (a folder of the checkout)."""
    result = subprocess.run(['git', 'ls-files', '-z', prefix], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        pytest.skip(f'not a git checkout: {result.stderr.strip()}')
    return [path for path in result.stdout.split('\0') if path]


def test_the_wheel_holds_every_file_of_the_package(tmp_path):
    """`python -m build --wheel` of the committed files: every file git
    tracks under softlearning/ is in it (data files such as the cluster
    configs included), and the license. (Installing it and running the
    quick start from another folder: tests/test_install.py.)"""
    pytest.importorskip('build')
    source = tmp_path / 'source'
    package_files = _tracked('softlearning')
    for path in package_files + ['setup.py', 'requirements.txt', 'README.md',
                                 'LICENSE']:
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(os.path.join(REPO_ROOT, path), source / path)
    # No build isolation: this environment's setuptools, nothing downloaded.
    result = subprocess.run(
        [sys.executable, '-m', 'build', '--wheel', '--no-isolation',
         '--outdir', str(tmp_path / 'dist'), str(source)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (wheel,) = (tmp_path / 'dist').glob('*.whl')
    version = softlearning.__version__
    assert wheel.name == f'softlearning-{version}-py3-none-any.whl'
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = sorted(set(package_files) - names)
    assert not missing, missing
    assert any(name.startswith(f'softlearning-{version}.dist-info/')
               and os.path.basename(name).startswith('LICENSE')
               for name in names), sorted(names)[-10:]
    assert not any(name.startswith(('examples/', 'tests/')) for name in names)
