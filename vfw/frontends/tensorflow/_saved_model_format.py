"""vfw's SavedModel directory format: file names, and the JSON encoding of specs and nested structures.

A SavedModel directory written by ``tf.saved_model.save`` holds:

- ``saved_model.vfw``: the manifest, JSON (``{"format": "vfw.saved_model", "version": 1, ...}``): the object tree
  (``nodes``: modules, variables, lists, tuples, dicts and functions, node 0 the root, children by attribute name),
  the functions (``functions``: per concrete function its input specs, argument and output structures, the variable
  each captured graph input reads, the state updates, and the integer shape constants that follow the unknown
  dims) and the signatures (``signatures``: key -> function, input names, output keys);
- ``graphs/<n>.pb``: each concrete function's traced engine GraphDef (``vfw.core.graph.serialize``);
- ``variables/variables.npz``: the variables' values (numpy ``.npz``, read without pickles).

Loading never runs code from these files: the manifest is JSON data, the graphs go through the engine's validating
loader and run only registered ops, and arrays load with ``allow_pickle=False``.
"""

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._tensor_spec import TensorSpec

MANIFEST = "saved_model.vfw"
FORMAT = "vfw.saved_model"
VERSION = 1
GRAPHS_DIR = "graphs"
VARIABLES_FILE = "variables/variables.npz"
TF_FILES = ("saved_model.pb", "saved_model.pbtxt")


def spec_to_json(spec, name=None):
    """A TensorSpec as JSON data (``name`` overrides the spec's own)."""
    shape = None if spec.shape.rank is None else spec.shape.as_list()
    return {"shape": shape, "dtype": spec.dtype.name, "name": name if name is not None else spec.name}


def spec_from_json(data):
    return TensorSpec(data["shape"], _dtypes.as_dtype(data["dtype"]), data.get("name"))


_PLAIN = (type(None), bool, int, float, str)


def structure_to_json(spec, what):
    """An engine argument/result structure (``vfw.core.graph.function._flatten``) as JSON data.

    Leaves are ``{"leaf": index}``; Python values must be None, bools, numbers or strings (``what`` names the
    function in the ValueError otherwise).
    """
    kind = spec[0]
    if kind == "leaf":
        return {"leaf": spec[1]}
    if kind == "value":
        if not isinstance(spec[2], _PLAIN):
            raise ValueError(f"tf.saved_model.save: {what} has a Python value of type {type(spec[2]).__name__} in "
                             "its arguments or results, which vfw's SavedModel format cannot store (None, bools, "
                             "numbers and strings only)")
        return {"value": spec[2]}
    if kind == "dict":
        return {"dict": [[k, structure_to_json(v, what)] for k, v in spec[2]]}
    return {"tuple" if issubclass(spec[1], tuple) else "list": [structure_to_json(s, what) for s in spec[2]]}


def structure_from_json(data, leaves):
    """The structure encoded by :func:`structure_to_json`, leaf ``i`` replaced by ``leaves[i]``."""
    if "leaf" in data:
        return leaves[data["leaf"]]
    if "value" in data:
        return data["value"]
    if "dict" in data:
        return {k: structure_from_json(v, leaves) for k, v in data["dict"]}
    items = [structure_from_json(v, leaves) for v in data.get("tuple", data.get("list", []))]
    return tuple(items) if "tuple" in data else items
