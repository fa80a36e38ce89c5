"""Keras object configs: ``serialize_keras_object`` / ``deserialize_keras_object`` (Keras 3's format).

A Keras object serializes to ``{"module": "keras.initializers", "class_name": "GlorotUniform",
"config": {...}, "registered_name": None}``: built-in objects by their public Keras name (found in
the ``API`` lists of the modules in ``_api.MODULES``), custom ones by their module and registered
name (``register_keras_serializable``).  Plain values stay as they are; tuples, numpy arrays,
tensors, bytes, slices and lambdas get ``{"class_name": "__tuple__"...}``-style tags.

Deserialization never imports modules named in a config: it resolves public Keras names, the
classes vfw implements of Keras' internal modules (``keras.src.models.functional.Functional``...),
the registry and ``custom_objects`` only.  Lambdas load only with ``safe_mode=False`` (or after
``keras.config.enable_unsafe_deserialization()``).  Inside an ``ObjectSharingScope`` (model files)
an object met twice is written once with a ``shared_object_id`` and rebuilt as one object.

This is the one serialization library of vfw's Keras: the modules' ``serialize``/``deserialize``
(layers, initializers, optimizers, schedules, losses, metrics...) and model files go through it.
"""

import base64
import marshal
import types

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src import _api
from vfw.frontends.tensorflow.keras.src.backend import global_state, standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.utils import object_registration

PLAIN_TYPES = (str, int, float, bool)
# Where a function named in a "builtins" config is looked for.
_BUILTIN_NAMESPACES = ("activations", "constraints", "initializers", "losses", "metrics", "optimizers",
                       "regularizers")
# Public functions a config may never name: they act on the session or on files, they build nothing.
_NON_MODELING = frozenset(
    f"keras.{name}" for name in (
        "backend.clear_session", "config.enable_unsafe_deserialization", "models.load_model",
        "models.model_from_json", "models.save_model", "saving.deserialize_keras_object", "saving.load_model",
        "saving.load_weights", "saving.register_keras_serializable", "saving.save_model", "saving.save_weights",
        "saving.serialize_keras_object", "utils.clear_session", "utils.deserialize_keras_object", "utils.get_file",
        "utils.register_keras_serializable", "utils.serialize_keras_object"))
_SAFE_MODE = "safe_mode_saving"


# -- public Keras names ----------------------------------------------------------------------------------------------
class _PublicNames:
    """Both directions between public Keras objects and their names (``"keras.layers.Dense"``)."""

    def __init__(self):
        self.by_name = None
        self.by_object = None

    def _build(self):
        import importlib
        self.by_name, self.by_object = {}, {}
        for module_name in _api.MODULES:
            module = importlib.import_module(f"vfw.frontends.tensorflow.keras.src.{module_name}")
            for namespace, names in module.API.items():
                prefix = "keras" if namespace == "keras" else f"keras.{namespace}"
                for name in names:
                    obj = getattr(module, name)
                    full_name = f"{prefix}.{name}"
                    # tf.keras' short loss aliases (``keras.losses.mse``) are not in Keras' own namespaces, where
                    # deserialization looks names up ("Could not deserialize 'keras.metrics.mse'...").
                    if module_name != "legacy_aliases":
                        self.by_name.setdefault(full_name, obj)
                    try:
                        known = self.by_object.get(obj)
                    except TypeError:  # an unhashable public value
                        continue
                    # The first name found wins, except that an object's own name beats its aliases
                    # ("keras.initializers.GlorotUniform", not "...glorot_uniform").
                    own_name = getattr(obj, "__name__", None) == name
                    if known is None or (own_name and not known.endswith(f".{name}")):
                        self.by_object[obj] = full_name

    def name_of(self, obj):
        """``obj``'s public Keras name, or None."""
        if self.by_object is None:
            self._build()
        try:
            return self.by_object.get(obj)
        except TypeError:
            return None

    def is_namespace(self, module):
        """Whether ``module`` is a public Keras namespace ("keras", "keras.layers"...)."""
        if self.by_name is None:
            self._build()
        return any(name.rpartition(".")[0] == module for name in self.by_name)

    def object_of(self, name):
        """The public Keras object called ``name``, or None."""
        if self.by_name is None:
            self._build()
        return self.by_name.get(name)


public_names = _PublicNames()


# -- safe mode ---------------------------------------------------------------------------------------------------
def enable_unsafe_deserialization():
    """Let deserialization load lambdas (code stored in configs) for the rest of the session."""
    global_state.set_global_attribute(_SAFE_MODE, False)


def in_safe_mode():
    """The safe mode in force (None when nothing set it)."""
    return global_state.get_global_attribute(_SAFE_MODE)


class SafeModeScope:
    """``with SafeModeScope(False):`` lets deserialization inside load lambdas."""

    def __init__(self, safe_mode=True):
        self.safe_mode = safe_mode
        self.outer = None

    def __enter__(self):
        self.outer = in_safe_mode()
        global_state.set_global_attribute(_SAFE_MODE, self.safe_mode)

    def __exit__(self, *exc):
        global_state.set_global_attribute(_SAFE_MODE, self.outer)


# -- shared objects -------------------------------------------------------------------------------------------------
_SHARED_CONFIGS = "shared_objects/id_to_config_map"
_SHARED_OBJECTS = "shared_objects/id_to_obj_map"


class ObjectSharingScope:
    """``with ObjectSharingScope():`` an object serialized twice gets the same ``"shared_object_id"`` in both
    configs, and deserializing configs with the same id gives one object (model files use it)."""

    def __enter__(self):
        global_state.set_global_attribute(_SHARED_CONFIGS, {})
        global_state.set_global_attribute(_SHARED_OBJECTS, {})

    def __exit__(self, *exc):
        global_state.set_global_attribute(_SHARED_CONFIGS, None)
        global_state.set_global_attribute(_SHARED_OBJECTS, None)


def _record_serialized(obj, config):
    configs = global_state.get_global_attribute(_SHARED_CONFIGS)
    if configs is None:
        return
    if id(obj) not in configs:
        configs[id(obj)] = config
    else:
        configs[id(obj)]["shared_object_id"] = config["shared_object_id"] = id(obj)


def _shared_object(config):
    """The object already deserialized for ``config``'s ``shared_object_id`` (None if none)."""
    objects = global_state.get_global_attribute(_SHARED_OBJECTS)
    if objects is None or "shared_object_id" not in config:
        return None
    return objects.get(config["shared_object_id"])


def _record_deserialized(obj, config):
    objects = global_state.get_global_attribute(_SHARED_OBJECTS)
    if objects is not None and "shared_object_id" in config:
        objects[config["shared_object_id"]] = obj


# -- functions as data ----------------------------------------------------------------------------------------------
def func_dump(func):
    """``(code, defaults, closure)`` of a Python function: its marshalled bytecode in base64.

    The text is MIME base64 (76-character lines, each ending in a newline), the form Keras writes into
    ``Lambda`` configs, so saved configs compare equal to Keras' own."""
    code = base64.encodebytes(marshal.dumps(func.__code__)).decode("ascii")
    closure = tuple(cell.cell_contents for cell in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def func_load(code, defaults=None, closure=None, globs=None):
    """The function ``func_dump`` described (``code`` may be the whole dumped triple)."""
    if isinstance(code, (tuple, list)):
        code, defaults, closure = code
    if isinstance(defaults, list):
        defaults = tuple(defaults)
    if closure is not None:
        closure = tuple(types.CellType(value) for value in closure)
    function_code = marshal.loads(base64.b64decode(code.encode("ascii")))
    return types.FunctionType(function_code, globs if globs is not None else globals(), function_code.co_name,
                              defaults, closure)


# -- serialization -------------------------------------------------------------------------------------------------
def _tagged(class_name, **config):
    return {"class_name": class_name, "config": config}


def serialize_keras_object(obj):
    """``obj`` as JSON-compatible data that ``deserialize_keras_object`` rebuilds it from.

    Parameters
    ----------
    obj : object
        None, plain values, lists/tuples/dicts of them, numpy values, tensors, shapes, dtypes, or
        objects with ``get_config()`` (and public Keras or registered classes and functions).

    Returns
    -------
    object
    """
    if obj is None or isinstance(obj, PLAIN_TYPES):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return serialize_dict(obj)
    if isinstance(obj, bytes):
        return _tagged("__bytes__", value=obj.decode("utf-8"))
    if isinstance(obj, slice):
        return _tagged("__slice__", start=serialize_keras_object(obj.start), stop=serialize_keras_object(obj.stop),
                       step=serialize_keras_object(obj.step))
    if obj is Ellipsis:
        return _tagged("__ellipsis__")
    if isinstance(obj, KerasTensor):
        history = getattr(obj, "_keras_history", None)
        if history:
            history = [history[0].name, *list(history)[1:]]
        return _tagged("__keras_tensor__", shape=obj.shape, dtype=obj.dtype, keras_history=history)
    if isinstance(obj, tf.TensorShape):
        return obj.as_list() if obj.rank is not None else None
    if tf.is_tensor(obj) or isinstance(obj, tf.Variable):
        return _tagged("__tensor__", value=np.asarray(obj).tolist(), dtype=standardize_dtype(obj.dtype))
    if type(obj).__module__ == np.__name__:
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return _tagged("__numpy__", value=obj.tolist(), dtype=standardize_dtype(obj.dtype))
        return obj.item()
    if isinstance(obj, tf.DType):
        return obj.name
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        warn_for_user("The object being serialized includes a `lambda`. This is unsafe. In order to reload the "
                      "object, you will have to pass `safe_mode=False` to the loading function. Please avoid using "
                      "`lambda` in the future, and use named Python functions instead.")
        return _tagged("__lambda__", value=func_dump(obj))
    config = _public_config(obj.__class__, _inner_config(obj))
    if config["module"] == "__main__":
        config["module"] = None
    _add_build_and_compile_config(obj, config)
    _record_serialized(obj, config)
    return config


def serialize_dict(obj):
    """``{key: serialize_keras_object(value)}``."""
    return {key: serialize_keras_object(value) for key, value in obj.items()}


def _inner_config(obj):
    """The ``config`` entry of ``obj``'s serialization: ``get_config()``, or a function's name."""
    if isinstance(obj, types.FunctionType):
        return object_registration.get_registered_name(obj)
    if hasattr(obj, "get_config"):
        config = obj.get_config()
        if not isinstance(config, dict):
            raise TypeError(f"The `get_config()` method of {obj} should return a dict. It returned: {config}")
        return serialize_dict(config)
    if hasattr(obj, "__name__"):
        return object_registration.get_registered_name(obj)
    raise TypeError(f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must implement "
                    "the `get_config()` method.")


def _public_config(cls, inner):
    """The config of an instance of ``cls``: by its public Keras name, else by its module and registered
    name (its ``__name__`` when unregistered; functions are instances of ``builtins.function``)."""
    public = public_names.name_of(cls)
    if public is None:
        return {"module": cls.__module__, "class_name": cls.__name__, "config": inner,
                "registered_name": object_registration.get_registered_name(cls)}
    module, _, name = public.rpartition(".")
    return {"module": module, "class_name": name, "config": inner, "registered_name": None}


def _function_config(fn, name, module=None):
    """The config of function ``fn`` known as ``name`` (in ``module`` when given)."""
    if module is None:
        public = public_names.name_of(fn)
        if public is not None:
            module = public.rpartition(".")[0]
        else:
            module = fn.__module__
            name = object_registration.get_registered_name(fn)
    return {"module": module, "class_name": "function", "config": name, "registered_name": name}


def _add_build_and_compile_config(obj, config):
    for key, method in (("build_config", "get_build_config"), ("compile_config", "get_compile_config")):
        getter = getattr(obj, method, None)
        if getter is not None:
            value = getter()
            if value is not None:
                config[key] = serialize_dict(value)


# -- deserialization --------------------------------------------------------------------------------------------------
def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """Rebuild the object ``serialize_keras_object`` described.

    Parameters
    ----------
    config : object
        A serialized object; with ``module_objects``, also a bare name (``"relu"``) or a
        ``{"class_name": ..., "config": ...}`` dict naming one of them.
    custom_objects : dict, optional
        ``{name: class or function}`` consulted with the registry.
    safe_mode : bool
        Refuse lambdas (True by default; a SafeModeScope or ``enable_unsafe_deserialization``
        overrides it).
    module_objects : dict, optional (keyword)
        The names a module's ``get``/``deserialize`` accepts (``{"relu": relu, ...}``).

    Returns
    -------
    object
    """
    scoped = in_safe_mode()
    safe_mode = scoped if scoped is not None else safe_mode
    module_objects = kwargs.pop("module_objects", None)
    custom_objects = {**(custom_objects or {}), **object_registration.scope_objects(),
                      **object_registration.GLOBAL_CUSTOM_OBJECTS}
    if config is None:
        return None
    if isinstance(config, str) and custom_objects.get(config) is not None:
        return custom_objects[config]
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(x, custom_objects=custom_objects, safe_mode=safe_mode) for x in config]
    if module_objects is not None:
        resolved = _from_module_objects(config, module_objects, custom_objects)
        if resolved is not _UNRESOLVED:
            return resolved
    if isinstance(config, PLAIN_TYPES):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {key: deserialize_keras_object(value, custom_objects=custom_objects, safe_mode=safe_mode)
                for key, value in config.items()}
    return _from_tagged(config, custom_objects, safe_mode)


_UNRESOLVED = object()


def _from_module_objects(config, module_objects, custom_objects):
    """``config`` resolved against a module's own names; ``_UNRESOLVED`` when a custom object owns it."""
    inner = None
    module_name = None
    if isinstance(config, dict):
        inner = config.get("config")
        if "class_name" not in config:
            raise ValueError(f"Unknown `config` as a `dict`, config={config}")
        if custom_objects and (config["class_name"] in custom_objects
                               or config.get("registered_name") in custom_objects
                               or (isinstance(inner, str) and inner in custom_objects)):
            return _UNRESOLVED
        if config["class_name"] == "function":
            module_name = config["module"]
            config = config["config"] if module_name == "builtins" else config["registered_name"]
        else:
            if config.get("module", "_") is None:
                raise TypeError(f"Cannot deserialize object of type `{config['class_name']}`. If "
                                f"`{config['class_name']}` is a custom class, please register it using the "
                                "`@keras.saving.register_keras_serializable()` decorator.")
            config = config["class_name"]
    if not isinstance(config, str) or config not in module_objects:
        return config
    obj = module_objects[config]
    if isinstance(obj, types.FunctionType):
        serialized = _function_config(obj, config, module_name)
    else:
        serialized = _public_config(obj, inner)
    return deserialize_keras_object(serialized, custom_objects=custom_objects)


def _from_tagged(config, custom_objects, safe_mode):
    """The object of a ``{"class_name": ..., "config": ...}`` dict."""
    class_name = config["class_name"]
    inner = config["config"] if config["config"] is not None else {}

    def load(value):
        return deserialize_keras_object(value, custom_objects=custom_objects, safe_mode=safe_mode)

    if class_name == "__keras_tensor__":
        obj = KerasTensor(inner["shape"], dtype=inner["dtype"])
        obj._pre_serialization_keras_history = inner["keras_history"]
        return obj
    if class_name == "__tensor__":
        return tf.constant(np.array(inner["value"], dtype=inner["dtype"]))
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return slice(load(inner["start"]), load(inner["stop"]), load(inner["step"]))
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError("Requested the deserialization of a Python lambda. This carries a potential risk of "
                             "arbitrary code execution and thus it is disallowed by default. If you trust the source "
                             "of the artifact, you can override this error by passing `safe_mode=False` to the "
                             "loading function, or calling `keras.config.enable_unsafe_deserialization().")
        return func_load(inner["value"])
    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(f"Expected 'config' to be a non-null str fora function classname,\ninstead got "
                            f"{type(inner)}\nFull config: {config}")
        return _retrieve(inner, registered_name, module, "function", config, custom_objects)
    if not isinstance(inner, dict):
        raise TypeError(f"Expected 'config' to be a dict for {class_name},\ninstead got {type(inner)}\nFull config: "
                        f"{config}")
    shared = _shared_object(config)
    if shared is not None:
        return shared
    cls = _retrieve(class_name, registered_name, module, "class", config, custom_objects)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config"):
        raise TypeError(f"Unable to reconstruct an instance of '{class_name}' because the class is missing a "
                        f"`from_config()` method. Full object config: {config}")
    with object_registration.CustomObjectScope(custom_objects), SafeModeScope(safe_mode):
        try:
            instance = cls.from_config(inner)
        except TypeError as e:
            raise TypeError(f"{cls} could not be deserialized properly. Please ensure that components that are Python "
                            "object instances (layers, models, etc.) returned by `get_config()` are explicitly "
                            f"deserialized in the model's `from_config()` method.\n\nconfig={config}.\n\nException "
                            f"encountered: {e}") from e
        build_config = config.get("build_config")
        if build_config and not instance.built:
            instance.build_from_config(build_config)
            instance.built = True
        compile_config = config.get("compile_config")
        if compile_config:
            instance.compile_from_config(compile_config)
            instance.compiled = True
    _record_deserialized(instance, config)
    return instance


def _internal_classes():
    """Classes configs name by Keras' internal modules (``keras.src.models.functional.Functional``, the
    operations of ``keras.ops`` calls in functional models), by ``"<module>.<class name>"``."""
    from vfw.frontends.tensorflow.keras.src.engine.functional_config import internal_objects

    return {f"{cls.__module__}.{cls.__name__}": cls for cls in internal_objects().values()}


def _check_no_registered_name(full_config, name, public):
    """Keras' refusal of a ``registered_name`` (other than the name itself) on a config of a built-in object."""
    explicit = full_config.get("registered_name")
    if explicit and explicit not in (name, full_config.get("class_name")):
        raise ValueError(f"`registered_name={explicit!r}` was provided in the config, but '{public}' resolved to a "
                         "Keras built-in and does not use registered names. Remove the `registered_name` field from "
                         f"the config. Full object config: {full_config}")


def _retrieve(name, registered_name, module, kind, full_config, custom_objects):
    """The class or function a config names: registered/custom objects first, then public Keras names."""
    found = object_registration.get_registered_object(name if kind == "function" else registered_name,
                                                      custom_objects=custom_objects)
    if found is not None:
        return found
    is_keras = bool(module) and (module == "keras" or module.startswith("keras."))
    if is_keras:
        public = f"{module}.{name}"
        if public in _NON_MODELING:
            raise ValueError(f"Cannot deserialize `{public}` because it is not a modeling function. Non-modeling APIs "
                             "are disallowed during deserialization for security. Model configuration should only "
                             "contains operations, layers, metrics, losses, or registered custom objects and "
                             "functions.")
        found = public_names.object_of(public)
        if found is not None:
            _check_no_registered_name(full_config, name, public)
            return found
        found = _internal_classes().get(public)
        if found is not None:
            return found
    if kind == "function" and module == "builtins":
        for namespace in _BUILTIN_NAMESPACES:
            public = f"keras.{namespace}.{name}"
            found = public_names.object_of(public)
            if found is not None:
                _check_no_registered_name(full_config, name, public)
                return found
        if ">" not in name:
            for custom_name, custom_object in custom_objects.items():
                if custom_name.endswith(f">{name}"):
                    return custom_object
    if is_keras:
        # Keras imports the module and finds nothing loadable there; vfw imports nothing a config names.
        if public_names.is_namespace(module):
            raise ValueError(f"Could not deserialize '{module}.{name}' because it is not a KerasSaveable subclass")
        raise TypeError(f"Could not deserialize {kind} '{name}' because its parent module {module} cannot be "
                        f"imported (vfw's Keras implements no {kind} of that name there). Full object config: "
                        f"{full_config}")
    raise TypeError(f"Could not locate {kind} '{name}'. Make sure custom classes and functions are decorated with "
                    "`@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are "
                    f"all imported so that the decorator is run before trying to load them. Full object config: "
                    f"{full_config}")
