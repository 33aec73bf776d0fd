"""Makes ``import tensorflow`` write what TensorFlow's C++ writes at import
on some CPUs and machines, whatever CPU the tests run on: put this folder on
PYTHONPATH (tests/conftest.py: FAKE_TENSORFLOW_STARTUP_ENV). Each process
that imports TensorFlow then writes, to file descriptor 2, before the real
import:

- an INFO record (as oneDNN's notice on AVX-512 BF16 CPUs): must be dropped;
- a CUDA ERROR record (as on machines without a GPU driver): dropped when
  no GPU is in use;
- a WARNING record of another component: must be shown. Its presence in a
  command's stderr also tells that the command imported TensorFlow.
"""

import importlib.abc
import os
import sys

FAKE_LINES = (
    b'I0000 00:00:1700000000.000001   4242 fake_port.cc:153] FAKE-INFO '
    b'custom operations are on.\n'
    b'E0000 00:00:1700000000.000002   4242 cuda_fake_platform.cc:52] '
    b'FAKE-CUDA failed call to cuInit\n'
    b'W0000 00:00:1700000000.000003   4242 fake_kernel.cc:7] FAKE-WARNING '
    b'TensorFlow was imported\n')


class _AnnounceTensorFlow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == 'tensorflow':
            sys.meta_path.remove(self)
            os.write(2, FAKE_LINES)
        return None  # the real finders import it


sys.meta_path.insert(0, _AnnounceTensorFlow())
