"""The lookup every component registry uses."""


def lookup(registry, name, kind):
    """``registry[name]``, or one ValueError naming the valid choices."""
    if name not in registry:
        raise ValueError(f"Unknown {kind} '{name}'. Valid {kind}s: "
                         f"{', '.join(registry)}")
    return registry[name]
