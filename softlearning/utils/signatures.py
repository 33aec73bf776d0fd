"""Which keyword arguments a component's constructor accepts, so that a
misspelled config key fails before any work starts."""

import ast
import importlib.util
import inspect

_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                  inspect.Parameter.KEYWORD_ONLY)


def _keywords_and_forwards(function, follow_wrapped=True):
    """(names ``function`` takes as keywords, whether it has ``**kwargs``)."""
    parameters = inspect.signature(
        function, follow_wrapped=follow_wrapped).parameters.values()
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
    without saying where they go: anything may be accepted. A function
    that forwards to ``__wrapped__`` accepts its own keywords too."""
    own = set()
    if not inspect.isclass(constructor) and hasattr(constructor,
                                                    '__wrapped__'):
        own, _ = _keywords_and_forwards(constructor, follow_wrapped=False)
    constructor = inspect.unwrap(constructor)
    if inspect.isclass(constructor):
        return _class_keywords(constructor) | own
    names, forwards = _keywords_and_forwards(constructor)
    return None if forwards else names | own


# Reading constructors from source ----------------------------------------
# The variant's config keys are checked before TensorFlow is imported (a bad
# key is reported in a second, without TensorFlow's start-up), so the
# constructors of TensorFlow components are read from their source files.
# tests/test_config_keys.py checks that both ways agree for every registered
# component.

def _module_file(module_name):
    """The source file of ``module_name``, found without importing it (its
    parent packages are imported: registries keep them light)."""
    spec = importlib.util.find_spec(module_name)
    if spec is None:
        raise ImportError(f"No module named '{module_name}'")
    return spec.origin


def _parse(module_name):
    with open(_module_file(module_name)) as f:
        return ast.parse(f.read())


def _absolute(module_name, imported, level):
    if not level:
        return imported
    package = module_name.split('.')[:-level]
    return '.'.join(package + ([imported] if imported else []))


def _definition(module_name, name):
    """(module, AST node) defining ``name`` as seen from ``module_name``:
    its own class or function, or one imported with ``from X import name``.
    None for anything else (e.g. a base class from another library)."""
    tree = _parse(module_name)
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and (
                node.name == name):
            return module_name, node, tree
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    source = _absolute(module_name, node.module, node.level)
                    if not source.startswith(module_name.split('.')[0]):
                        return None
                    return _definition(source, alias.name)
    return None


# A parameter without a default, or whose default is not a literal.
NO_LITERAL_DEFAULT = object()


def _literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return NO_LITERAL_DEFAULT


def _arguments_of(function_node):
    """({keyword name: literal default or NO_LITERAL_DEFAULT}, whether the
    function takes ``**kwargs``)."""
    arguments = function_node.args
    positional = arguments.posonlyargs + arguments.args
    defaults = [NO_LITERAL_DEFAULT] * (
        len(positional) - len(arguments.defaults)) + [
        _literal(default) for default in arguments.defaults]
    parameters = {a.arg: default for a, default in zip(positional, defaults)
                  if a not in arguments.posonlyargs}
    parameters.update({
        a.arg: NO_LITERAL_DEFAULT if default is None else _literal(default)
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults)})
    parameters.pop('self', None)
    return parameters, arguments.kwarg is not None


def _wrapped_target(tree, function_node):
    """The name a function forwards its ``**kwargs`` to, as declared by
    ``@functools.wraps(TARGET)`` or ``function.__wrapped__ = TARGET``."""
    for decorator in function_node.decorator_list:
        if isinstance(decorator, ast.Call) and ast.unparse(
                decorator.func) in ('wraps', 'functools.wraps'):
            return ast.unparse(decorator.args[0])
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and ast.unparse(node.targets[0])
                == f'{function_node.name}.__wrapped__'):
            return ast.unparse(node.value)
    return None


def _fixed_keywords(function_node, callee):
    """Keywords ``function_node`` passes itself in its calls to ``callee``
    (e.g. DDPG's ``super().__init__(..., target_noise=0.0)``): the caller
    fixes them, so they are not its to accept."""
    return {keyword.arg for call in ast.walk(function_node)
            if isinstance(call, ast.Call) and ast.unparse(call.func) == callee
            for keyword in call.keywords if keyword.arg is not None}


def _parameters_from_source(module_name, name):
    """{keyword: literal default or NO_LITERAL_DEFAULT} of the constructor
    ``name``, following ``**kwargs`` as ``accepted_keywords`` does; None for
    a function that takes anything."""
    found = _definition(module_name, name)
    if found is None:
        return {}
    module_name, node, tree = found
    if isinstance(node, ast.FunctionDef):
        parameters, forwards = _arguments_of(node)
        if not forwards:
            return parameters
        target = _wrapped_target(tree, node)
        if target is None:
            return None
        forwarded = _parameters_from_source(module_name, target) or {}
        for keyword in _fixed_keywords(node, target) - set(parameters):
            forwarded.pop(keyword, None)
        return {**forwarded, **parameters}
    init = next((item for item in node.body if isinstance(
        item, ast.FunctionDef) and item.name == '__init__'), None)
    parameters, forwards = ({}, True) if init is None else _arguments_of(init)
    inherited = {}
    if forwards:
        # As the MRO is walked by inspect: a base's __init__ gets the rest
        # (the first base's defaults win, as in the MRO).
        for base in reversed(node.bases):
            inherited.update(_parameters_from_source(
                module_name, ast.unparse(base)) or {})
        if init is not None:
            for keyword in _fixed_keywords(init, 'super().__init__'):
                inherited.pop(keyword, None)
    return {**inherited, **parameters}


def parameters_in_source(location):
    """{keyword: literal default or NO_LITERAL_DEFAULT} of the constructor
    at ``location`` ('package.module:Name'), read from its source without
    importing it; None for one that takes anything."""
    return _parameters_from_source(*location.split(':'))


def accepted_keywords_in_source(location):
    """``accepted_keywords`` of the constructor at ``location``
    ('package.module:Name'), read from its source without importing it."""
    parameters = _parameters_from_source(*location.split(':'))
    return None if parameters is None else set(parameters)
