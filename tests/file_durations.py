"""How long each test file took in a whole run, so that the longest start
first: pytest -n 2 --dist loadfile hands out whole files in collection
order, and a long file handed out last runs on its own while the other
worker idles (REDQ's learning test once ran its last three minutes alone).
conftest.py sorts the collected files by tests/file_durations.json; a file
it does not list goes after those it does, in pytest's order.

Record the table again from a whole run's per-test times:

    python -m pytest --durations=0 > run.log; python tests/file_durations.py run.log
"""

import collections
import json
import os
import re
import sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     'file_durations.json')
# pytest's --durations lines: "12.34s call     tests/test_x.py::test_y[...]"
LINE = re.compile(r'^(\d+(?:\.\d+)?)s (?:setup|call|teardown)\s+([^:\s]+)::')


def load(path=TABLE):
    """{file (as pytest names it, e.g. tests/test_cli.py): seconds}."""
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def from_log(lines):
    seconds = collections.Counter()
    for line in lines:
        match = LINE.match(line)
        if match:
            seconds[match.group(2)] += float(match.group(1))
    return {name: round(total, 1) for name, total in seconds.most_common()}


def longest_first(items, durations):
    """``items`` (pytest's collected tests) with the longest files first;
    a file's tests keep their order, and unlisted files theirs."""
    return sorted(items, key=lambda item: -durations.get(
        item.nodeid.split('::', 1)[0], 0))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    with open(sys.argv[1]) as f:
        durations = from_log(f)
    if not durations:
        raise SystemExit(f'{sys.argv[1]}: no --durations lines in it '
                         '(run pytest with --durations=0)')
    with open(TABLE, 'w') as f:
        json.dump(durations, f, indent=1)
        f.write('\n')
    print(f'{len(durations)} files, {sum(durations.values()):.0f} s: {TABLE}')


if __name__ == '__main__':
    main()
