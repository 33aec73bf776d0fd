"""How fast a mistake is reported: the seconds from a command's start to
its one-line error, for the errors the tests check only against a generous
hang guard (tests/test_cluster.py's fail-fast tests, test_cli.py's bad
input, test_cli_usability.py's refusals before Ray Tune's import). Each is timed as a whole process, --repeats times, beside the time
of `softlearning --help` (Python's start and the CLI's imports), so the
ratio to it says how much the check itself costs whatever the machine.

    python benchmarks/fail_fast.py [--repeats 5]

Prints one JSON object. Run it on a quiet machine.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def commands(temp_dir):
    """{row: (softlearning arguments, extra environment)}."""
    ray_dir = os.path.join(temp_dir, 'ray')
    os.makedirs(ray_dir, exist_ok=True)
    gone = free_port()
    with open(os.path.join(ray_dir, 'ray_current_cluster'), 'w') as f:
        f.write(f'127.0.0.1:{gone}')
    cluster = ['run_example_cluster', 'examples.development']
    return {
        'softlearning --help (baseline)': (['--help'], {}),
        'bad option value (--n-epochs -3)': (
            ['run_example_local', 'examples.development', '--n-epochs', '-3'],
            {}),
        'unknown domain (--domain HalfCheeta)': (
            ['run_example_local', 'examples.development', '--domain',
             'HalfCheeta'], {}),
        'misspelled key (--config ...discont=0.9)': (
            ['run_example_local', 'examples.development', '--config',
             'algorithm_params.config.discont=0.9'], {}),
        'suite part not in the suite (--algorithms SACC)': (
            ['benchmark', 'examples/benchmarks/smoke.yaml', '--algorithms',
             'SACC'], {}),
        'no such results folder (report)': (['report', 'no_such_folder'],
                                            {}),
        'no cluster at --address': (
            [*cluster, '--address', f'127.0.0.1:{free_port()}'], {}),
        'no cluster on this machine': (
            cluster, {'RAY_TMPDIR': os.path.join(temp_dir, 'none')}),
        "cluster gone since the last `ray start`": (
            cluster, {'RAY_TMPDIR': temp_dir}),
    }


def time_command(args, env, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, '-m', 'softlearning.cli', *args], cwd=REPO_ROOT,
            env=env, capture_output=True, text=True, timeout=300)
        seconds.append(time.perf_counter() - start)
        if args != ['--help'] and result.returncode != 2:
            raise SystemExit(f'{args}: expected exit 2, got '
                             f'{result.returncode}:\n{result.stderr[-2000:]}')
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=5)
    args = parser.parse_args()
    base_env = {key: value for key, value in os.environ.items()
                if key not in ('RAY_ADDRESS', 'RAY_TMPDIR')}
    base_env.update(PYTHONPATH=REPO_ROOT, RAY_USAGE_STATS_ENABLED='0')
    rows = {}
    with tempfile.TemporaryDirectory() as temp_dir:
        for name, (cli_args, extra) in commands(temp_dir).items():
            seconds = time_command(cli_args, {**base_env, **extra},
                                   args.repeats)
            rows[name] = {'median_s': round(statistics.median(seconds), 2),
                          'min_s': round(min(seconds), 2),
                          'max_s': round(max(seconds), 2)}
    baseline = rows['softlearning --help (baseline)']['median_s']
    for row in rows.values():
        row['ratio_to_help'] = round(row['median_s'] / baseline, 2)
    print(json.dumps({'benchmark': 'fail_fast', 'repeats': args.repeats,
                      'rows': rows}, indent=1))


if __name__ == '__main__':
    main()
