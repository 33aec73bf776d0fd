"""Redirecting file descriptors 1 and 2 for a block.

C and C++ libraries (TensorFlow's start-up, MuJoCo's compiler) write to the
process's file descriptors directly, past Python's ``sys.stdout`` and
``sys.stderr``: only redirecting the descriptors themselves catches them.
"""

import contextlib
import os
import sys


@contextlib.contextmanager
def redirected(descriptors, target):
    """Points each of ``descriptors`` (e.g. ``(1, 2)``) at the open file
    ``target`` for the block, and back afterwards. Python's streams are
    flushed on both sides, so their buffered lines land where they were
    written."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(descriptor) for descriptor in descriptors]
    try:
        for descriptor in descriptors:
            os.dup2(target.fileno(), descriptor)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for descriptor, copy in zip(descriptors, saved):
            os.dup2(copy, descriptor)
            os.close(copy)
