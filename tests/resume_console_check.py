"""Interrupts a short run with Ctrl+C after its second epoch, resumes it
with --restore, and checks that the resumed command printed every epoch
line to the last one before its results, N times (the console must never
lose a line, whatever the machine's speed or load).

    python tests/resume_console_check.py             # 20 tries
    python tests/resume_console_check.py -n 5 --keep

Prints one line per try and a count; exits 1 if any try failed.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_EPOCHS = 6
RUN = ['--algorithm', 'SAC', '--universe', 'gym', '--domain', 'Pendulum',
       '--task', 'v1', '--n-epochs', str(N_EPOCHS), '--epoch-length', '400',
       '--seed', '1', '--checkpoint-frequency', '1', '--cpus', '2',
       '--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
       '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
       '--config', 'algorithm_params.config.n_initial_exploration_steps=100',
       '--config', 'algorithm_params.config.eval_n_episodes=1']


def _command(*args):
    return [sys.executable, '-m', 'softlearning.cli', 'run_example_local',
            'examples.development', *args]


def _env():
    return {**os.environ, 'RAY_USAGE_STATS_ENABLED': '0',
            'PYTHONPATH': REPO_ROOT}


def one_try(folder):
    """(ok, what happened) of one interrupt-and-resume."""
    process = subprocess.Popen(
        _command(*RUN, '--local-dir', folder, '--exp-name', 'resume'),
        cwd=folder, env=_env(), text=True, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    for line in process.stdout:
        if line.startswith('epoch     2/'):
            process.send_signal(signal.SIGINT)
            break
    process.communicate(timeout=600)
    if process.returncode != 130:
        return False, f'interrupted run exited {process.returncode}'
    experiments = [os.path.join(root, name)
                   for root, names, _ in os.walk(folder)
                   for name in names if name.endswith('-resume')]
    resumed = subprocess.run(
        _command('--restore', experiments[0]), cwd=folder, env=_env(),
        text=True, capture_output=True, timeout=600)
    lines = resumed.stdout.splitlines()
    epochs = [line for line in lines if line.startswith('epoch ')]
    last = f'epoch {N_EPOCHS:>5}/{N_EPOCHS}'
    if resumed.returncode != 0:
        return False, f'resumed run exited {resumed.returncode}'
    if not epochs or not epochs[-1].startswith(last):
        return False, f'last epoch line: {epochs[-1] if epochs else None!r}'
    if lines.index(epochs[-1]) > next(
            i for i, line in enumerate(lines) if line.startswith('Results:')):
        return False, 'the last epoch line came after the results'
    return True, f'resumed at {epochs[0].split("|")[0].strip()}'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('-n', type=int, default=20, help='tries (20)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the runs\' folders')
    args = parser.parse_args()
    passed = 0
    for index in range(args.n):
        folder = tempfile.mkdtemp(prefix='resume-check-')
        start = time.time()
        try:
            ok, what = one_try(folder)
        finally:
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
        passed += ok
        print(f"try {index + 1:>2}: {'ok  ' if ok else 'FAIL'} {what} "
              f"({time.time() - start:.0f} s)", flush=True)
    print(f"{passed}/{args.n} resumed runs printed their last epoch line")
    return 0 if passed == args.n else 1


if __name__ == '__main__':
    sys.exit(main())
