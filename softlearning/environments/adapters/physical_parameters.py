"""Physical parameters that the curriculum and domain randomization set.

Semantics, shared by every built-in adapter (MuJoCo via gymnasium and
dm_control, and Bullet):

- ``'mass'``, ``'friction'``, ``'damping'``: a *multiplier* of the value the
  environment was constructed with, applied to all bodies (mass, and
  inertia with it so the bodies keep their shape), all geoms/links (sliding
  friction) or all joints (damping). ``{'mass': 1.0}`` restores the
  constructor's masses.
- ``'mass/<body>'``, ``'friction/<geom>'``, ``'damping/<joint>'``: the same
  multiplier for one element by name. A per-name key wins over the global
  one for that element when both are set (it is applied after).

Multipliers, not absolute values, so that one curriculum file fits several
robots whose bodies weigh differently.
"""

KINDS = ('mass', 'friction', 'damping')


def split_key(key):
    """'mass/torso' -> ('mass', 'torso'); 'mass' -> ('mass', None)."""
    kind, _, name = key.partition('/')
    return kind, (name or None)


def ordered_items(state):
    """Global keys first, then per-name keys, so the per-name ones win."""
    return sorted(state.items(), key=lambda item: '/' in item[0])


def unknown_keys_error(owner, keys, names):
    """ValueError naming the bad keys and the valid choices."""
    valid = [f"{kind} (all), {kind}/<name> with <name> in "
             f"{', '.join(names[kind]) or '(none)'}" for kind in KINDS]
    return ValueError(
        f"Unknown physical parameter(s) {', '.join(map(repr, keys))} for "
        f"{owner}; valid: " + '; '.join(valid))


class PhysicalParameters:
    """Base of the simulator-specific parameter setters.

    Subclasses provide ``names`` ({kind: element names}) and
    ``_apply(kind, indices, multiplier)``; this class keeps the current
    multipliers and validates keys.
    """

    names = {kind: () for kind in KINDS}

    def __init__(self, owner):
        self._owner = owner
        self._multipliers = {}

    @property
    def supported_keys(self):
        keys = list(KINDS)
        for kind in KINDS:
            keys.extend(f'{kind}/{name}' for name in self.names[kind])
        return tuple(keys)

    def validate(self, keys):
        supported = set(self.supported_keys)
        unknown = [key for key in keys if key not in supported]
        if unknown:
            raise unknown_keys_error(self._owner, unknown, self.names)

    def _indices(self, kind, name):
        if name is None:
            return list(range(len(self.names[kind])))
        return [self.names[kind].index(name)]

    def set(self, state):
        self.validate(state)
        self._multipliers.update(
            {key: float(value) for key, value in state.items()})
        self.apply_all()

    def apply_all(self):
        """(Re)applies every multiplier set so far, from the nominal values
        (so setting 'mass' twice does not compound)."""
        for kind in KINDS:
            self._apply(kind, self._indices(kind, None), 1.0)
        for key, value in ordered_items(self._multipliers):
            kind, name = split_key(key)
            self._apply(kind, self._indices(kind, name), value)

    def get(self):
        return dict(self._multipliers)

    def _apply(self, kind, indices, multiplier):
        raise NotImplementedError
