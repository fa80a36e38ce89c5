"""tf.Module (a container of variables and submodules, found by walking attributes) and tf.name_scope."""

import functools
import re

from vfw.frontends.tensorflow._name_scope import name_scope
from vfw.frontends.tensorflow._variables import Variable

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CAMEL_HUMP = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def _snake_case(class_name):
    """``MyModule`` -> ``my_module``, ``HTTPServer`` -> ``http_server`` (TF's default module names)."""
    return _CAMEL_HUMP.sub(r"_\1", class_name).lower()


class Module:
    """A named container of variables and submodules.

    ``variables``, ``trainable_variables``, ``non_trainable_variables`` and ``submodules`` are
    found by walking the module's attributes (in name order, into lists, tuples and dicts by
    sorted key): first the module's own matches, then each submodule's, depth first; each object
    once.

    Parameters
    ----------
    name : str, optional
        A Python identifier; defaults to the class name in snake case.  The module's
        ``name_scope`` is that name inside the name scope in force at construction.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not isinstance(name, str):
            raise TypeError(f"expected string or bytes-like object, got '{type(name).__name__}'")
        elif not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope:
            self._name_scope = name_scope(scope)  # absolute: entering it later gives the same prefix

    @property
    def name(self):
        """str: the module's name."""
        return self._name

    @property
    def name_scope(self):
        """name_scope: the module's scope (``with module.name_scope:`` names variables ``<scope>/...``)."""
        return self._name_scope

    @property
    def variables(self):
        """tuple: every variable of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """tuple: the trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        """tuple: the non-trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        """tuple: every module reachable from this one (not itself)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        """Yield the attribute leaves matching ``predicate`` (all when None), in traversal order.

        With ``with_path``, yields ``(path, leaf)`` with ``path`` the tuple of attribute names,
        indices and keys leading to the leaf (and then a leaf reached by several paths is
        yielded once per path).
        """
        return _walk(self, recursive, predicate or (lambda _: True), attribute_traversal_key,
                     self._TF_MODULE_IGNORED_PROPERTIES, with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's ``name_scope``."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _is_variable(x):
    return isinstance(x, Variable)


def _is_module(x):
    return isinstance(x, Module)


def _leaves_with_paths(x, path=()):
    """``(path, leaf)`` for the leaves of a nested attribute value, in TF's order (dicts by sorted key: TypeError
    for keys that do not sort, as ``tf.nest``)."""
    if isinstance(x, dict):
        for key in sorted(x):
            yield from _leaves_with_paths(x[key], path + (key,))
    elif isinstance(x, (list, tuple)):
        for i, item in enumerate(x):
            yield from _leaves_with_paths(item, path + (i,))
    else:
        yield path, x


def _walk(module, recursive, predicate, key, ignored, with_path, path, seen, stack):
    """A module's own matching leaves, then (depth first) its submodules' (``stack``: modules being walked)."""
    if id(module) in stack:
        recursive = False  # a cycle back to a module being walked: its leaves, not its submodules again
    attributes = vars(module)
    submodules = []
    for name in sorted(attributes, key=key):
        if name in ignored:
            continue
        try:
            leaves = list(_leaves_with_paths(attributes[name], (name,)))
        except TypeError as e:
            raise ValueError(f"Error processing property {name!r} of {attributes[name]!r}") from e
        for leaf_path, leaf in leaves:
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((path + leaf_path, leaf))
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _walk(sub, recursive, predicate, key, ignored, with_path, sub_path, seen, stack)
    stack.pop()


NAMESPACES = {"tf": ["Module", "name_scope"]}
TENSOR_METHODS = {}
