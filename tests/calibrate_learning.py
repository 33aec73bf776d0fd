"""Calibrates the learning tests: runs each case of tests/learning_cases.py
on many seeds through the real CLI (one Tune run per case, a grid over the
seed, two trials at a time on two CPUs, one TensorFlow thread each: as the
tests run them) and keeps every seed's evaluation curve in
tests/calibration/learning.json. Then prints, per case, the scores, the
threshold's margin below the worst of them and the normal-tail estimate of
how often a correct build fails the test.

    python tests/calibrate_learning.py                   # every case not yet calibrated
    python tests/calibrate_learning.py SAC DDPG --force   # these again
    python tests/calibrate_learning.py --report          # the table only
    ONEDNN_MAX_CPU_ISA=AVX2 python tests/calibrate_learning.py --seeds 1 --as-other-isa

--as-other-isa keeps the runs apart, under the value of ONEDNN_MAX_CPU_ISA:
a machine without AVX-512 runs other kernels, and so other runs for the
same seed; its scores must pass the thresholds too. A case whose command or
epochs changed is calibrated again (its old seeds are dropped).
"""

import argparse
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)
sys.path.insert(0, REPO_ROOT)

import learning_cases  # noqa: E402

CALIBRATION = os.path.join(TESTS, 'calibration', 'learning.json')
DEFAULT_SEEDS = list(range(10))


def load(path=CALIBRATION):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def save(calibration, path=CALIBRATION):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps(calibration, indent=1, sort_keys=True)
    # A list of numbers (an evaluation curve, goal counts) on one line.
    text = re.sub(r'\[\s*(-?\d[-\d.,\s]*?)\s*\]',
                  lambda match: '[' + ' '.join(match.group(1).split()) + ']',
                  text)
    with open(path + '.tmp', 'w') as f:
        f.write(text + '\n')
    os.replace(path + '.tmp', path)


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cli_command(spec, seeds, local_dir):
    example, *options = spec['command']
    return [sys.executable, '-m', 'softlearning.cli', 'run_example_local',
            example, *options, '--n-epochs', str(spec['epochs']),
            '--config', 'run_params.seed=' + json.dumps(
                {'grid_search': list(seeds)}),
            '--local-dir', local_dir, '--cpus', '2', '--trial-cpus', '1',
            '--verbose', '0']


def run_case(name, spec, seeds):
    """{seed: {'returns': [evaluation return per epoch], ...}} of ``seeds``."""
    import pandas as pd
    with tempfile.TemporaryDirectory() as local_dir:
        command = cli_command(spec, seeds, local_dir)
        start = time.time()
        result = subprocess.run(
            command, cwd=REPO_ROOT, capture_output=True, text=True,
            env={**os.environ, 'PYTHONPATH': REPO_ROOT, **spec['env']})
        if result.returncode:
            raise SystemExit(f'{name}: the run failed:\n'
                             + result.stderr[-3000:])
        runs = {}
        for path in glob.glob(os.path.join(local_dir, '**', 'progress.csv'),
                              recursive=True):
            trial_dir = os.path.dirname(path)
            progress = pd.read_csv(path)
            with open(os.path.join(trial_dir, 'params.json')) as f:
                seed = json.load(f)['run_params']['seed']
            run = {'returns': [round(float(r), 2) for r in
                               progress['evaluation/return-mean']]}
            if 'evaluation/success-rate' in progress:
                run['successes'] = [round(float(r), 3) for r in
                                    progress['evaluation/success-rate']]
            if name == 'SQL multi-goal':
                run['goals'] = goals_of_trial(trial_dir)
            runs[str(seed)] = run
        print(f'  {name}: {len(runs)} seeds in {time.time() - start:.0f} s',
              file=sys.stderr, flush=True)
    assert sorted(map(int, runs)) == sorted(seeds), (name, sorted(runs))
    return runs


def goals_of_trial(trial_dir):
    """Goal counts of the trial's last checkpoint's stochastic policy."""
    checkpoint = sorted(glob.glob(os.path.join(trial_dir, 'checkpoint_*')))[-1]
    policy = learning_cases.policy_of_checkpoint(checkpoint)
    return [int(c) for c in learning_cases.goals_reached(policy)]


def record(spec):
    return {'command': spec['command'], 'epochs': spec['epochs']}


def is_current(entry, spec):
    """Calibrated for the case's command, for its epochs or more."""
    return (entry is not None and entry['command'] == spec['command']
            and entry['epochs'] >= spec['epochs'])


def report(calibration):
    """One line per case: its scores' range, the threshold, the margin and
    the normal-tail failure estimate."""
    lines = []
    for name, spec in learning_cases.CASES.items():
        entry = calibration.get(name)
        if not is_current(entry, spec):
            lines.append(f'{name:30s} not calibrated for its command')
            continue
        scores = [learning_cases.case_score(spec, learning_cases.curve(spec, run))
                  for run in entry['seeds'].values()]
        line = (f"{name:30s} {len(scores):3d} seeds  score min {min(scores):8.1f}"
                f"  median {sorted(scores)[len(scores) // 2]:8.1f}")
        if spec['threshold'] is not None:
            p = learning_cases.normal_tail(scores, spec['threshold'])
            line += (f"  threshold {spec['threshold']:6g}  margin "
                     f"{min(scores) - spec['threshold']:7.2f}  P(fail) ~{p:.1e}")
        for isa, runs in entry.get('other_isa', {}).items():
            other = [learning_cases.case_score(spec, learning_cases.curve(spec, run))
                     for run in runs.values()]
            line += f"  [{isa}: min {min(other):.1f} over {len(other)}]"
        lines.append(line)
    return '\n'.join(lines)


def markdown(calibration):
    """The calibration as a Markdown table (docs/developer/tests.md's,
    generated when the site is built)."""
    rows = ['| case | budget | seeds | score: min / median | threshold '
            '| margin | P(fail), normal fit | AVX2 runs: min |',
            '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
    for name, spec in learning_cases.CASES.items():
        entry = calibration.get(name)
        if not is_current(entry, spec):
            continue
        scores = sorted(learning_cases.case_score(spec, learning_cases.curve(spec, run))
                        for run in entry['seeds'].values())
        other = [learning_cases.case_score(spec, learning_cases.curve(spec, run))
                 for runs in entry.get('other_isa', {}).values()
                 for run in runs.values()]
        threshold = spec['threshold']
        digits = 0 if spec['metric'] == 'return' else 2
        cells = [name, f"{spec['epochs']}k steps", str(len(scores)),
                 f'{scores[0]:.{digits}f} / '
                 f'{scores[len(scores) // 2]:.{digits}f}']
        if threshold is None:
            cells += ['-', '-', '-']
        else:
            cells += [f'{threshold}', f'{scores[0] - threshold:.{digits}f}',
                      f'{learning_cases.normal_tail(scores, threshold):.0e}']
        cells.append(f'{min(other):.{digits}f} ({len(other)})' if other
                     else '-')
        rows.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(rows)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('cases', nargs='*', metavar='CASE',
                        help='Cases to calibrate (default: every case that '
                             'is not calibrated for its current command). '
                             'One of: ' + ', '.join(learning_cases.CASES))
    parser.add_argument('--seeds', nargs='+', type=int, default=DEFAULT_SEEDS)
    parser.add_argument('--force', action='store_true',
                        help='Run the cases again even if calibrated.')
    parser.add_argument('--as-other-isa', action='store_true',
                        help='Record the runs under ONEDNN_MAX_CPU_ISA.')
    parser.add_argument('--report', action='store_true',
                        help='Print the table and run nothing.')
    parser.add_argument('--markdown', action='store_true',
                        help='Print the table as Markdown (as the '
                             'documentation shows it).')
    args = parser.parse_args()
    unknown = [c for c in args.cases if c not in learning_cases.CASES]
    if unknown:
        parser.error(f'unknown case {unknown[0]!r}; valid: '
                     + ', '.join(learning_cases.CASES))
    isa = os.environ.get('ONEDNN_MAX_CPU_ISA')
    if args.as_other_isa and not isa:
        parser.error('--as-other-isa needs ONEDNN_MAX_CPU_ISA (e.g. AVX2)')

    calibration = load()
    if not args.report:
        names = args.cases or list(learning_cases.CASES)
        for name in names:
            spec = learning_cases.CASES[name]
            entry = calibration.get(name)
            current = is_current(entry, spec)
            if args.as_other_isa:
                if not current:
                    print(f'{name}: calibrate it first', file=sys.stderr)
                    continue
                entry.setdefault('other_isa', {}).setdefault(isa, {}).update(
                    run_case(name, spec, args.seeds))
            else:
                if current and not args.force and not args.cases:
                    continue
                if not current or args.force:
                    entry = {**record(spec), 'seeds': {}}
                entry['seeds'].update(run_case(name, spec, args.seeds))
                entry['machine'] = f'{cpu_model()}, {os.cpu_count()} CPUs'
                entry['date'] = time.strftime('%Y-%m-%d')
                calibration[name] = entry
            save(calibration)
    print(markdown(calibration) if args.markdown else report(calibration))


if __name__ == '__main__':
    main()
