"""The examples page (docs/guide/examples.md) is generated from examples/:
every folder there has a description that shows how to run it, so a new
folder cannot be left off the page."""

import os
import sys

import pytest

from conftest import REPO_ROOT

sys.path.insert(0, os.path.join(REPO_ROOT, 'docs'))

import examples_page  # noqa: E402


def test_every_example_folder_is_described_with_a_command():
    folders = examples_page.folders()
    assert {'development', 'multi_goal', 'custom_environment', 'curriculum',
            'sweeps', 'slurm', 'benchmarks'} <= set(folders)
    page = examples_page.markdown('guide')
    for folder in folders:
        text, source = examples_page.description(folder)
        assert f'## {folder}\n\n{text}' in page
        assert source in ('__init__.py', 'README.md')
    # Every file is listed, a suite with the first sentence of its comment.
    assert '- `smoke.yaml`: A tiny suite: the benchmark machinery end to end' in page
    assert '- `ablations/sac_walker2d_per_step.yaml`: ' in page


def test_a_folder_without_a_description_is_an_error(tmp_path, monkeypatch):
    (tmp_path / 'new_example').mkdir()
    (tmp_path / 'new_example' / 'run.py').write_text('print(1)\n')
    (tmp_path / 'quiet').mkdir()
    (tmp_path / 'quiet' / 'README.md').write_text('# Quiet\n\nNo command.\n')
    monkeypatch.setattr(examples_page, 'EXAMPLES', str(tmp_path))
    with pytest.raises(examples_page.MissingDescription,
                       match='examples/new_example/ has no description'):
        examples_page.description('new_example')
    with pytest.raises(examples_page.MissingDescription,
                       match='shows no command'):
        examples_page.description('quiet')


def test_readme_links_to_the_documentation_are_relative_to_the_page():
    text = examples_page._readme_markdown(
        '# Title\n\nSee [sweeps](../../docs/guide/sweeps.md).\n', 'guide')
    assert text == 'See [sweeps](sweeps.md).'
    text = examples_page._readme_markdown(
        'See [pages](../../docs/benchmarks/index.md).', 'guide')
    assert text == 'See [pages](../benchmarks/index.md).'


def test_the_examples_page_is_generated():
    with open(os.path.join(REPO_ROOT, 'docs', 'guide', 'examples.md')) as f:
        assert '<!-- generated: examples -->' in f.read()
