"""Keras' registry of custom objects: ``register_keras_serializable``, ``custom_object_scope``...

Deserialization (``utils/serialization.py``) looks names up here first: the objects of the
innermost ``custom_object_scope``, then the registered ones (``"package>Name"``), then those
passed as ``custom_objects``.
"""

import inspect

from vfw.frontends.tensorflow.keras.src.backend import global_state

_SCOPE_ATTRIBUTE = "custom_objects_scope_dict"
GLOBAL_CUSTOM_OBJECTS = {}
GLOBAL_CUSTOM_NAMES = {}


class CustomObjectScope:
    """``with custom_object_scope({"MyLayer": MyLayer}):`` makes those names known to deserialization.

    Parameters
    ----------
    custom_objects : dict or None
        ``{name: class or function}``.  Scopes do not merge: the innermost one is in force.
    """

    def __init__(self, custom_objects):
        self.custom_objects = custom_objects or {}
        self.backup = None

    def __enter__(self):
        self.backup = scope_objects().copy()
        global_state.set_global_attribute(_SCOPE_ATTRIBUTE, self.custom_objects.copy())
        return self

    def __exit__(self, *exc):
        global_state.set_global_attribute(_SCOPE_ATTRIBUTE, self.backup.copy())


custom_object_scope = CustomObjectScope


def scope_objects():
    """The objects of the innermost ``custom_object_scope`` (empty outside any)."""
    return global_state.get_global_attribute(_SCOPE_ATTRIBUTE, {})


def get_custom_objects():
    """The global registry ``{registered name: object}`` (a live dict: entries may be added to it)."""
    return GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package="Custom", name=None):
    """Decorator registering a class (which must have ``get_config``) or function as ``package>name``.

    Parameters
    ----------
    package : str
    name : str, optional
        Defaults to the object's ``__name__``.
    """

    def decorator(obj):
        registered_name = f"{package}>{obj.__name__ if name is None else name}"
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        GLOBAL_CUSTOM_OBJECTS[registered_name] = obj
        GLOBAL_CUSTOM_NAMES[obj] = registered_name
        return obj

    return decorator


def get_registered_name(obj):
    """``obj``'s registered name (``"package>Name"``), else its ``__name__``."""
    return GLOBAL_CUSTOM_NAMES.get(obj, obj.__name__)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object ``name`` refers to: from the active scope, the registry, ``custom_objects`` or
    ``module_objects``, in that order (None if none has it)."""
    for objects in (scope_objects(), GLOBAL_CUSTOM_OBJECTS, custom_objects, module_objects):
        if objects and name in objects:
            return objects[name]
    return None
