"""TensorFlow's and Keras' names for vfw.tensorflow's classes: ``type(x)`` prints as under TF 2.21 / Keras 3.15.

``type(tf.constant(1.0))`` is ``<class 'tensorflow.python.framework.ops.EagerTensor'>``,
``type(keras.layers.Dense(2))`` is ``<class 'keras.src.layers.core.dense.Dense'>``... The names come from the
tables of :mod:`._type_names_tf` and :mod:`._type_names_keras`; :func:`install` applies them to the classes of the
modules loaded so far. vfw.tensorflow calls it once loaded, and tf.data and tf.keras (loaded on first use) call it
again when they are. Classes the tables do not name (vfw's private helpers) keep vfw's names.

Renamed classes stay picklable and copyable (:mod:`vfw.frontends._class_paths`).
"""

import importlib
import sys

from vfw.frontends import _class_paths
from vfw.frontends.tensorflow import _type_names_keras, _type_names_tf

_PACKAGE = "vfw.frontends.tensorflow"
# (vfw package the table's module names are below, table) for each table.
_TABLES = ((_PACKAGE, _type_names_tf.CLASSES), (f"{_PACKAGE}.keras", _type_names_keras.CLASSES))
# vfw modules whose table entries have been applied.
_DONE = set()


def entries():
    """``(vfw module, vfw qualname, module, qualname)`` for every class the tables name."""
    for package, table in _TABLES:
        for module, classes in table.items():
            for qualname, name in classes.items():
                module_name, name_qualname = (name, qualname) if isinstance(name, str) else name
                yield f"{package}.{module}", qualname, module_name, name_qualname


def _lookup(module, qualname):
    value = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _loaded(module_name):
    """Whether the module has been imported completely (not one whose import is still running)."""
    module = sys.modules.get(module_name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def install(package=None):
    """Give the classes of the vfw.tensorflow modules loaded so far TF's / Keras' names (once each).

    Parameters
    ----------
    package : str, optional
        A subpackage (``"data"``) whose modules the tables name are imported first, loaded lazily by the
        package otherwise; its ``__init__`` calls this last, once they can be imported.
    """
    if package is not None:
        for vfw_module, *_ in entries():
            if vfw_module.startswith(f"{_PACKAGE}.{package}.") and vfw_module not in sys.modules:
                importlib.import_module(vfw_module)
    pending = {}
    for vfw_module, qualname, module, name_qualname in entries():
        if vfw_module not in _DONE and _loaded(vfw_module):
            pending.setdefault(vfw_module, []).append((qualname, module, name_qualname))
    for vfw_module, classes in pending.items():
        module = sys.modules[vfw_module]
        for qualname, name_module, name_qualname in classes:
            _class_paths.rename(_lookup(module, qualname), name_module, name_qualname)
        _DONE.add(vfw_module)


def vfw_module(cls):
    """The vfw module ``cls`` is defined in (its ``__module__`` before renaming)."""
    return _class_paths.vfw_path(cls)[0]
