"""Where each value of a variant came from, and the variant as YAML with
each value annotated with it (``softlearning show-config``).

variants.py builds a variant in steps (its docstring lists them); after
each, ``Provenance.step`` credits the values that appeared or changed to
that step's source:

    preset               the presets (presets/), and the default seed
    domain override      a preset's per-universe/domain overrides
    option               an option (given or its default), e.g. --n-epochs
    example default      the example's own defaults (examples.multi_goal)
    debug mode           run_example_debug's small epochs
    sweep                the sweep file's "config" (--sweep)
    --config             --config KEY=VALUE
    derived              follows from other values (e.g. the sampler's
                         episode length is the algorithm's)
    constructor default  a constructor's default, written into the variant
"""

import math

from softlearning.experiments.config.search_spaces import (
    DrawnSeed, is_search_space)


def described(value):
    """``value`` as plain data: Tune's search spaces in the form a --config
    writes them ({"randint": [0, 10000]}), tuples as lists."""
    if isinstance(value, dict):
        return {str(key): described(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [described(item) for item in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, DrawnSeed):
        return {'randint': [value.lower, value.upper]}
    kind = type(value).__name__
    if kind == 'Categorical':
        return {'choice': described(value.categories)}
    if kind in ('Integer', 'Float'):
        form = {'Integer': 'randint', 'Float': 'uniform'}[kind]
        if type(value.get_sampler()).__name__ == '_LogUniform':
            form = 'loguniform'
        return {form: [value.lower, value.upper]}
    return repr(value)


def flat(variant, prefix=''):
    """{dotted key: described value} of every leaf (a search space, a
    list or an empty dict is a leaf)."""
    leaves = {}
    for key, value in variant.items():
        path = f'{prefix}{key}'
        if isinstance(value, dict) and value and not is_search_space(value):
            leaves.update(flat(value, f'{path}.'))
        else:
            leaves[path] = described(value)
    return leaves


def _under(key, prefixes):
    return any(key == prefix or key.startswith(f'{prefix}.')
               for prefix in prefixes)


class Provenance:
    """{dotted key: source} of a variant being built; ``recording=False``
    makes every method a no-op (runs that do not ask for it)."""

    def __init__(self, recording=True):
        self.recording = recording
        self.sources = {}
        self._values = {}

    def step(self, source, variant, keys=()):
        """After a step of ``source``: the values that appeared or changed
        since the previous step come from it, and so does everything at or
        under ``keys`` (dotted), changed or not (a --config that repeats a
        preset's value is the --config's)."""
        if not self.recording:
            return
        values = flat(variant)
        for key, value in values.items():
            if (key not in self._values or self._values[key] != value
                    or _under(key, keys)):
                self.sources[key] = source
        self.sources = {key: self.sources[key] for key in values}
        self._values = values

    def copy(self, source_prefix, target_prefix, variant):
        """A step that copied ``source_prefix``'s entries to
        ``target_prefix``: the copies come from where the originals did."""
        if not self.recording:
            return
        self.step('derived', variant)
        for key in list(self.sources):
            if _under(key, [target_prefix]):
                original = source_prefix + key[len(target_prefix):]
                self.sources[key] = self.sources.get(original, 'derived')


def _scalar(value):
    """One value as YAML in flow style, on one line."""
    import yaml
    text = yaml.safe_dump([value], default_flow_style=True,
                          width=math.inf).strip()
    return text[1:-1]


def annotated_yaml(variant, sources, indent=0, prefix=''):
    """The variant as YAML lines, each value with a trailing comment
    ``# from: SOURCE``."""
    lines = []
    for key, value in variant.items():
        path = f'{prefix}{key}'
        pad = ' ' * indent
        if isinstance(value, dict) and value and not is_search_space(value):
            lines.append(f'{pad}{key}:')
            lines += annotated_yaml(value, sources, indent + 2, f'{path}.')
        else:
            lines.append(f'{pad}{key}: {_scalar(described(value))}  '
                         f'# from: {sources.get(path, "derived")}')
    return lines
