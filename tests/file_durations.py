"""The order in which test files start. pytest -n 2 --dist loadfile hands
out whole files in collection order; conftest.py sorts the collected files
by ``start_order``:

1. files with learning tests (``-m learning``): each of their tests keeps
   both CPUs busy (two trainings at once) for a minute or more;
2. files with timing-sensitive tests (``-m timing``): they mostly wait on
   processes (Ray nodes starting, checkpoints appearing), so they share
   the CPUs well with the learning tests beside them;
3. the rest;

each group longest first, by tests/file_durations.json (a file it does not
list goes last in its group), so that no long file starts at the end and
runs alone while the other worker idles. The suite is CPU-bound (about 1.9
of the 2 cores busy over a whole run), so what the order decides is which
files share the CPUs: two CPU-bound in-process files beside a learning
test's two trainings oversubscribe the cores (a run that started the
learning tests beside the conformance tests took 1,419 s against 1,280 s).

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


def _group(items):
    """0 for a file with learning tests, 1 with timing-sensitive ones, 2
    for the rest."""
    markers = {mark.name for item in items for mark in item.iter_markers()}
    return 0 if 'learning' in markers else 1 if 'timing' in markers else 2


def start_order(items, durations):
    """``items`` (pytest's collected tests) file by file in ``_group``
    order, each group longest first; a file's tests keep their order."""
    by_file = {}
    for item in items:
        by_file.setdefault(item.nodeid.split('::', 1)[0], []).append(item)
    files = sorted(by_file, key=lambda name: (_group(by_file[name]),
                                              -durations.get(name, 0)))
    return [item for name in files for item in by_file[name]]


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
