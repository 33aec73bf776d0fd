"""The lookup every component registry uses, and settings over defaults."""


def lookup(registry, name, kind):
    """``registry[name]``, or one ValueError naming the valid choices."""
    if name not in registry:
        raise ValueError(f"Unknown {kind} '{name}'. Valid {kind}s: "
                         f"{', '.join(registry)}")
    return registry[name]


def with_defaults(defaults, settings, kind):
    """``defaults`` updated with ``settings``; a key ``defaults`` does not
    have is one ValueError naming the valid ones."""
    settings = dict(settings or {})
    unknown = set(settings) - set(defaults)
    if unknown:
        raise ValueError(f"Unknown {kind} settings {sorted(unknown)}; "
                         f"valid: {', '.join(defaults)}")
    return {**defaults, **settings}
