"""An environment in a process of its own, for samplers whose cost is the
simulation (``--vector-mode async``).

``SubprocessEnvironment(environment_params)`` starts a Python process that
builds the environment from the variant's params (as a sampler actor does)
and serves it; the object stands in for it in the sampler: every method and
attribute of the environment is forwarded (the curriculum's parameters, the
episode state checkpoints save, rendering), and ``send_step`` /``step``
split a step in two, so that a vector stepper sends all of its
environments' actions before it waits for the first result: their physics
runs in parallel, one process each.

The child is a plain ``python -c`` process, not a ``multiprocessing`` one:
spawn and forkserver re-import the parent's main module, which in a Ray
worker or a user's script is not ours to run again; fork would copy a
process whose TensorFlow threads are running. It talks over a socket pair,
ignores Ctrl-C (the sampler's process stops it, after saving what it must)
and exits when the socket closes, so a parent that dies leaves no orphan.
"""

import os
import signal
import socket
import subprocess
import sys
import traceback
from multiprocessing.connection import Connection

_SERVE = ('from softlearning.environments.subprocess_environment import '
          'serve; serve({fd})')

# Attributes read once, when the environment starts: reading them must not
# cost a round trip per step.
_STATIC_ATTRIBUTES = ('observation_space', 'action_space')


class EnvironmentProcessError(RuntimeError):
    """The environment's process failed (its traceback is in the
    message), or ended."""


class SubprocessEnvironment:

    def __init__(self, environment_params):
        parent, child = socket.socketpair()
        environ = dict(os.environ)
        # The child imports what this process can (a user's own modules).
        environ['PYTHONPATH'] = os.pathsep.join(
            path for path in sys.path if path)
        self._process = subprocess.Popen(
            [sys.executable, '-c', _SERVE.format(fd=child.fileno())],
            pass_fds=[child.fileno()], env=environ)
        child.close()
        self._connection = Connection(parent.detach())
        self._step_sent = False
        self._closed = False
        # Built in the child while this process goes on (K of them start
        # at once): ``started`` waits for it.
        self._static = None
        self._send('__start__', environment_params)

    def started(self):
        """Waits until the environment is built; raises its error if it
        could not be."""
        if self._static is None:
            try:
                self._static = self._receive()
            except EnvironmentProcessError:
                self._static = {}  # (answered: nothing more to wait for)
                raise
        return self

    # The protocol ----------------------------------------------------------

    def _send(self, *message):
        try:
            self._connection.send(message)
        except (BrokenPipeError, ConnectionResetError, OSError) as error:
            raise self._ended() from error

    def _receive(self):
        try:
            status, value = self._connection.recv()
        except (EOFError, ConnectionResetError, OSError) as error:
            raise self._ended() from error
        if status == 'error':
            raise EnvironmentProcessError(
                "The environment's process failed:\n" + value)
        return value

    def _request(self, *message):
        self.started()
        if self._step_sent:
            raise RuntimeError("A step was sent and not yet received.")
        self._send(*message)
        return self._receive()

    def _ended(self):
        code = self._process.poll()
        return EnvironmentProcessError(
            "The environment's process ended"
            + (f" (exit code {code})." if code is not None else "."))

    # The environment -------------------------------------------------------

    def send_step(self, action):
        """Starts a step; ``step`` with the same action returns it."""
        self.started()
        self._send('step', (action,), {})
        self._step_sent = True

    def step(self, action):
        if not self._step_sent:
            self.send_step(action)
        self._step_sent = False
        return self._receive()

    def __getattr__(self, name):
        if name.startswith('_'):
            raise AttributeError(name)
        if name in self.started()._static:
            return self._static[name]
        kind, value = self._request('getattr', name)
        if kind == 'missing':
            raise AttributeError(name)
        if kind == 'value':
            return value

        def method(*args, **kwargs):
            return self._request('call', name, args, kwargs)
        method.__name__ = name
        return method

    def close(self):
        """Closes the environment and ends its process."""
        if self._closed:
            return
        self._closed = True
        try:
            self.started()
            if self._step_sent:
                self._receive()
                self._step_sent = False
            self._request('close')
        except EnvironmentProcessError:
            pass
        finally:
            self._connection.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def __del__(self):
        # A sampler that was never closed (a crash) still ends its children;
        # the socket's end alone would do it, this does it now.
        if not getattr(self, '_closed', True):
            try:
                self.close()
            except Exception:
                pass


def serve(fd):
    """The child's loop: builds the environment, then answers requests
    until told to close or the parent's end of the socket closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    connection = Connection(fd)
    environment = None
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            break
        command = request[0]
        try:
            if command == '__start__':
                from softlearning.environments import (
                    get_environment_from_params)
                environment = get_environment_from_params(request[1])
                reply = {name: getattr(environment, name)
                         for name in _STATIC_ATTRIBUTES}
            elif command == 'step':
                reply = environment.step(*request[1], **request[2])
            elif command == 'getattr':
                if not hasattr(environment, request[1]):
                    reply = ('missing', None)
                else:
                    value = getattr(environment, request[1])
                    reply = (('method', None) if callable(value)
                             else ('value', value))
            elif command == 'call':
                _, name, args, kwargs = request
                reply = getattr(environment, name)(*args, **kwargs)
            elif command == 'close':
                environment.close()
                reply = None
            else:
                raise ValueError(f"Unknown request {command!r}.")
            answer = ('ok', reply)
        except Exception:
            answer = ('error', traceback.format_exc())
        try:
            connection.send(answer)
        except OSError:  # the parent is gone
            break
        if command == 'close':
            break
    connection.close()
