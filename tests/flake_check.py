"""Runs the learning tests and the timing-sensitive ones (pytest markers
`learning` and `timing`) N times, the learning tests on another seed each
round (SOFTLEARNING_TEST_SEED; by default seeds the calibration never ran),
and prints each test's pass count.

    python tests/flake_check.py                      # 5 rounds
    python tests/flake_check.py -n 10 -m learning    # the learning tests only
    python tests/flake_check.py --beside 'python benchmarks/throughput.py'

--beside keeps a CPU-heavy command running the whole time (started again
whenever it ends), as on a busy machine. The suite must pass whatever the
machine is doing, so every count should read N/N.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS)


def outcomes(junit_xml):
    """{test id: 'passed' | 'skipped' | the failure's message} of a JUnit
    XML report."""
    results = {}
    for case in ElementTree.parse(junit_xml).iter('testcase'):
        test = f"{case.get('classname')}::{case.get('name')}"
        results[test] = 'passed'
        for child in case:
            if child.tag in ('failure', 'error'):
                results[test] = 'failed: ' + (child.get('message') or
                                              child.tag)[:500]
            elif child.tag == 'skipped':
                results[test] = 'skipped'
    return results


class Beside:
    """A command kept running, restarted whenever it ends."""

    def __init__(self, command):
        self.command, self.process, self.starts = command, None, 0

    def poll(self):
        if self.command and (self.process is None
                             or self.process.poll() is not None):
            self.process = subprocess.Popen(
                self.command, shell=True, cwd=REPO_ROOT,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
            self.starts += 1

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, 9)


def run_round(marker, seed, pytest_args, beside, keep_failed):
    """{test: outcome} of one round; the JUnit report of a round with a
    failure (its whole output) is kept as ``keep_failed``."""
    with tempfile.TemporaryDirectory() as temp_dir:
        report = os.path.join(temp_dir, 'report.xml')
        process = subprocess.Popen(
            [sys.executable, '-m', 'pytest', '-m', marker, '-q',
             '-p', 'no:cacheprovider', f'--junitxml={report}', *pytest_args],
            cwd=REPO_ROOT, env={**os.environ,
                                'SOFTLEARNING_TEST_SEED': str(seed)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while process.poll() is None:
            beside.poll()
            time.sleep(1)
        if not os.path.exists(report):
            raise SystemExit(f'pytest wrote no report (exit {process.returncode})')
        results = outcomes(report)
        if any(outcome.startswith('failed') for outcome in results.values()):
            os.makedirs(os.path.dirname(keep_failed), exist_ok=True)
            shutil.copy(report, keep_failed)
        return results


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('-n', '--rounds', type=int, default=5)
    parser.add_argument('-m', '--marker', default='learning or timing',
                        help='pytest -m expression (default: %(default)s)')
    parser.add_argument('--seeds', nargs='+', type=int,
                        help='One per round (default: 101, 102, ...).')
    parser.add_argument('--beside', metavar='COMMAND',
                        help='A CPU-heavy shell command to keep running.')
    parser.add_argument('--reports', default=os.path.join(
        REPO_ROOT, '.flake-reports'), help='Where the JUnit reports of the '
        'rounds with a failure are kept, with every failure\'s whole output '
        '(default: %(default)s).')
    parser.add_argument('pytest_args', nargs='*',
                        help='More pytest arguments (after --).')
    args = parser.parse_args()
    seeds = args.seeds or [101 + i for i in range(args.rounds)]
    if len(seeds) != args.rounds:
        parser.error(f'--seeds gives {len(seeds)} seeds for {args.rounds} rounds')
    beside = Beside(args.beside)
    counts, failures = {}, {}
    try:
        for round_, seed in enumerate(seeds, 1):
            start = time.time()
            kept = os.path.join(args.reports, f'round-{round_}-seed-{seed}.xml')
            results = run_round(args.marker, seed, args.pytest_args, beside,
                                kept)
            for test, outcome in results.items():
                counts.setdefault(test, 0)
                if outcome == 'passed':
                    counts[test] += 1
                elif outcome.startswith('failed'):
                    failures.setdefault(test, []).append(seed)
            failed = [f'{test}: {outcome}' for test, outcome in results.items()
                      if outcome.startswith('failed')]
            print(f'round {round_}/{args.rounds} (seed {seed}): '
                  f'{len(results)} tests, {len(failed)} failed, '
                  f'{time.time() - start:.0f} s', *failed,
                  *([f'(report: {kept})'] if failed else []), sep='\n  ',
                  file=sys.stderr, flush=True)
    finally:
        beside.stop()
    width = max(map(len, counts), default=10)
    print(f"{'test':{width}s}  passed  failed on seeds")
    for test in sorted(counts):
        print(f'{test:{width}s}  {counts[test]:>2d}/{args.rounds:<3d}  '
              + ' '.join(map(str, failures.get(test, []))))
    if args.beside:
        print(f'beside: {args.beside} (started {beside.starts} times)')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
