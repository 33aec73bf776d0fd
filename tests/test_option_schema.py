"""The option schema (softlearning/experiments/config/option_schema.py): the one
definition of every option, which the command line's parser, the Python
API's keywords, sweep files and the run modes all read."""

import os
import re

import pytest

from conftest import REPO_ROOT, run_python
from softlearning import experiments
from softlearning.cli.options import get_parser
from softlearning.experiments.config import option_schema
from softlearning.experiments.config import option_types

SOURCE_FOLDERS = ('softlearning', 'examples', 'benchmarks')


def python_files(*folders):
    for folder in folders:
        for root, _, files in os.walk(os.path.join(REPO_ROOT, folder)):
            for name in files:
                if name.endswith('.py'):
                    yield os.path.join(root, name)


def test_the_parser_has_every_option_with_its_schema_default():
    schema = option_schema.schema()
    parsed = vars(get_parser().parse_args([]))
    assert list(parsed) == list(schema)
    for name, option in schema.items():
        assert parsed[name] == option.default, name


def test_an_examples_defaults_are_its_parsers_and_its_keywords():
    from examples import multi_goal
    assert get_parser(multi_goal).parse_args([]).algorithm == 'SQL'
    assert experiments.options('examples.multi_goal').algorithm == 'SQL'
    assert experiments.options('examples.development').algorithm == 'SAC'


def test_every_option_is_honoured_or_refused_in_each_mode():
    for option in option_schema.schema().values():
        assert set(option.refused) <= set(option_types.RUN_MODES)
        assert set(option.mode_defaults) <= set(option_types.RUN_MODES)
        assert bool(option.debug) != ('debug' in option.refused), option.name


def test_mode_defaults_fill_what_the_command_line_left_none(tmp_path):
    debug = experiments.experiment(run='debug', cpus=2,
                                   local_dir=str(tmp_path))
    local = experiments.experiment(run='local', cpus=2,
                                   local_dir=str(tmp_path))
    assert (debug.options.mode, local.options.mode) == ('debug', 'local')
    assert local.options.max_failures == 3 and local.options.verbose == 1


@pytest.mark.parametrize('keywords, message', [
    ({'scheduler': 'hyperband'},
     "scheduler='hyperband' is not one of fifo, asha, pbt."),
    ({'observation': 'rgb'},
     "observation='rgb' is not one of state, pixels."),
    ({'n_epoch': 3}, "Unknown option(s) 'n_epoch'. Valid choices: address, "),
])
def test_bad_keywords_name_the_value_and_the_choices(keywords, message):
    with pytest.raises(experiments.ExperimentError) as error:
        experiments.options(**keywords)
    assert message in str(error.value)
    assert '\n' not in str(error.value)


def test_an_examples_unknown_default_is_one_error(tmp_path, monkeypatch):
    (tmp_path / 'bad_example.py').write_text(
        'from softlearning.experiments.definition import *\n'
        "OPTION_DEFAULTS = {'algorithmm': 'SQL'}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(experiments.ExperimentError) as error:
        experiments.options('bad_example')
    assert ("bad_example.OPTION_DEFAULTS: unknown option(s) 'algorithmm'. "
            "Valid choices: " in str(error.value))


def test_no_argparse_privates():
    """What an option is comes from the schema, never from argparse's
    internals."""
    private = re.compile(r'parser\._actions|_option_string_actions|'
                         r'\.option_strings')
    users = [path for path in python_files(*SOURCE_FOLDERS)
             if private.search(open(path).read())]
    assert not users


def test_the_experiments_api_imports_neither_cli_nor_analysis(tmp_path):
    """Dependencies run one way: cli -> experiments."""
    script = (
        'import sys\n'
        'from softlearning import experiments\n'
        "print('ray' in sys.modules)\n"
        "experiments.experiment(algorithm='TD3', sweep='examples/sweeps/"
        f"pendulum_lr.json', cpus=2, local_dir='{tmp_path}')\n"
        "print(sorted(m for m in sys.modules if m.startswith(("
        "'softlearning.cli', 'softlearning.analysis', 'tensorflow'))))\n")
    result = run_python(script)
    assert result.returncode == 0, result.stderr[-3000:]
    # Importing the API imports no Ray: only what needs Tune does.
    assert result.stdout.strip().splitlines()[-2:] == ['False', '[]']


def test_the_guides_option_table_is_the_schemas():
    """The command-line guide's table of options names every option once, with the
    schema's choices, and no option the schema does not have."""
    with open(os.path.join(REPO_ROOT, 'docs', 'guide',
                           'command-line.md')) as f:
        rows = [line for line in f if line.startswith('| `--')]
    listed = {}
    for row in rows:
        for match in re.finditer(r'`(--[a-z-]+)(?: \{([^}]*)\})?',
                                 row.split('|')[1]):
            listed[match.group(1)] = match.group(2)
    flags = {option.flag: option
             for option in option_schema.schema().values()}
    assert sorted(listed) == sorted(flags)
    for flag, choices in listed.items():
        if choices:
            assert choices.split(',') == list(
                map(str, flags[flag].choices)), flag


def test_an_examples_own_parser_is_one_error(tmp_path, monkeypatch):
    (tmp_path / 'old_example.py').write_text(
        'from softlearning.experiments.definition import *\n'
        'def get_parser():\n'
        '    raise AssertionError\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(experiments.ExperimentError) as error:
        experiments.options('old_example')
    assert 'old_example defines get_parser(); ' in str(error.value)
    assert 'OPTION_DEFAULTS' in str(error.value)
