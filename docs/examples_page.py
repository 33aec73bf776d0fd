"""The examples page (docs/guide/examples.md, ``<!-- generated: examples
-->``): each folder of examples/, described by its own words (the docstring
of its ``__init__.py``, else its README.md), with the commands that run
it, and its files, each with the first sentence of its leading comment or
docstring. A folder without a description is a build error, so a new
example cannot be left off the page."""

import ast
import os
import posixpath
import re
import textwrap

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
EXAMPLES = os.path.join(ROOT, 'examples')

# A line that runs something (what a folder's description must show).
COMMAND = re.compile(r'^\s*(\$ )?(softlearning|python|sbatch|source|bash|'
                     r'mkdocs|docker)\b')
# Full stops that do not end a sentence.
ABBREVIATIONS = (' al', 'e.g', 'i.e', 'etc', 'cf')
SKIPPED = ('__pycache__', '__init__.py', 'README.md')


class MissingDescription(ValueError):
    pass


def folders():
    """The example folders, by name."""
    return sorted(name for name in os.listdir(EXAMPLES)
                  if os.path.isdir(os.path.join(EXAMPLES, name))
                  and name not in SKIPPED)


def _docstring(path):
    with open(path) as f:
        return ast.get_docstring(ast.parse(f.read()))


def _leading_comment(path):
    """The first block of ``#`` comment lines (after a ``#!`` line)."""
    lines = []
    with open(path) as f:
        for line in f:
            if line.startswith('#!'):
                continue
            if not line.startswith('#'):
                break
            text = line[1:].strip()
            if not text and lines:
                break
            if text:
                lines.append(text)
    return ' '.join(lines) or None


def _first_sentence(text):
    """``text`` up to its first full stop outside parentheses."""
    text = ' '.join(text.split())
    depth = 0
    for index, char in enumerate(text):
        depth += char == '('
        depth -= char == ')'
        if char == '.' and depth == 0 and (
                index + 1 == len(text) or text[index + 1] == ' ') and not (
                text[:index].endswith(ABBREVIATIONS)):
            return text[:index + 1]
    return text[:-1] + '.' if text.endswith(':') else text


def file_summary(path):
    """The first sentence of a file's docstring or leading comment, or
    None."""
    if path.endswith('.py'):
        text = _docstring(path)
    elif path.endswith(('.yaml', '.yml', '.sh')):
        text = _leading_comment(path)
    else:
        text = None
    return _first_sentence(text.split('\n\n')[0]) if text else None


def description(folder, here='guide'):
    """(the folder's description as Markdown, where it comes from); raises
    MissingDescription if it has none or it shows no command. ``here``:
    the folder of the page under docs/ (a README's links to the
    documentation are made relative to it)."""
    path = os.path.join(EXAMPLES, folder)
    init, readme = (os.path.join(path, '__init__.py'),
                    os.path.join(path, 'README.md'))
    if os.path.isfile(init) and _docstring(init):
        text, source = _docstring_markdown(_docstring(init)), '__init__.py'
    elif os.path.isfile(readme):
        with open(readme) as f:
            text, source = _readme_markdown(f.read(), here), 'README.md'
    else:
        raise MissingDescription(
            f'examples/{folder}/ has no description: give its __init__.py a '
            'docstring, or write its README.md (what it shows, the command '
            'that runs it).')
    if not any(COMMAND.match(line) for line in text.splitlines()):
        raise MissingDescription(
            f'examples/{folder}/{source} shows no command that runs it.')
    return text, source


def _docstring_markdown(docstring):
    """A docstring as Markdown: its indented blocks and command paragraphs
    as shell blocks, the rest as text (reST's ``code`` is Markdown's
    too)."""
    parts = []
    for paragraph in re.split(r'\n\s*\n', docstring.strip('\n')):
        lines = paragraph.split('\n')
        if all(line.startswith('    ') for line in lines) or COMMAND.match(lines[0]):
            parts.append('```sh\n' + textwrap.dedent(paragraph) + '\n```')
        else:
            parts.append(paragraph)
    return '\n\n'.join(parts)


def _readme_markdown(text, here):
    """A folder's README.md under the page's heading: its own title left
    out, its headings two levels down, its links to the documentation
    (``../../docs/...``) relative to the page."""
    text = re.sub(r'\]\(\.\./\.\./docs/([^)]*)\)',
                  lambda match: '](' + posixpath.relpath(
                      match.group(1), here or '.') + ')', text)
    lines = text.strip('\n').split('\n')
    if lines and lines[0].startswith('# '):
        lines = lines[1:]
    return '\n'.join('##' + line if line.startswith('#') else line
                     for line in lines).strip('\n')


def _files(folder):
    """(path relative to the folder, summary or None) of its files."""
    found = []
    top = os.path.join(EXAMPLES, folder)
    for here, dirs, names in os.walk(top):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED)
        for name in sorted(names):
            if name in SKIPPED or name.endswith('.pyc'):
                continue
            path = os.path.join(here, name)
            found.append((os.path.relpath(path, top), file_summary(path)))
    return found


def markdown(here=''):
    """Every example folder: its description, then its files."""
    lines = []
    for folder in folders():
        text, _ = description(folder, here)
        lines += [f'## {folder}', '', text, '']
        files = _files(folder)
        if files:
            lines += [f'Files in `examples/{folder}/`:', '']
            for path, summary in files:
                lines.append(f'- `{path}`' + (f': {summary}' if summary else ''))
            lines.append('')
    return '\n'.join(lines)
