"""MkDocs hooks: the tables that must not drift from the code and the
committed results are written at build time, from

- the algorithm registry (``softlearning.algorithms.ALGORITHMS``) and the
  presets (``softlearning.experiments.config.presets``): the list of algorithms and
  each one's hyperparameters, as ``softlearning.experiments.variant_spec``
  resolves them (no TensorFlow is imported);
- the options parser (``softlearning.cli.options.get_parser``);
- the benchmark reports and runs under ``benchmarks/results/``;
- the learning tests' calibration (``tests/calibration/learning.json``).

A page asks for one with a line of its own::

    <!-- generated: hyperparameters TQC -->

(the name, then shell-style arguments; see ``GENERATORS``). An unknown
name, or a registered algorithm without a page, is a build error.
"""

import logging
import os
import shlex
import sys

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

# docs/ and the repository root, so the hooks read this checkout's code.
DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
sys.path[:0] = [ROOT, DOCS]

import generated_tables  # noqa: E402  (after the path above)

log = logging.getLogger('mkdocs.hooks.softlearning')

MARKER = '<!-- generated:'
RESULTS = os.path.join(ROOT, 'benchmarks', 'results')


def on_files(files, config):
    """The committed reports' figures, served as results/<suite>/<name>."""
    for suite in sorted(os.listdir(RESULTS)):
        report = os.path.join(RESULTS, suite, 'report')
        if not os.path.isdir(report):
            continue
        for name in sorted(os.listdir(report)):
            if name.endswith('.png'):
                files.append(File.generated(
                    config, f'results/{suite}/{name}',
                    abs_src_path=os.path.join(report, name)))
    return files


def on_page_markdown(markdown, page, config, files):
    lines = []
    for line in markdown.split('\n'):
        stripped = line.strip()
        if stripped.startswith(MARKER) and stripped.endswith('-->'):
            words = shlex.split(stripped[len(MARKER):-3])
            lines.append(_generate(words, page))
        else:
            lines.append(line)
    return '\n'.join(lines)


def on_post_build(config):
    """Every registered algorithm has a page (``ALGORITHM_PAGES``)."""
    missing = generated_tables.algorithms_without_pages(config['docs_dir'])
    for name, path in missing:
        log.warning(f"Algorithm '{name}' is registered but has no page: "
                    f"write docs/{path} (and add it to mkdocs.yml's nav).")


def _generate(words, page):
    if not words or words[0] not in generated_tables.GENERATORS:
        raise PluginError(
            f"{page.file.src_uri}: unknown generated table {words[:1]}; "
            f"valid: {', '.join(sorted(generated_tables.GENERATORS))}")
    name, arguments = words[0], words[1:]
    positional = [a for a in arguments if '=' not in a]
    keywords = dict(a.split('=', 1) for a in arguments if '=' in a)
    try:
        here = os.path.dirname(page.file.src_uri)  # for relative links
        return generated_tables.GENERATORS[name](here, *positional, **keywords)
    except Exception as error:  # the page and the marker, then the cause
        raise PluginError(f'{page.file.src_uri}: <!-- generated: '
                          f'{" ".join(words)} --> failed: {error!r}') from error
