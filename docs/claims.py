"""Figures in the README's and the docs' prose come from committed results.

A benchmark figure written by hand drifts from the runs it came from, and a
claim stronger than the measurement reads as the measurement. Every figure
of the kind a benchmark produces (a ratio such as ``1.24x``, a rate in
steps/s, a score such as ``0.765``, a return such as ``7,689``) in
README.md and docs/**/*.md, outside code blocks and generated tables, must
be one of the figures the committed results print:

- the generated tables of the docs (generated_tables.GENERATORS, as the
  pages ask for them), which read benchmarks/results/;
- the committed reports (``benchmarks/results/*/report/report.md`` and
  their CSV files) and measurements (``benchmarks/results/speed``);
- the learning tests' calibration (``tests/calibration/``);
- published figures quoted for comparison, each with its source
  (``benchmarks/results/published.csv``).

Settings are not figures: a value written in a run's params.json (0.99,
256, 100,000 steps) counts as committed, and round thousands (budgets,
step counts) are left out. ``python docs/claims.py`` lists the figures
that are in none of them, page by page.
"""

import csv
import functools
import glob
import json
import os
import re
import shlex
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
RESULTS = os.path.join(ROOT, 'benchmarks', 'results')
PUBLISHED = os.path.join(RESULTS, 'published.csv')
MARKER = '<!-- generated:'

# A figure: a ratio (1.24x), a rate (240 steps/s), a number with a decimal
# point (0.765, 178.3) or with thousands separators (7,689).
FIGURE = re.compile(
    r'(?<![\w.,/=+-])(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)'
    r'(x\b| ?(?:env )?steps/s\b)?(?![\w/]|\.\d|,\d)')
NUMBER = re.compile(r'-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?')
# A version, not a figure: "Python 3.11", "Ray 2.60", "arXiv 1812.05905".
VERSION_BEFORE = re.compile(
    r'(?:Python|Ray|TensorFlow|Probability|Keras|tf-keras|SBX|SB3|JAX|'
    r'PyTorch|gymnasium|MuJoCo|mujoco|dm_control|CUDA|pip|NumPy|arXiv|'
    r'version|versions|v)[ :]?$', re.I)
END_GENERATED = '<!-- end generated -->'


def _forms(value):
    """The ways a report or a page may print ``value``."""
    if value != value or value in (float('inf'), float('-inf')):
        return set()
    forms = {f'{value:.3f}', f'{value:.2f}', f'{value:.1f}',
             f'{value:,.0f}', f'{value:.0f}', f'{value:,.1f}',
             f'{value:,.2f}'}
    return {form.replace('-0', '0') if float(form.replace(',', '')) == 0
            else form for form in forms}


def _numbers_of_text(text):
    """The numbers ``text`` prints, each decimal with its rounding to a
    whole number too (a table's 5,503.9 is the prose's 5,504)."""
    found = set()
    for token in NUMBER.findall(text):
        found.add(token)
        if '.' in token:
            value = float(token.replace(',', ''))
            found |= {f'{value:,.0f}', f'{value:.0f}'}
    return found


def _numbers_of_tree(tree):
    found = set()
    if isinstance(tree, dict):
        for value in tree.values():
            found |= _numbers_of_tree(value)
    elif isinstance(tree, (list, tuple)):
        for value in tree:
            found |= _numbers_of_tree(value)
    elif isinstance(tree, bool):
        pass
    elif isinstance(tree, (int, float)):
        found |= _forms(float(tree))
    elif isinstance(tree, str):
        try:
            found |= _forms(float(tree))
        except ValueError:
            found |= _numbers_of_text(tree)
    return found


def _numbers_of_csv(path):
    found = set()
    with open(path) as f:
        for row in csv.reader(f):
            for cell in row:
                found |= _numbers_of_tree(cell)
    return found


def _generated_tables():
    """Every generated table the pages ask for, rendered."""
    sys.path[:0] = [ROOT, DOCS]
    import generated_tables
    text = []
    for page in glob.glob(os.path.join(DOCS, '**', '*.md'), recursive=True):
        here = os.path.dirname(os.path.relpath(page, DOCS))
        with open(page) as f:
            for line in f:
                stripped = line.strip()
                if stripped.startswith(MARKER) and stripped.endswith('-->'):
                    words = shlex.split(stripped[len(MARKER):-3])
                    if words[0] in ('options', 'hyperparameters', 'errors',
                                    'examples', 'algorithms',
                                    'domain-overrides'):
                        continue  # settings and text, not results
                    positional = [w for w in words[1:] if '=' not in w]
                    keywords = dict(w.split('=', 1) for w in words[1:]
                                    if '=' in w)
                    text.append(generated_tables.GENERATORS[words[0]](
                        here, *positional, **keywords))
    return '\n'.join(text)


@functools.lru_cache(maxsize=None)
def committed_figures():
    """Every figure the committed results print (see the module's
    docstring), as strings."""
    found = _numbers_of_text(_generated_tables())
    for path in glob.glob(os.path.join(RESULTS, '*', 'report', '*')):
        if path.endswith('.csv'):
            found |= _numbers_of_csv(path)
        elif path.endswith('.md'):
            with open(path) as f:
                found |= _numbers_of_text(f.read())
    for pattern in ('speed/*.jsonl', '*/*/*/params.json',
                    '../../tests/calibration/*.json'):
        for path in glob.glob(os.path.join(RESULTS, pattern)):
            with open(path) as f:
                records = ([json.loads(line) for line in f if line.strip()]
                           if path.endswith('.jsonl') else [json.load(f)])
            found |= _numbers_of_tree(records)
    if os.path.exists(PUBLISHED):
        with open(PUBLISHED) as f:
            for row in csv.DictReader(f):
                found |= _numbers_of_text(row['figure'])
    return frozenset(found)


def prose_figures(text):
    """(line number, figure as written) of ``text``'s figures outside code
    blocks and generated tables; round thousands (settings) left out."""
    figures, in_code, in_generated, previous = [], False, False, ''
    for number, line in enumerate(text.splitlines(), 1):
        before_line, previous = previous, line
        stripped = line.strip()
        if stripped.startswith('```'):
            in_code = not in_code
            continue
        if stripped.startswith(MARKER) and not in_code:
            # A generated block (the README's: up to its end marker).
            in_generated = END_GENERATED in text.split(line, 1)[1]
            continue
        if stripped == END_GENERATED:
            in_generated = False
            continue
        if in_code or in_generated or stripped.startswith('<!--'):
            continue
        # Inline code is a setting or a command, not a claim; both ends of
        # a range (1,169-2,210) are figures.
        line = re.sub(r'`[^`]*`', '', line)
        line = re.sub(r'(?<=\d)[-–](?=\d)', ' – ', line)
        for match in FIGURE.finditer(line):
            token, unit = match.group(1), match.group(2)
            context = (before_line + ' ' + line[:match.start()]
                       if not line[:match.start()].strip()
                       else line[:match.start()])
            if VERSION_BEFORE.search(context.rstrip('( ')) or (
                    line[match.end():].startswith('.*')):
                continue
            if not unit and '.' not in token and ',' not in token:
                continue  # a plain integer: a count or a setting
            value = float(token.replace(',', ''))
            if not unit and '.' not in token and value % 1000 == 0:
                continue  # round thousands: a step count or budget
            figures.append((number, token + (unit or '')))
    return figures


def unsourced(path):
    """(line number, figure) of a page's figures not in the committed
    results."""
    known = committed_figures()
    with open(path) as f:
        text = f.read()
    return [(number, figure) for number, figure in prose_figures(text)
            if NUMBER.match(figure).group(0) not in known]


def pages():
    return [os.path.join(ROOT, 'README.md')] + sorted(
        glob.glob(os.path.join(DOCS, '**', '*.md'), recursive=True))


if __name__ == '__main__':
    total = 0
    for page in pages():
        for number, figure in unsourced(page):
            print(f'{os.path.relpath(page, ROOT)}:{number}: {figure}')
            total += 1
    print(f'{total} figures not in the committed results')
