"""Algorithms: ``get({'class_name': 'SAC', 'config': {...}}, **components)``.

The algorithm classes are imported on first use: ``config_keys`` checks a
variant's algorithm config without loading TensorFlow (whose import is slow
and prints to stderr), so that a bad command line fails fast with one line.
"""

import ast
import importlib
import importlib.util

from softlearning.utils.registry import lookup

# Name -> (module, class).
ALGORITHMS = {'SAC': ('.sac', 'SAC'), 'SQL': ('.sql', 'SQL')}
_LAZY_CLASSES = {'SAC': ('.sac', 'SAC'), 'SQL': ('.sql', 'SQL'),
                 'FusedUpdateAlgorithm': ('.fused_updates',
                                          'FusedUpdateAlgorithm'),
                 'RLAlgorithm': ('.rl_algorithm', 'RLAlgorithm')}

# What the trainable passes to every algorithm (not part of a variant's
# algorithm config).
COMPONENT_ARGUMENTS = ('training_environment', 'evaluation_environment',
                       'policy', 'initial_exploration_policy', 'Qs', 'pool',
                       'sampler', 'iteration_callbacks', 'seed')


def _import(module_name, class_name):
    return getattr(importlib.import_module(module_name, __name__), class_name)


def __getattr__(name):
    if name in _LAZY_CLASSES:
        return _import(*_LAZY_CLASSES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_algorithm_class(class_name):
    return _import(*lookup(ALGORITHMS, class_name, 'algorithm'))


def get(params, **kwargs):
    algorithm_class = get_algorithm_class(params['class_name'])
    return algorithm_class(**params.get('config', {}), **kwargs)


def _class_definition(module_name, class_name):
    """The class's ``ast.ClassDef`` and its module's absolute name, read
    from the source without importing it."""
    module_name = importlib.util.resolve_name(module_name, __name__)
    with open(importlib.util.find_spec(module_name).origin) as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node, tree, module_name
    raise LookupError(f"no class {class_name} in {module_name}")


def _base_class(class_node, tree, module_name):
    """(module, class) of the first base, imported with ``from ... import``."""
    if not class_node.bases:
        return None
    base = class_node.bases[0].id
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(
                alias.name == base for alias in node.names):
            package = module_name.rsplit('.', 1)[0]
            return (importlib.util.resolve_name(
                '.' * node.level + (node.module or ''), package), base)
    return None


def config_keys(class_name):
    """The keys an algorithm's config may hold: the constructor arguments of
    the class and of the bases it passes ``**kwargs`` on to (RLAlgorithm's
    epoch-loop settings included), less the components."""
    keys = []
    target = lookup(ALGORITHMS, class_name, 'algorithm')
    while target is not None:
        class_node, tree, module_name = _class_definition(*target)
        init = next((node for node in class_node.body
                     if isinstance(node, ast.FunctionDef)
                     and node.name == '__init__'), None)
        if init is not None:
            arguments = init.args.args[1:] + init.args.kwonlyargs
            keys += [a.arg for a in arguments if a.arg not in keys]
            if init.args.kwarg is None:
                break
        target = _base_class(class_node, tree, module_name)
    return tuple(key for key in keys if key not in COMPONENT_ARGUMENTS)


__all__ = ['ALGORITHMS', 'COMPONENT_ARGUMENTS', 'FusedUpdateAlgorithm',
           'RLAlgorithm', 'SAC', 'SQL', 'config_keys', 'get',
           'get_algorithm_class']
