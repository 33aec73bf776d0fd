"""Every representative command line resolves as the golden files in
tests/golden/variants/ record (tests/variant_dumps.py writes them): the
variant spec, the resolved options, the trial resources and the Tune
settings, and the one-line errors of bad input."""

import pytest

import variant_dumps


@pytest.fixture(scope='module')
def current():
    return variant_dumps.dumps()


@pytest.fixture(scope='module')
def golden():
    return variant_dumps.golden()


def test_every_golden_file_has_a_command_line(current, golden):
    assert sorted(current) == sorted(golden)


@pytest.mark.parametrize('name', sorted({
    **variant_dumps.COMMAND_LINES, **variant_dumps.API_CALLS,
    **variant_dumps.ERROR_LINES}))
def test_dump_is_the_golden_one(name, current, golden):
    assert current[name] == golden[name]
