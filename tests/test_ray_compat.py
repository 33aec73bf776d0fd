"""Ray's private code is used in one module, softlearning/utils/ray_compat.py,
which checks at import that every private attribute it uses is there."""

import os
import re

import pytest

from conftest import REPO_ROOT
from softlearning.utils import ray_compat

PRIVATE = re.compile(
    r'^\s*(from|import)\s+ray\.(_private|_common|air\._internal|'
    r'autoscaler\._private)\b|_Trial__|\._local_tuner\b|_internal_kv_get|'
    r'_force_on_current_node')


def _sources():
    for folder, _, names in os.walk(os.path.join(REPO_ROOT, 'softlearning')):
        for name in names:
            if name.endswith('.py'):
                yield os.path.join(folder, name)


def test_no_other_module_touches_rays_private_code():
    found = []
    for path in _sources():
        if path.endswith(os.path.join('utils', 'ray_compat.py')):
            continue
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if PRIVATE.search(line):
                    found.append(f'{os.path.relpath(path, REPO_ROOT)}:'
                                 f'{number}: {line.strip()}')
    assert not found, '\n'.join(found)


def test_this_ray_has_every_private_attribute_softlearning_uses():
    ray_compat.check(ray_compat.PRIVATE + ray_compat.AUTOSCALER
                     + ray_compat.WANDB)


def test_a_moved_attribute_is_one_line_naming_the_ray_version():
    with pytest.raises(ray_compat.RayVersionError) as raised:
        ray_compat.check([('ray.tune.experiment.trial', 'Trial.gone',
                           'a test sees the message')])
    message = str(raised.value)
    assert '\n' not in message
    assert message.startswith(
        f'Ray {ray_compat.ray.__version__} has no '
        'ray.tune.experiment.trial.Trial.gone, which softlearning uses so '
        'that a test sees the message (written for Ray 2.60)')


def test_a_patch_is_undone_after_its_block():
    Trial = ray_compat.trial_class()
    reset = Trial.__dict__['reset']
    with ray_compat.patched(Trial, 'reset', lambda trial: None):
        assert Trial.__dict__['reset'] is not reset
    assert Trial.__dict__['reset'] is reset
