"""Real Ray clusters for the cluster tests, started with `ray start` in
their own process groups (stopped by killing those groups, worker first:
never a machine-wide `ray stop`), in a private temp dir so no other
`ray.init()` on the machine joins them."""

import itertools
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

RAY = os.path.join(os.path.dirname(sys.executable), 'ray')
# A hang guard of `ray start` (seconds on a quiet machine): `ray start
# --address` hangs when no head listens.
START_GUARD_S = 300


def free_port(low=20000, high=30000):
    """A free TCP port outside 10002-19999 (Ray's client-server range),
    searched from a random start: test files that run side by side
    (pytest -n) then rarely pick the same port before either binds it."""
    start = random.randrange(low, high)
    for port in itertools.chain(range(start, high), range(low, start)):
        with socket.socket() as s:
            try:
                s.bind(('127.0.0.1', port))
            except OSError:
                continue
            return port
    raise RuntimeError('no free port')


class RayProcesses:
    """`ray start` commands, each in its own process group."""

    def __init__(self, env):
        self.env = env
        self.groups = []
        # Unix socket paths must stay short: a short folder in the suite's
        # temporary folder (conftest.py), itself short.
        self.temp_dir = tempfile.mkdtemp(prefix='rt')

    def start(self, *args, timeout=START_GUARD_S, extra_env=None):
        process = subprocess.Popen(
            [RAY, 'start', *args], env={**self.env, **(extra_env or {})},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        self.groups.append(process.pid)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # `ray start --address` hangs when no head listens.
            self.stop()
            raise
        if process.returncode != 0:
            self.stop()
            raise RuntimeError(f"ray start {' '.join(args)} failed:\n{output}")
        return output

    def start_head(self, port, num_cpus, *args, extra_env=None):
        return self.start(
            '--head', '--node-ip-address=127.0.0.1', f'--port={port}',
            f'--num-cpus={num_cpus}', f'--temp-dir={self.temp_dir}',
            f'--ray-client-server-port={free_port()}',
            '--include-dashboard=false', '--disable-usage-stats', *args,
            extra_env=extra_env)

    def start_worker(self, port, num_cpus, extra_env=None):
        return self.start(
            f'--address=127.0.0.1:{port}', '--node-ip-address=127.0.0.1',
            f'--num-cpus={num_cpus}', extra_env=extra_env)

    def stop(self):
        """Workers first (started last), then the head."""
        for group in reversed(self.groups):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(group, sig)
                except ProcessLookupError:
                    break
                time.sleep(2)
        self.groups = []
        shutil.rmtree(self.temp_dir, ignore_errors=True)
