"""docs/developer/adding-an-algorithm.md, followed to the letter: a toy
algorithm added to a temporary copy of the package in the guide's four
places (its file, its registry entry with its preset, its page; its
calibration run is the one step not taken here, it trains for minutes), and
nothing else edited. Then ``softlearning --help``, ``--algorithm``, the
docs' generated tables and the shared conformance tests must all pick it
up."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from softlearning.algorithms import ALGORITHMS, described

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.slow

# Step 1: its file. An actor-critic without entropy: critics towards the
# target critics' values at the policy's next action, the policy up the
# smaller critic. Built from the skeleton's hooks only.
TOY_ALGORITHM = '''"""A toy actor-critic, for the guide's test."""

import tensorflow as tf

from .fused_updates import FusedUpdateAlgorithm


class Toy(FusedUpdateAlgorithm):

    def _update(self, batch):
        seeds = tf.cast(self._random_generator.make_seeds(2), tf.int32)
        next_actions, _ = self._policy.actions_and_log_probs(
            batch['next_observations'], seed=seeds[:, 0])
        Q_loss, Q_mean, observations = self._update_Qs_towards(
            batch, self._target_values(batch, next_actions))
        policy_loss = self._update_policy(batch, observations, seeds[:, 1])
        return {'Q_loss': Q_loss, 'Q_value-mean': Q_mean,
                'policy_loss': policy_loss}

    def _update_policy(self, batch, observations, seed):
        variables = self._policy.trainable_variables
        with tf.GradientTape() as tape:
            actions, _ = self._policy.actions_and_log_probs(
                observations, seed=seed, training=True)
            loss = -self._mean(self._min_Q(self._Qs, observations, actions),
                               batch)
        self._policy_optimizer.apply_gradients(
            zip(tape.gradient(loss, variables), variables))
        return loss
'''

# Step 2: its registry entry and the preset it names.
REGISTRY_ENTRY = """    'Toy': {'class': 'softlearning.algorithms.toy:Toy',
            'preset': f'{PRESETS}.toy'},
"""
TOY_PRESET = '''"""A toy actor-critic (the guide's test): twin critics and a Gaussian
policy that climbs the smaller one, without an entropy term."""

VARIANT = {
    'algorithm_params': {'class_name': 'Toy'},
    'policy_params': {'class_name': 'FeedforwardGaussianPolicy'},
    'Q_params': {'class_name': 'double_feedforward_Q_function'},
}

POLICIES = ('gaussian',)
'''

# Step 3: its page and its line in the site's navigation.
TOY_PAGE = """# Toy

A toy actor-critic.

<!-- generated: hyperparameters Toy -->
"""


def copy_of_the_repository(destination):
    """What a contributor's checkout holds (without virtualenvs, results
    and caches)."""
    ignore = shutil.ignore_patterns('__pycache__', '*.pyc', '.venv*',
                                    'ray_results', 'site', 'build',
                                    '*.egg-info', '.git')
    for name in ('softlearning', 'examples', 'tests', 'docs'):
        shutil.copytree(os.path.join(REPO_ROOT, name),
                        os.path.join(destination, name), ignore=ignore)
    for name in ('mkdocs.yml', 'pytest.ini', 'setup.py'):
        shutil.copy(os.path.join(REPO_ROOT, name), destination)


def add(path, text, before):
    """Inserts ``text`` in the file at ``path`` before the first match of
    the regular expression ``before``."""
    with open(path) as f:
        source = f.read()
    match = re.search(before, source, re.M)
    assert match, (path, before)
    with open(path, 'w') as f:
        f.write(source[:match.start()] + text + source[match.start():])


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


@pytest.fixture(scope='module')
def repository(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('contributor'))
    copy_of_the_repository(root)
    package = os.path.join(root, 'softlearning')
    write(os.path.join(package, 'algorithms', 'toy.py'), TOY_ALGORITHM)
    # The end of the ALGORITHMS dict: its last line is a lone '}'.
    add(os.path.join(package, 'algorithms', '__init__.py'), REGISTRY_ENTRY,
        r'^}\n\n# \{name')
    write(os.path.join(package, 'experiments', 'config', 'presets',
                       'toy.py'), TOY_PRESET)
    write(os.path.join(root, 'docs', 'algorithms', 'toy.md'), TOY_PAGE)
    add(os.path.join(root, 'mkdocs.yml'), '      - algorithms/toy.md\n',
        r'^      - algorithms/n-step\.md')
    return root


def run(repository, *command, timeout=600):
    """``command`` in the copy, its package first on the path."""
    environment = {**os.environ, 'PYTHONPATH': repository,
                   'RAY_USAGE_STATS_ENABLED': '0'}
    return subprocess.run(command, cwd=repository, env=environment,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_the_copy_is_what_runs(repository):
    result = run(repository, sys.executable, '-c',
                 'import softlearning; print(softlearning.__file__)')
    assert result.stdout.startswith(repository), result.stdout


def test_help_and_the_algorithm_option_name_it(repository):
    result = run(repository, sys.executable, '-m', 'softlearning.cli',
                 '--help')
    assert result.returncode == 0, result.stderr
    # The toy comes after the registry's last entry.
    last = described(list(ALGORITHMS)[-1])
    assert f'{last}, Toy' in ' '.join(result.stdout.split())
    result = run(repository, sys.executable, '-m', 'softlearning.cli',
                 'show-config', 'examples.development', '--algorithm', 'Toy',
                 '--domain', 'Pendulum', '--task', 'v1')
    assert result.returncode == 0, result.stderr
    assert "'class_name': 'Toy'" in result.stdout or (
        'class_name: Toy' in result.stdout), result.stdout[-2000:]


def test_the_docs_tables_have_its_row_and_its_settings(repository):
    script = ("import sys; sys.path[:0] = ['docs']; "
              "import generated_tables as g; "
              "print(g.algorithms_without_pages('docs')); "
              "print(g.algorithms_table('algorithms')); "
              "print(g.hyperparameters('algorithms', 'Toy'))")
    result = run(repository, sys.executable, '-c', script)
    assert result.returncode == 0, result.stderr
    missing, *tables = result.stdout.splitlines()
    assert missing == '[]'
    text = '\n'.join(tables)
    assert re.search(r'^\| \[Toy\]\(toy\.md\) \| `--algorithm Toy` \| '
                     r'`Toy` \(softlearning/algorithms/toy\.py\)', text,
                     re.M), text
    assert '--algorithm Toy --universe' in text
    assert 'algorithm_params.config.discount' in text


def test_the_conformance_tests_cover_it(repository):
    result = run(repository, sys.executable, '-m', 'pytest', '-q',
                 '-p', 'no:cacheprovider', '-n', '0', '-k', 'Toy',
                 'tests/test_registry_conformance.py')
    summary = result.stdout.strip().splitlines()[-1:]
    assert result.returncode == 0, result.stdout[-3000:]
    passed = re.search(r'(\d+) passed', summary[0])
    assert passed and int(passed.group(1)) >= 4, summary
