"""The documentation site (mkdocs.yml, docs/): it builds with
``mkdocs build --strict`` (every link, anchor and API reference resolves;
the generated tables come from the registry, presets, options parser and
committed reports), and every registered algorithm has its page, its row
in the generated table and in the README's."""

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO_ROOT
from softlearning.algorithms import ALGORITHMS

DOCS = os.path.join(REPO_ROOT, 'docs')
sys.path.insert(0, DOCS)

import generated_tables  # noqa: E402


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    """The site, built as a user builds it (mkdocs' own command line)."""
    site_dir = tmp_path_factory.mktemp('site')
    result = subprocess.run(
        [sys.executable, '-m', 'mkdocs', 'build', '--strict',
         '--site-dir', str(site_dir)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, 'NO_MKDOCS_2_WARNING': '1',
             'PYTHONPATH': REPO_ROOT})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return site_dir


def _page(site_dir, path):
    """The built HTML of docs/<path> (use_directory_urls: x.md -> x/)."""
    stem = path[:-len('.md')]
    html = (os.path.join(site_dir, 'index.html') if stem == 'index' else
            os.path.join(site_dir, stem.replace('/index', ''), 'index.html'))
    with open(html) as f:
        return f.read()


def test_every_registered_algorithm_has_a_page_with_its_settings(site):
    assert not generated_tables.algorithms_without_pages(DOCS)
    for name in ALGORITHMS:
        html = _page(site, generated_tables.algorithm_page(name))
        # Its hyperparameter table, generated from its preset.
        assert f'--algorithm {name} --universe' in html, name
        assert 'algorithm_params.config.discount' in html, name


def test_the_algorithms_table_lists_the_registry(site):
    html = _page(site, 'algorithms/index.md')
    rows = re.findall(r'<code>--algorithm (\w+)</code>', html)
    assert rows == list(ALGORITHMS)


def test_generated_tables_are_filled_in(site):
    for path in ('benchmarks/mujoco-100k.md', 'reference/options.md',
                 'developer/tests.md', 'algorithms/tqc.md'):
        assert '<!-- generated:' not in _page(site, path), path
    options = _page(site, 'reference/options.md')
    assert '--checkpoint-frequency' in options and '--algorithm' in options
    results = _page(site, 'benchmarks/mujoco-100k.md')
    # The committed report's IQM of softlearning's SAC, and a seed's return.
    assert '0.249 [0.209, 0.298]' in results
    assert 'softlearning SAC' in results
    # The API reference was read from the docstrings.
    assert 'load_trained_policy' in _page(site, 'reference/experiments.md')
    # The report's figures are served beside the pages.
    assert os.path.exists(os.path.join(site, 'results', 'mujoco_100k',
                                       'aggregate_metrics.png'))


def test_the_readme_links_the_algorithms_table_generated_from_the_registry():
    """The README points at the generated table rather than keeping a copy
    (a new algorithm is its registry entry, not a README row)."""
    with open(os.path.join(REPO_ROOT, 'README.md')) as f:
        readme = f.read()
    assert '[algorithms table](docs/algorithms/index.md)' in readme


def test_the_readmes_results_table_is_the_committed_reports():
    with open(os.path.join(REPO_ROOT, 'README.md')) as f:
        readme = f.read()
    assert generated_tables.aggregates(
        '', 'mujoco_100k', metrics='IQM,mean,optimality gap') in readme


def test_the_readmes_python_example_is_the_guides():
    """test_api.py runs the README's; the guide must show the same."""
    def first_python_block(path):
        with open(path) as f:
            return re.search(r'```python\n(.*?)```', f.read(), re.S).group(1)
    readme = os.path.join(REPO_ROOT, 'README.md')
    with open(readme) as f:
        section = f.read().split('## Python API', 1)[1]
    assert re.search(r'```python\n(.*?)```', section, re.S).group(1) == (
        first_python_block(os.path.join(DOCS, 'guide', 'python-api.md')))


def test_the_readme_stays_short():
    with open(os.path.join(REPO_ROOT, 'README.md')) as f:
        assert len(f.read().splitlines()) < 250


def test_final_returns_names_the_seeds_of_a_cell_short_of_some(monkeypatch):
    from softlearning.analysis.benchmark_runs import Agent, Run

    def run(algorithm, task, seed, final_return):
        return Run(Agent('softlearning', algorithm), task, seed, path='',
                   length=100000, step=100000, final_return=final_return,
                   steps=None, returns=None)

    # SAC has every seed on Hopper; SimbaV2 is still missing seed 1.
    runs = [run('SAC', 'gym/Hopper/v5', 0, 900.0), run('SAC', 'gym/Hopper/v5', 1, 1100.0),
            run('SimbaV2', 'gym/Hopper/v5', 0, 2000.0)]
    monkeypatch.setattr(generated_tables, '_runs', lambda suite: runs)
    table = generated_tables.final_returns(DOCS, 'frontier_100k')
    sac, simbav2 = re.search(r'\| Hopper-v5 \| (.*?) \| (.*?) \|', table).groups()
    assert sac == '1,000 ± 100 (900, 1,100)'
    assert simbav2 == '2,000 ± 0 (seed 0: 2,000)'


def test_override_tables_write_settings_as_config_takes_them():
    # JSON, as --config KEY=VALUE parses it: null, not Python's None.
    table = generated_tables.domain_overrides(DOCS, 'CrossQ')
    assert ('| `gym/Humanoid` | `Q_params.config.batch_renorm` | '
            '`{"warmup_steps": null}` |') in table
    assert 'None' not in table


def test_critics_trace_lines_up_runs_by_step(tmp_path, monkeypatch):
    """One row per step any run reached, each run's five figures in its own
    columns (blank where it has no row), from ``start`` on; a peer's run,
    without the mean Q value, has it blank."""
    import frontier_figures
    ours = ('total_timestep,evaluation/return-mean,Q_value-mean,Q_loss,'
            'policy_loss,alpha')
    runs = {'a': [ours, '10000,5.0,1.5,0.25,-1.0,0.01',
                  '20000,50.0,21.4,540.4,-20.1,0.0023'],
            'b': [ours, '20000,7.5,19.0,0.07,-18.5,0.00071',
                  '30000,110.1,19.0,0.07,-18.9,0.00071'],
            'c': ['total_timestep,evaluation/return-mean,Q_loss,policy_loss,'
                  'alpha', '30000,45.0,0.31,-12.0,0.00048']}
    for name, rows in runs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / 'progress.csv').write_text('\n'.join(rows) + '\n')
    monkeypatch.setattr(frontier_figures, 'RESULTS', str(tmp_path))
    text = frontier_figures.critics_trace('', 'a:first,b:second,c:peer',
                                          start='20000')
    lines = text.splitlines()
    assert lines[2].startswith('| steps | first: evaluation | first: mean Q')
    assert lines[4:] == [
        '| 20k | 50.0 | 21.4 | 540.4 | -20.1 | 0.0023 | 7.50 | 19.0 | 0.07 | '
        '-18.5 | 0.00071 |  |  |  |  |  |',
        '| 30k |  |  |  |  |  | 110.1 | 19.0 | 0.07 | -18.9 | 0.00071 | '
        '45.0 |  | 0.31 | -12.0 | 0.00048 |']


def test_success_by_step_shows_unfinished_runs_every_n_steps(tmp_path,
                                                              monkeypatch):
    """An unfinished run's curve is shown as far as it got (a blank cell
    after), and ``every`` keeps the steps that are its multiples."""
    import success_figures
    progress = {'done': [(5000, 0.1), (10000, 0.3), (15000, 0.5),
                         (20000, 0.9)],
                'partial': [(5000, 0.0), (10000, 0.2)]}
    for name, rows in progress.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / 'progress.csv').write_text('\n'.join(
            ['total_timestep,evaluation/success-rate',
             *(f'{step},{rate}' for step, rate in rows)]) + '\n')
    monkeypatch.setattr(success_figures, '_all_trials', lambda suite: [
        (f'{name} SAC', 'gym/FetchPush/v4', str(tmp_path / name))
        for name in progress])
    lines = success_figures.success_by_step('', 'any', every='10000'
                                            ).splitlines()
    assert lines[0].startswith('Evaluation success rate by step, every '
                               '10,000 steps')
    assert lines[4:6] == ['| 10,000 | 0.30 (0.3-0.3) | 0.20 (0.2-0.2) |',
                          '| 20,000 | 0.90 (0.9-0.9) |  |']
