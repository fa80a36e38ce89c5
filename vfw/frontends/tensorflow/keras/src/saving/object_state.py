"""Where each object's variables go in a weights file: Keras 3's walk over a model's saveables.

Saveables are the objects with a ``_obj_type()`` method (layers, models, operations, optimizers,
metrics, losses).  Saving a saveable at ``path`` lets it write its own variables into the store
entry ``path`` (``save_own_variables``), then visits its attributes:

- a Sequential or Functional model first visits ``layers``;
- then every attribute in ``dir(obj)`` sorted by name, private (``_x``) ones last, except dunder
  names and the attributes a bare object of the same kind has (``dir(Layer())`` for layers...):
  so the walk sees the attributes a model or layer author added (``self.block``, ``self.inner``);
- an attribute holding a saveable is visited at ``<path>/<attribute>``; one holding a list, tuple
  or dict (of values) is a container: its saveables sit at ``<path>/<attribute>/<class name in
  snake case>`` (``dense``, ``dense_1``... counted within the container) and its nested containers
  at ``.../container``, ``.../container_1``...
- each saveable is visited once (the first path reaching it).

So a Sequential's layers are at ``layers/dense``, ``layers/dense_1``, its optimizer's state at
``optimizer``, and a subclassed model's ``self.block`` at ``block``.  Loading walks the same way
and hands each saveable its entry (``load_own_variables``); failures are collected and reported
together (``LoadingFailures``).  Sublayers must sit under the attribute names Keras uses for them
so that files are exchangeable with Keras.

Objects with ``save_assets``/``load_assets`` (lookup layers' vocabularies) get the folder of their
path in an ``AssetsStore`` too (``assets_store.py``), when the walk is given one.
"""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.engine import naming

_SKIPPED_ALWAYS = {"_self_unconditional_dependency_names"}
_skipsets = {}


def saveable_type(obj):
    """``obj``'s kind (``"Layer"``, ``"Functional"``, ``"Optimizer"``...), None if it is not a saveable."""
    if isinstance(obj, type):
        return None
    obj_type = getattr(obj, "_obj_type", None)
    return obj_type() if callable(obj_type) else None


def _reference_attributes(obj_type):
    """The attributes of a bare object of kind ``obj_type``: the walk skips them."""
    from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
    from vfw.frontends.tensorflow.keras.src.engine.operation import Operation
    from vfw.frontends.tensorflow.keras.src.losses.loss import Loss
    from vfw.frontends.tensorflow.keras.src.metrics.metric import Metric
    from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer

    if obj_type == "Operation":
        return set(dir(Operation()))
    if obj_type in ("Layer", "Model"):  # subclassed models are "Model" in vfw, "Layer" in Keras
        return set(dir(Layer()))
    if obj_type == "Functional":
        return set(dir(Layer())) | {"operations", "_operations"}
    if obj_type == "Sequential":
        return set(dir(Layer())) | {"_functional"}
    if obj_type == "Metric":
        return set(dir(Metric()))
    if obj_type == "Optimizer":
        return set(dir(Optimizer(1.0))) - {"variables"}
    if obj_type == "Loss":
        return set(dir(Loss()))
    raise ValueError(f"get_attr_skipset got invalid obj_type={obj_type!r}. Accepted values for `obj_type` are "
                     "['Operation', 'Layer', 'Functional', 'Sequential', 'Metric', 'Optimizer', 'Loss']")


def _skipset(obj_type):
    if obj_type not in _skipsets:
        # Bare reference objects take names ("layer", "metric"...): keep the session's name counters as they were.
        with naming.preserved_counters():
            _skipsets[obj_type] = _reference_attributes(obj_type) | _SKIPPED_ALWAYS
    return _skipsets[obj_type]


def _children(obj):
    """``(attribute, value)`` pairs the walk visits under ``obj``, in order."""
    obj_type = saveable_type(obj)
    skipped = _skipset(obj_type)
    if obj_type in ("Sequential", "Functional"):
        yield "layers", obj.layers
    for name in sorted(dir(obj), key=lambda n: f"~{n}" if n.startswith("_") else n):
        if name.startswith("__") or name in skipped:
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a property that cannot be computed in this state holds nothing to save
            continue
        yield name, value


def _join(path, name):
    return f"{path}/{name}" if path else name


def _container_items(container):
    """``(name, item)`` for the saveables and nested containers of ``container`` (names as in the module
    docstring)."""
    used = {}

    def unique(name):
        if name in used:
            used[name] += 1
            return f"{name}_{used[name]}"
        used[name] = 0
        return name

    for item in (container.values() if isinstance(container, dict) else container):
        if saveable_type(item) is not None:
            yield unique(naming.to_snake_case(type(item).__name__)), item
        elif isinstance(item, (list, tuple, dict)):
            yield unique("container"), item


# -- saving -----------------------------------------------------------------------------------------------------
def save_state(obj, store, path="", visited=None, assets=None):
    """Write the variables of ``obj`` and of the saveables it reaches into ``store`` (an ``H5Store``), and their
    asset files into ``assets``.

    Parameters
    ----------
    obj : saveable
    store : H5Store
    path : str
        Where ``obj`` sits ("" for the model).
    visited : set, optional
        ``id``s of saveables already written (or to leave out).
    assets : AssetsStore, optional
        Where ``save_assets`` writes (None: assets are not saved).
    """
    visited = set() if visited is None else visited
    if id(obj) in visited:
        return
    if hasattr(obj, "save_own_variables"):
        name = getattr(obj, "name", None)
        obj.save_own_variables(store.make(path, metadata={"name": name} if isinstance(name, str) else None))
    if assets is not None and hasattr(obj, "save_assets"):
        obj.save_assets(assets.make(path))
    visited.add(id(obj))
    for attribute, value in _children(obj):
        _save_value(value, store, _join(path, attribute), visited, set(), assets)


def _save_value(value, store, path, visited, visited_containers, assets):
    if saveable_type(value) is not None:
        save_state(value, store, path, visited, assets)
    elif isinstance(value, (list, tuple, dict)) and id(value) not in visited_containers:
        visited_containers.add(id(value))
        for name, item in _container_items(value):
            _save_value(item, store, _join(path, name), visited, visited_containers, assets)


# -- loading ------------------------------------------------------------------------------------------------------
class LoadingFailures:
    """The saveables whose variables could not be loaded, with their errors."""

    def __init__(self):
        self.errors = {}  # id -> (saveable, exception)

    def add(self, obj, error):
        self.errors[id(obj)] = (obj, error)

    def report(self, warn_only=False):
        """Raise Keras' ValueError listing the failures (a warning with ``warn_only``); nothing if none."""
        if not self.errors:
            return
        example, error = next(iter(self.errors.values()))
        message = (f"A total of {len(self.errors)} objects could not be loaded. Example error message for object "
                   f"{example}:\n\n{error}\n\nList of objects that could not be loaded:\n"
                   f"{[obj for obj, _ in self.errors.values()]}")
        if warn_only:
            warn_for_user(message)
        else:
            raise ValueError(message)


def load_state(obj, store, failures, path="", visited=None, assets=None):
    """Assign the variables of ``obj`` and of the saveables it reaches from ``store``, and load their assets.

    Parameters
    ----------
    obj : saveable
    store : H5Store
    failures : LoadingFailures
        Collects the saveables whose ``load_own_variables`` raised (the walk goes on).
    path : str
    visited : set, optional
        ``id``s of saveables already loaded (or to leave out).
    assets : AssetsStore, optional
        Where ``load_assets`` reads (None: ``load_assets`` is not called).
    """
    visited = set() if visited is None else visited
    if id(obj) in visited:
        return
    failed = False
    loaders = []
    if hasattr(obj, "load_own_variables"):
        loaders.append(lambda: obj.load_own_variables(store.get(path)))
    if assets is not None and hasattr(obj, "load_assets"):
        loaders.append(lambda: obj.load_assets(assets.get(path)))
    for load in loaders:
        try:
            load()
        except Exception as e:  # reported with the others by ``failures.report``
            failures.add(obj, e)
            failed = True
    failed_before = len(failures.errors)
    for attribute, value in _children(obj):
        _load_value(value, store, failures, _join(path, attribute), visited, set(), assets)
    if not failed:
        if len(failures.errors) <= failed_before:
            visited.add(id(obj))
        failures.errors.pop(id(obj), None)


def _load_value(value, store, failures, path, visited, visited_containers, assets):
    if saveable_type(value) is not None:
        load_state(value, store, failures, path, visited, assets)
        return
    if not isinstance(value, (list, tuple, dict)) or id(value) in visited_containers:
        return
    visited_containers.add(id(value))
    for name, item in _container_items(value):
        item_path = _join(path, name)
        if saveable_type(item) is None and not store.has_path(item_path) and not (
                assets is not None and assets.has_path(item_path)):
            # Files of older Keras versions have no groups for nested containers: load what can be found, warn
            # only if the container held saveables that were not loaded elsewhere.
            nested_failures = LoadingFailures()
            _load_value(item, store, nested_failures, item_path, visited, visited_containers, assets)
            if nested_failures.errors:
                warn_for_user(f"Skipping nested container at '{item_path}': no matching group found in the saved "
                              "file. This usually means the file was saved with a Keras version that did not "
                              "serialize sublayers nested inside containers. Affected layers will retain their "
                              "freshly-initialized weights.")
            continue
        _load_value(item, store, failures, item_path, visited, visited_containers, assets)
