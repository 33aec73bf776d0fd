"""Importing the user's modules (their environments, their experiment
definitions) in every process that needs them, not only the one started in
the user's folder: ``simulate``, ``export`` and sampler actors import a
module from the folder recorded when training started, and the
repository's own ``examples.*`` import from the checkout softlearning is
installed from, whatever the working directory. ``LazyModule`` imports a
heavy module on first use."""

import importlib
import os
import sys

# The checkout holding softlearning/ (and examples/), for an editable
# install or a run from the checkout.
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _is_missing(error, name):
    """Whether ``error`` says ``name`` itself (or a package above it) is not
    found, rather than something it imports."""
    missing = error.name or ''
    return name == missing or name.startswith(missing + '.')


def _search_folders(name, import_path):
    folders = [import_path] if import_path else []
    if name.split('.')[0] == 'examples' and os.path.isfile(
            os.path.join(CHECKOUT, 'examples', '__init__.py')):
        folders.append(CHECKOUT)
    return [folder for folder in folders
            if os.path.isdir(folder) and folder not in sys.path]


def import_module(name, import_path=None):
    """``importlib.import_module(name)``; if ``name`` is not found, again
    with ``import_path`` (a folder) and, for ``examples.*``, the checkout on
    ``sys.path``. Raises ModuleNotFoundError as importlib does."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        folders = _search_folders(name, import_path)
        if not folders or not _is_missing(error, name):
            raise
    sys.path.extend(folders)
    return importlib.import_module(name)


def import_root(name):
    """The folder on ``sys.path`` that the imported module ``name`` came
    from (what ``import_module`` needs as ``import_path`` elsewhere)."""
    top = sys.modules[name.split('.')[0]]
    location = getattr(top, '__file__', None)
    if location is None:  # a namespace package
        return os.path.dirname(os.path.abspath(list(top.__path__)[0]))
    folder = os.path.dirname(os.path.abspath(location))
    if os.path.basename(location) == '__init__.py':
        folder = os.path.dirname(folder)
    return folder


class LazyModule:
    """A module imported on its first attribute access: for a module whose
    import is heavy (Tune's), named where it is used but needed only on
    some paths (a bad input never reaches them)."""

    def __init__(self, name):
        self._name, self._module = name, None

    def __getattr__(self, attribute):
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)
