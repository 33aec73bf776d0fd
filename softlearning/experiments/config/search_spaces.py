"""Search spaces in ``--config`` values and sweep files, mapped to Tune's.

A value that is a JSON object with exactly one of these keys is a search
space; anything else is a plain value:

    {"grid_search": [a, b, ...]}   every value, one trial (set) each
    {"choice": [a, b, ...]}        one of the values at random
    {"uniform": [low, high]}       a float uniformly in [low, high]
    {"loguniform": [low, high]}    a float log-uniformly in [low, high], low > 0
    {"randint": [low, high]}       an integer in [low, high) (high excluded)
"""

import difflib
import json
import numbers
import sys

SEARCH_SPACE_FORMS = {
    'grid_search': '{"grid_search": [a, b, ...]}',
    'choice': '{"choice": [a, b, ...]}',
    'uniform': '{"uniform": [low, high]}',
    'loguniform': '{"loguniform": [low, high]}',
    'randint': '{"randint": [low, high]}',
}


def _forms():
    return ', '.join(SEARCH_SPACE_FORMS.values())


def _bad(key, value, reason):
    return ValueError(
        f"Bad search space for {key}: {json.dumps(value, default=str)} "
        f"({reason}). The forms are: "
        f"{_forms()}.")


def _values(key, value, form):
    values = value[form]
    if not isinstance(values, list) or not values:
        raise _bad(key, value, f'"{form}" needs a non-empty list')
    return values


def _bounds(key, value, form, integer=False):
    bounds = value[form]
    number = numbers.Integral if integer else numbers.Real
    if (not isinstance(bounds, list) or len(bounds) != 2
            or not all(isinstance(b, number) and not isinstance(b, bool)
                       for b in bounds)):
        kind = 'integers' if integer else 'numbers'
        raise _bad(key, value, f'"{form}" needs two {kind} [low, high]')
    low, high = bounds
    if not low < high:
        raise _bad(key, value, 'low must be less than high')
    if form == 'loguniform' and low <= 0:
        raise _bad(key, value, 'loguniform bounds must be positive')
    return low, high


class DrawnSeed:
    """The presets' seed: a different one drawn for each trial, as Tune's
    ``randint(lower, upper)`` would, standing in for it while the options
    are checked (``as_tune``), so that a refused option never pays for
    importing Tune."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def as_tune(self):
        from ray import tune
        return tune.randint(self.lower, self.upper)


def _is_domain(value):
    """Whether ``value`` is one of Tune's sampled search spaces. Such a
    value exists only once Tune's module is imported, so a command that
    stops at a bad option never pays for importing Tune (over a second)."""
    sample = sys.modules.get('ray.tune.search.sample')
    return sample is not None and isinstance(value, sample.Domain)


def is_search_space(value):
    """Whether ``value`` is already one of Tune's search spaces."""
    return isinstance(value, DrawnSeed) or _is_domain(value) or (
        isinstance(value, dict) and set(value) == {'grid_search'})


def possible_values(value):
    """The values ``value`` can take: a grid's or a choice's, else
    ``value`` itself (other search spaces draw numbers: their own)."""
    if isinstance(value, dict) and set(value) == {'grid_search'}:
        return list(value['grid_search'])
    categories = getattr(value, 'categories', None)
    if _is_domain(value) and categories is not None:
        return list(categories)
    return [value]


def holds_search_space(value):
    """Whether ``value`` is, or (a dict) holds at any depth, a search
    space."""
    if is_search_space(value):
        return True
    return isinstance(value, dict) and any(
        holds_search_space(item) for item in value.values())


def to_search_space(key, value):
    """``value`` with a search-space object replaced by Tune's equivalent;
    other values unchanged. ``key`` names the entry in error messages."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    (form,) = value
    if form not in SEARCH_SPACE_FORMS:
        close = difflib.get_close_matches(form, SEARCH_SPACE_FORMS, n=1,
                                          cutoff=0.7)
        if close:
            raise _bad(key, value, f'"{form}" is not a form; did you mean '
                                   f'"{close[0]}"?')
        return value  # a plain one-key object, e.g. environment kwargs
    from ray import tune
    if form == 'grid_search':
        return tune.grid_search(_values(key, value, form))
    if form == 'choice':
        return tune.choice(_values(key, value, form))
    if form == 'randint':
        return tune.randint(*_bounds(key, value, form, integer=True))
    low, high = _bounds(key, value, form)
    return (tune.uniform if form == 'uniform' else tune.loguniform)(low, high)


def search_space_entries(variant_spec, prefix=''):
    """{dotted key: search space} of every search space in the spec."""
    entries = {}
    for key, value in variant_spec.items():
        path = f'{prefix}{key}'
        if is_search_space(value):
            entries[path] = value
        elif isinstance(value, dict):
            entries.update(search_space_entries(value, f'{path}.'))
    return entries


def grid_search_keys(variant_spec):
    return [key for key, value in search_space_entries(variant_spec).items()
            if isinstance(value, dict)]
