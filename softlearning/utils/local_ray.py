"""Starting Ray on this machine, again if its start-up timed out.

Ray gives a new node's raylet 30 seconds to register with the GCS, a
figure written into its code (ray/_private/node.py, Ray 2.60), and ends
``ray.init`` with "The current node timed out during startup" past it. A
machine busy with other work (several runs starting at once on two
cores, a loaded shared host) can miss that; it is a delay, not a fault.
So the processes the late start left behind are stopped and Ray is
started again, up to ``ATTEMPTS`` times, each retry said on stderr. Any
other error of ``ray.init`` is raised at once.
"""

import os
import signal
import sys

ATTEMPTS = 3
TIMED_OUT = 'timed out during startup'


def start(init=None, **init_kwargs):
    """``ray.init(**init_kwargs)`` (or ``init``), started again when Ray's
    start-up timed out; returns what it returns."""
    import ray
    init = init or ray.init
    for attempt in range(1, ATTEMPTS + 1):
        before = _children()
        try:
            return init(**init_kwargs)
        except Exception as error:
            if TIMED_OUT not in str(error) or attempt == ATTEMPTS:
                raise
        _stop(_children() - before)
        ray.shutdown()
        print(f"Ray's start-up timed out on a busy machine (attempt "
              f"{attempt} of {ATTEMPTS}); starting it again.",
              file=sys.stderr, flush=True)


def _children():
    """This process's descendants, as (pid, start time) pairs: a pid the
    system reused is another process. Read from /proc (Linux); elsewhere
    none, and a failed start's processes end with the command, as Ray
    ties them to it."""
    if not os.path.isdir('/proc'):
        return set()
    children = {}
    for entry in os.listdir('/proc'):
        fields = stat_fields(entry) if entry.isdigit() else None
        if fields:
            children.setdefault(int(fields[1]), []).append(
                (int(entry), fields[19]))
    found, parents = set(), [os.getpid()]
    while parents:
        for child in children.get(parents.pop(), ()):
            found.add(child)
            parents.append(child[0])
    return found


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (in parentheses,
    and free to hold spaces): state, ppid, ..., start time (the 22nd field
    of the file, index 19 here); None once the process is gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()
    except OSError:
        return None


def _stop(processes):
    """Kills the processes a failed start left (its GCS, raylet, reaper and
    their workers), so the next start does not share the machine with
    them."""
    for pid, _ in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid, _ in processes:
        try:
            os.waitpid(pid, 0)  # this process's own children: no zombies
        except ChildProcessError:
            pass
