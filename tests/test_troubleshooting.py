"""The troubleshooting page's errors (docs/error_catalogue.py): each
entry's command, run as the ``softlearning`` command runs it, ends with
exactly the one line catalogued, exit status 2, before TensorFlow is
imported or Ray started. All of them run in one process (a bad input is
refused in well under a second once softlearning is imported)."""

import json
import os
import subprocess
import sys

from conftest import REPO_ROOT

DOCS = os.path.join(REPO_ROOT, 'docs')
sys.path.insert(0, DOCS)

import error_catalogue  # noqa: E402


def test_every_catalogued_command_ends_with_its_message(tmp_path):
    # A home of its own (no W&B login, no Ray cluster address, no MLflow
    # settings of the user's); no tracker or Ray settings inherited.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(('WANDB_', 'MLFLOW_', 'RAY_ADDRESS'))}
    env.update(HOME=str(tmp_path), PYTHONPATH=REPO_ROOT,
               RAY_USAGE_STATS_ENABLED='0')
    result = subprocess.run(
        [sys.executable, os.path.join(DOCS, 'error_catalogue.py'), '--json'],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout.splitlines()[-1])
    assert len(outcomes) == len(error_catalogue.ENTRIES)
    failures = [f"{outcome['command']}\n    " + '\n    '.join(outcome['problems'])
                for outcome in outcomes if outcome['problems']]
    assert not failures, '\n'.join(failures)


def test_the_catalogue_is_complete_and_well_formed():
    entries = error_catalogue.ENTRIES
    titles = [entry.title for entry in entries]
    assert len(set(titles)) == len(titles), 'titles are the page\'s anchors'
    for entry in entries:
        assert entry.group in error_catalogue.GROUPS, entry.title
        assert entry.message and entry.cause and entry.fix, entry.title
        assert entry.command.startswith('softlearning '), entry.title
    assert {entry.group for entry in entries} == set(error_catalogue.GROUPS)
    page = error_catalogue.markdown()
    for entry in entries:
        assert f'$ {entry.command}\n{entry.prefix}{entry.message}' in page


def test_the_troubleshooting_page_is_generated_from_the_catalogue():
    with open(os.path.join(DOCS, 'guide', 'troubleshooting.md')) as f:
        assert '<!-- generated: errors -->' in f.read()
