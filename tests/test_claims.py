"""The README's and the docs' claims say what the committed results say:
every benchmark figure in their prose is one the committed results print
(docs/claims.py), and the README's generated blocks are up to date with
them (docs/result_sentences.py)."""

import glob
import os
import sys

import pytest

from conftest import REPO_ROOT

DOCS = os.path.join(REPO_ROOT, 'docs')
sys.path[:0] = [DOCS]

import claims  # noqa: E402  (docs/)
import result_sentences  # noqa: E402


@pytest.mark.parametrize('page', claims.pages(),
                         ids=lambda page: os.path.relpath(page, REPO_ROOT))
def test_every_figure_in_prose_is_in_a_committed_result(page):
    missing = claims.unsourced(page)
    assert not missing, (
        f"{os.path.relpath(page, REPO_ROOT)}: figures in none of the "
        "committed results (generate them from benchmarks/results/, quote "
        "a published one in benchmarks/results/published.csv with its "
        "source, or remove them): "
        + ', '.join(f'line {line}: {figure}' for line, figure in missing))


def test_the_check_finds_a_figure_that_no_result_prints():
    text = ('Ours is 1.87x SBX\'s at 211.4 steps/s, and its IQM of '
            '0.765 reaches 7,431 on Hopper.\n'
            '```\nlogs: 9.99x 1,234.5\n```\n'
            'A setting: `discount=0.9871`, 100,000 steps, Python 3.11.\n')
    figures = [figure for _, figure in claims.prose_figures(text)]
    assert figures == ['1.87x', '211.4 steps/s', '0.765', '7,431']
    known = claims.committed_figures()
    # The frontier report's IQM of our CrossQ is committed; the rest is not.
    assert '0.765' in known
    assert not {'1.87', '211.4', '7,431'} & known


def test_a_printed_decimal_sources_its_whole_number_rounding():
    numbers = claims._numbers_of_text('| 100k | 5,503.9 | 0.031 |')
    assert {'5,503.9', '5,504', '5504', '0.031'} <= numbers
    assert not {'5,503', '5,505'} & numbers


def test_a_readme_block_is_left_to_its_generator():
    text = ('<!-- generated: headline -->\nIts IQM is 9.876.\n'
            '<!-- end generated -->\nBut 5.432 here is prose.\n')
    assert [figure for _, figure in claims.prose_figures(text)] == ['5.432']


def test_the_readmes_generated_blocks_are_up_to_date():
    with open(result_sentences.README) as f:
        readme = f.read()
    names = [name for name, _, _ in result_sentences.readme_blocks(readme)]
    assert 'headline' in names
    assert result_sentences.render_readme(readme) == readme, (
        'README.md is behind the committed results: run '
        'python docs/result_sentences.py')


@pytest.mark.parametrize('ours, theirs, word', [
    ((0.765, 0.703, 0.832), (0.709, 0.599, 0.777), 'level with'),
    ((0.934, 0.819, 0.959), (0.283, 0.202, 0.425), 'above'),
    ((0.283, 0.202, 0.425), (0.934, 0.819, 0.959), 'below'),
])
def test_overlapping_intervals_are_level(ours, theirs, word):
    as_figure = lambda v: dict(zip(('value', 'low', 'high'), v))  # noqa
    assert result_sentences.compared(as_figure(ours),
                                     as_figure(theirs)) == word


def test_one_agents_iqm_against_anothers_is_read_from_the_report():
    """The sentence's word, intervals and steps are the committed report's
    and runs' (a suite holding two of our agents: only FastSAC's steps)."""
    suite = 'per_hour_fast_scored'
    sentence = result_sentences.iqm_against(
        '', suite, 'softlearning FastSAC', 'softlearning CrossQ')
    ours = result_sentences._iqm(suite, 'softlearning FastSAC')
    theirs = result_sentences._iqm(suite, 'softlearning CrossQ')
    assert sentence.startswith(
        f"softlearning FastSAC's IQM, {result_sentences._interval(ours)}, is "
        f"{result_sentences.compared(ours, theirs)} softlearning CrossQ's "
        f"({result_sentences._interval(theirs)})")
    steps = result_sentences._steps(suite, 'softlearning FastSAC')
    assert f'{min(steps):,}-{max(steps):,} steps' in sentence
    # FastSAC's runs only: the last step of each FastSAC run's progress.csv.
    import pandas as pd
    runs = glob.glob(os.path.join(REPO_ROOT, 'benchmarks', 'results', suite,
                                  'softlearning', 'FastSAC-*', 'progress.csv'))
    assert len(runs) == 9
    assert sorted(steps) == sorted(
        pd.read_csv(run)['total_timestep'].iloc[-1] for run in runs)
