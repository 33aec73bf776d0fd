"""The lookup every component registry uses, and settings over defaults.

Registries of TensorFlow components name where each class lives
('package.module:Name') rather than holding it, so that looking a name up,
listing the choices and checking a variant's config keys
(``signatures.accepted_keywords_in_source``) never import TensorFlow;
``load`` imports the class when a component is built.
"""

import importlib


def check_keys(given, valid, what, where=None, error=ValueError):
    """Raises ``error`` when a key of ``given`` is not one of ``valid``, with
    the one line that names the unknown keys and the valid ones, e.g.
    "suite.yaml: unknown entry 'seed'. Valid choices: algorithms, seeds."
    (``where``, when given, first; ``what``: what a key is)."""
    valid = list(valid)
    unknown = [key for key in given if key not in valid]
    if unknown:
        prefix = f'{where}: unknown' if where else 'Unknown'
        names = ', '.join(map(repr, sorted(unknown)))
        raise error(f"{prefix} {what} {names}. "
                    f"Valid choices: {', '.join(map(str, valid))}.")


def check_choice(value, choices, kind):
    """``value`` if it is one of ``choices``, or one ValueError naming the
    valid ones ("Unknown precision 'float16'; valid: float32, bfloat16")."""
    if value not in choices:
        raise ValueError(f"Unknown {kind} {value!r}; valid: "
                         f"{', '.join(map(str, choices))}")
    return value


def lookup(registry, name, kind):
    """``registry[name]``, or one ValueError naming the valid choices."""
    if name not in registry:
        raise ValueError(f"Unknown {kind} '{name}'. Valid choices: "
                         f"{', '.join(registry)}")
    return registry[name]


def load(location):
    """The object at ``location``, 'package.module:Name'."""
    module_name, name = location.split(':')
    return getattr(importlib.import_module(module_name), name)


def lazy_attributes(registry, module_name):
    """A module ``__getattr__`` that imports the registry's objects on first
    use (``from softlearning.algorithms import SAC`` keeps working)."""
    by_attribute = {location.split(':')[1]: location
                    for location in registry.values()}

    def __getattr__(name):
        if name in by_attribute:
            return load(by_attribute[name])
        raise AttributeError(
            f"module {module_name!r} has no attribute {name!r}")
    return __getattr__


def with_defaults(defaults, settings, kind):
    """``defaults`` updated with ``settings``; a key ``defaults`` does not
    have is one ValueError naming the valid ones."""
    settings = dict(settings or {})
    check_keys(settings, defaults, f'{kind} setting(s)')
    return {**defaults, **settings}
