"""Which keyword arguments a component's constructor accepts, so that a
misspelled config key fails before any work starts."""

import inspect

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                  inspect.Parameter.KEYWORD_ONLY)


def _keywords_and_forwards(function):
    """(names ``function`` takes as keywords, whether it has ``**kwargs``)."""
    parameters = inspect.signature(function).parameters.values()
    names = {p.name for p in parameters if p.kind in _KEYWORD_KINDS}
    forwards = any(p.kind == inspect.Parameter.VAR_KEYWORD
                   for p in parameters)
    return names - {'self'}, forwards


def _class_keywords(cls):
    names = set()
    for klass in cls.__mro__:
        if klass is object:
            break
        if '__init__' not in vars(klass):
            continue
        own, forwards = _keywords_and_forwards(vars(klass)['__init__'])
        names |= own
        if not forwards:
            break
    return names


def accepted_keywords(constructor):
    """Keyword arguments ``constructor`` (a class or a function) accepts.

    A class's ``**kwargs`` is followed to its base classes' ``__init__``
    (e.g. SAC's to RLAlgorithm's). A function that passes everything on
    declares where with ``__wrapped__`` (``functools.wraps`` sets it), which
    is followed too. Returns None for a function that takes ``**kwargs``
    without saying where they go: anything may be accepted."""
    constructor = inspect.unwrap(constructor)
    if inspect.isclass(constructor):
        return _class_keywords(constructor)
    names, forwards = _keywords_and_forwards(constructor)
    return None if forwards else names
