"""Keras' dtype names and type promotion (``keras.backend.standardize_dtype`` / ``result_type``).

Keras ops promote dtypes numpy-style over a lattice (JAX's): bool < weak int < (u)int8...
< weak float < bfloat16/float16 < float32 < float64, with complex above.  Python ``int`` and
``float`` are *weak* types: they take the other operand's kind and precision (``int8 + int`` is
int8) and, alone, resolve to ``floatx()``'s precision.  On the TensorFlow backend 64-bit results
stay 64-bit except uint64, which becomes uint32, and complex128, which becomes complex64.
"""

import functools

from vfw.frontends.tensorflow.keras.src.backend import config

INT_TYPES = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
FLOAT8_TYPES = ("float8_e4m3fn", "float8_e5m2")
ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                  "int64", "bfloat16", "bool", "string", "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
# Python types and aliases Keras accepts in place of a dtype name (TF backend: int is int64).
_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float32", str: "string", "int": "int64",
                  complex: "complex128"}

_WEAK_INT, _WEAK_FLOAT = "int", "float"
# Each type's immediate successors on the promotion lattice.
_LATTICE = {
    "bool": [_WEAK_INT],
    _WEAK_INT: ["uint8", "int8", "complex64"],
    "uint8": ["int16", "uint16"], "uint16": ["int32", "uint32"], "uint32": ["int64", "uint64"],
    "uint64": [_WEAK_FLOAT],
    "int8": ["int16"], "int16": ["int32"], "int32": ["int64"], "int64": [_WEAK_FLOAT],
    _WEAK_FLOAT: ["bfloat16", "float16"],
    "bfloat16": ["float32"], "float16": ["float32"], "float32": ["float64", "complex64"],
    "float64": ["complex128"], "complex64": ["complex128"], "complex128": [],
}


def _upper_bounds():
    """Every type's set of types at or above it on the lattice."""
    bounds = {}

    def above(node):
        if node not in bounds:
            bounds[node] = {node}.union(*(above(successor) for successor in _LATTICE[node]))
        return bounds[node]

    for node in _LATTICE:
        above(node)
    return bounds


_UPPER_BOUNDS = _upper_bounds()
# TF keeps int64/float64 results; these 64-bit results narrow.
_NARROWED = {"uint64": "uint32", "complex128": "complex64"}


def standardize_dtype(dtype):
    """``dtype`` (a name, a Python type, a numpy or TF dtype; None: ``floatx()``) as Keras' dtype name.

    Raises
    ------
    ValueError
        ``Invalid dtype: ...`` for anything that names no Keras dtype.
    """
    if dtype is None:
        return config.floatx()
    try:
        dtype = _PYTHON_DTYPES.get(dtype, dtype)
    except TypeError:  # unhashable
        pass
    if hasattr(dtype, "name"):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if not isinstance(dtype, str) or dtype not in ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


def is_float_dtype(dtype):
    """Whether ``dtype`` is a float type (bfloat16, float16/32/64, float8)."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype):
    """Whether ``dtype`` is a signed or unsigned integer type."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


def _weak_kind(dtype):
    """The weak type of ``dtype``'s kind (bool stays bool)."""
    if dtype == "bool":
        return dtype
    if "float" in dtype:
        return _WEAK_FLOAT
    if "int" in dtype:
        return _WEAK_INT
    raise ValueError(f"Invalid value for argument `dtype`. Expected one of {ALLOWED_DTYPES}. Received: dtype={dtype}")


@functools.lru_cache(512)
def _least_upper_bound(*nodes):
    """The lowest type every one of ``nodes`` promotes to."""
    unknown = [node for node in nodes if node not in _UPPER_BOUNDS]
    if unknown:
        raise ValueError(f"dtype={unknown[0]!r} is not a valid dtype for Keras type promotion.")
    common = set.intersection(*(_UPPER_BOUNDS[node] for node in nodes))
    lowest = (common & set(nodes)) or {c for c in common if common <= _UPPER_BOUNDS[c]}
    if len(lowest) != 1:
        raise ValueError(f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit dtype promotion "
                         "path. Try explicitly casting inputs to the desired output type.")
    return lowest.pop()


def _resolve_weak(dtype):
    """A weak result (a weak type or a Python type's name) as its kind at ``floatx()``'s precision."""
    bits = config.floatx()[-2:]
    kind = "f" if dtype == "bfloat16" else dtype[0]
    return {"b": "bool", "i": f"int{bits}", "u": f"uint{bits}"}.get(kind, f"float{bits}")


def result_type(*dtypes):
    """The dtype Keras ops give a result computed from operands of ``dtypes``.

    Parameters
    ----------
    *dtypes : dtype-like
        Dtype names, numpy/TF dtypes, or the Python types ``int``/``float``/``bool`` (weak types:
        they adopt the other operands' kind and width).  None stands for ``floatx()``.

    Returns
    -------
    str
        No arguments: ``floatx()``.

    Raises
    ------
    ValueError
        For float8 types (never promoted implicitly) and invalid dtypes.
    """
    try:
        return _cached_result_type(config.floatx(), dtypes)
    except TypeError:  # an unhashable dtype-like: not cached
        return _result_type(*dtypes)


@functools.lru_cache(1024)
def _cached_result_type(floatx, dtypes):
    """``result_type`` memoized per ``floatx()`` (the weak types resolve to its precision)."""
    return _result_type(*dtypes)


def _result_type(*dtypes):
    if not dtypes:
        return config.floatx()
    if any(isinstance(d, str) and d in FLOAT8_TYPES for d in dtypes):
        raise ValueError(f"There is no implicit conversions from float8 dtypes to others. You must cast it internally."
                         f" Received: {dtypes}")
    dtypes = [config.floatx() if d is None else d for d in dtypes]
    weak = [d is int or d is float for d in dtypes]
    names = [standardize_dtype(d) for d in dtypes]
    if len(names) == 1 or (len(set(names)) == 1 and not all(weak)):
        out, out_weak = names[0], weak[0] and len(names) == 1
    elif all(weak):
        out, out_weak = _least_upper_bound(*sorted(set(names))), True
    else:
        nodes = {_weak_kind(n) if w else n for n, w in zip(names, weak)}
        out = _least_upper_bound(*sorted(nodes))
        out_weak = out in (_WEAK_INT, _WEAK_FLOAT)
    if out_weak and out != "bool":
        out = _resolve_weak(out)
    return _NARROWED.get(out, out)
