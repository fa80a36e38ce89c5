"""The op registry: one :class:`OpSchema` per op type, and bound :class:`Op` instances.

An op is defined once, by :func:`defop` (or :func:`register` with a hand-made
schema): its inputs and outputs with type constraints, its attributes with
types, defaults and validation, and a *kernel factory*.  The factory takes the
op's attribute values as keyword arguments and returns the kernel, a function
``kernel(*inputs, out=None)`` of numpy arrays.  Binding the attributes once per
:class:`Op` lets a kernel precompute what it needs and keeps the per-call path
free of keyword handling.

Input and output specs are strings of space-separated entries ``NAME:TYPE``:

* ``NAME?:T`` marks an optional input (the kernel receives ``None``) or an
  optional output;
* ``NAME*:T`` marks a variadic last input (one or more values);
* ``TYPE`` is a key of the schema's ``types`` mapping (a type variable: all
  inputs of one variable share a dtype) or a dtype name such as ``int64``.

Op names, attribute names and conventions follow the ONNX operator of the same
name wherever ONNX has one.  Engine ops never promote dtypes.
"""

import numpy as np

from vfw.core import dtypes as _dt
from vfw.core.errors import (
    DTypeError,
    IndexOutOfRangeError,
    OpAttributeError,
    OpInputError,
    OutOfMemoryError,
    ShapeError,
    UnknownOpError,
    VfwError,
)
from vfw.core.proto import GraphDef
from vfw.core.values import is_container

REQUIRED = object()
"""Default of an attribute that has no default."""

_ATTR_KINDS = ("int", "float", "string", "ints", "floats", "strings", "tensor", "dtype", "graph", "any")


class Attr:
    """Declaration of one op attribute.

    Parameters
    ----------
    kind : str
        One of ``int``, ``float``, ``string``, ``ints``, ``floats``,
        ``strings``, ``tensor``, ``dtype``, ``graph`` (a :class:`~vfw.core.proto.GraphDef`: the
        subgraph of a control-flow op) or ``any``.
    default : object, optional
        Value used when the attribute is not given; :data:`REQUIRED` (the
        default) makes it mandatory, ``None`` makes it optional with no value.
    choices : iterable, optional
        The only values accepted.
    check : callable, optional
        ``check(value) -> str | None``; a returned string is the reason the
        value is rejected.
    """

    __slots__ = ("kind", "default", "choices", "check")

    def __init__(self, kind, default=REQUIRED, choices=None, check=None):
        if kind not in _ATTR_KINDS:
            raise ValueError(f"unknown attribute kind {kind!r}")
        self.kind = kind
        self.default = default
        self.choices = None if choices is None else frozenset(choices)
        self.check = check

    def coerce(self, op_type, name, value):
        """Return ``value`` converted to this attribute's canonical Python type.

        Raises
        ------
        OpAttributeError
            If ``value`` has the wrong type or fails validation.
        """
        if value is None:
            return None
        try:
            value = _COERCE[self.kind](value)
        except (TypeError, ValueError, VfwError) as exc:
            raise OpAttributeError(
                f"{op_type}: attribute '{name}' expects {self.kind}, got {value!r} ({exc})"
            ) from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(sorted(map(repr, self.choices)))
            raise OpAttributeError(f"{op_type}: attribute '{name}' must be one of {allowed}, got {value!r}")
        if self.check is not None:
            reason = self.check(value)
            if reason:
                raise OpAttributeError(f"{op_type}: attribute '{name}'={value!r}: {reason}")
        return value


def _as_int(v):
    if isinstance(v, (int, np.integer, np.bool_)):  # bool is an int
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    raise TypeError(f"not an integer: {type(v).__name__}")


def _as_float(v):
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    raise TypeError(f"not a number: {type(v).__name__}")


def _as_str(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, str):
        return v
    raise TypeError(f"not a string: {type(v).__name__}")


def _as_graph(v):
    if isinstance(v, GraphDef):
        return v
    raise TypeError(f"not a GraphDef: {type(v).__name__}")


def _seq(item):
    def conv(v):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise TypeError(f"not a sequence: {type(v).__name__}")
        return tuple(item(x) for x in v)

    return conv


_COERCE = {
    "int": _as_int,
    "float": _as_float,
    "string": _as_str,
    "ints": _seq(_as_int),
    "floats": _seq(_as_float),
    "strings": _seq(_as_str),
    "tensor": np.asarray,
    "dtype": _dt.as_dtype,
    "graph": _as_graph,
    "any": lambda v: v,
}


class Slot:
    """One input or output of a schema (parsed from a spec entry)."""

    __slots__ = ("name", "type", "optional", "variadic")

    def __init__(self, entry):
        name, _, typ = entry.partition(":")
        if not typ:
            raise ValueError(f"spec entry {entry!r} needs NAME:TYPE")
        self.optional = name.endswith("?")
        self.variadic = name.endswith("*")
        self.name = name.rstrip("?*")
        self.type = typ


class TensorInfo:
    """What shape inference knows of a tensor: shape (dims may be None), dtype, value."""

    __slots__ = ("shape", "dtype", "value")

    def __init__(self, shape, dtype, value=None):
        self.shape = None if shape is None else tuple(shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self.value = value

    def __repr__(self):
        return f"TensorInfo(shape={self.shape}, dtype={self.dtype})"

    def __eq__(self, other):
        return isinstance(other, TensorInfo) and (self.shape, self.dtype) == (other.shape, other.dtype)


def describe(x):
    """``float32[2, 3]`` style description of an array (or ``None``)."""
    if x is None:
        return "None"
    dtype = getattr(x, "dtype", None)
    shape = getattr(x, "shape", None)
    if dtype is None or shape is None:
        return type(x).__name__
    return f"{_dt.type_name(dtype)}[{', '.join(map(str, shape))}]"


class OpSchema:
    """Everything the engine knows about one op type.

    Parameters
    ----------
    op_type : str
        The op's name (the ONNX operator name where ONNX has one).
    inputs, outputs : str
        Space-separated slot specs (see the module docstring).
    types : dict[str, frozenset[numpy.dtype]]
        Type variables and the dtypes each accepts.
    attrs : dict[str, Attr], optional
        Attribute declarations.
    kernel : callable
        Kernel factory: ``kernel(**attrs) -> kernel_fn(*inputs, out=None)``.
    infer : callable, optional
        ``infer(attrs, infos) -> list[TensorInfo]`` for outputs.  Without it,
        shape inference runs the kernel on zero-filled stand-ins.
    value_inputs : tuple[str], optional
        Inputs whose *values* (not just shapes) decide output shapes (e.g. the
        ``shape`` input of Reshape).
    doc : str, optional
        One-line description.
    """

    def __init__(self, op_type, *, inputs, outputs, types=None, attrs=None, kernel=None,
                 infer=None, value_inputs=(), doc="", device="cpu"):
        self.op_type = op_type
        self.inputs = tuple(Slot(e) for e in inputs.split())
        self.outputs = tuple(Slot(e) for e in outputs.split())
        self.types = dict(types or {})
        self.attrs = dict(attrs or {})
        self.kernels = {}
        if kernel is not None:
            self.kernels[device] = kernel
        self.infer_fn = infer
        self.value_inputs = frozenset(value_inputs)
        self.doc = doc
        self.gradient = None  # gradient maker, filled by vfw.core.autograd
        self.differentiable = None  # True / False once autograd declares it
        for slot in self.inputs + self.outputs:
            if slot.type not in self.types:
                self.types[slot.type] = frozenset({_dt.as_dtype(slot.type)})
        if any(s.variadic for s in self.inputs[:-1]):
            raise ValueError(f"{op_type}: only the last input can be variadic")
        self.min_inputs = sum(1 for s in self.inputs if not s.optional and not s.variadic)
        self.min_inputs += 1 if self.inputs and self.inputs[-1].variadic else 0
        while self.min_inputs and self.inputs[self.min_inputs - 1].optional:
            self.min_inputs -= 1

    def __repr__(self):
        return f"OpSchema({self.op_type!r})"

    # -- attributes -------------------------------------------------------------
    def bind_attrs(self, attrs):
        """Validate ``attrs`` and return the complete attribute dict (defaults filled)."""
        for name in attrs:
            if name not in self.attrs:
                known = ", ".join(sorted(self.attrs)) or "none"
                raise OpAttributeError(f"{self.op_type}: unknown attribute '{name}' (known: {known})")
        bound = {}
        for name, decl in self.attrs.items():
            if name in attrs and attrs[name] is not None:
                bound[name] = decl.coerce(self.op_type, name, attrs[name])
            elif decl.default is REQUIRED:
                raise OpAttributeError(f"{self.op_type}: missing required attribute '{name}'")
            else:
                bound[name] = decl.default
        return bound

    # -- inputs -----------------------------------------------------------------
    def input_slot(self, i):
        """The slot that input position ``i`` fills."""
        if i < len(self.inputs):
            return self.inputs[i]
        return self.inputs[-1]

    def check_inputs(self, inputs):
        """Check input count and dtypes against the type constraints.

        Returns
        -------
        dict[str, numpy.dtype]
            The dtype bound to each type variable.

        Raises
        ------
        OpInputError, DTypeError
        """
        n = len(inputs)
        variadic = bool(self.inputs) and self.inputs[-1].variadic
        if n < self.min_inputs or (n > len(self.inputs) and not variadic):
            most = "or more" if variadic else f"to {len(self.inputs)}"
            raise OpInputError(f"{self.op_type}: expected {self.min_inputs} {most} inputs, got {n}")
        bound = {}
        for i, x in enumerate(inputs):
            slot = self.input_slot(i)
            if x is None:
                if not slot.optional:
                    raise OpInputError(f"{self.op_type}: input '{slot.name}' is required, got None")
                continue
            dtype = getattr(x, "dtype", None)
            if dtype is None or not hasattr(x, "shape"):
                raise DTypeError(
                    f"{self.op_type}: input '{slot.name}' must be a numpy array, got {type(x).__name__}"
                )
            allowed = self.types[slot.type]
            if dtype not in allowed:
                names = ", ".join(sorted(_dt.type_name(d) for d in allowed))
                raise DTypeError(
                    f"{self.op_type}: input '{slot.name}' has dtype {_dt.type_name(dtype)}, "
                    f"expected one of {names}"
                )
            first = bound.setdefault(slot.type, (dtype, slot.name))
            if first[0] != dtype:
                raise DTypeError(
                    f"{self.op_type}: inputs '{first[1]}' ({_dt.type_name(first[0])}) and "
                    f"'{slot.name}' ({_dt.type_name(dtype)}) must have the same dtype "
                    "(engine ops do not promote; cast first)"
                )
        return {k: v[0] for k, v in bound.items()}

    def input_names(self, n):
        """Display names of ``n`` inputs (variadic ones numbered)."""
        names = []
        for i in range(n):
            slot = self.input_slot(i)
            names.append(f"{slot.name}[{i - len(self.inputs) + 1}]" if slot.variadic else slot.name)
        return names

    def kernel_error(self, inputs, attrs, exc):
        """Turn an exception raised inside a kernel into a descriptive vfw error."""
        described = ", ".join(f"{name}: {describe(x)}" for name, x in zip(self.input_names(len(inputs)), inputs))
        shown = {k: f"<graph {v.name!r}>" if isinstance(v, GraphDef) else v for k, v in attrs.items()
                 if v is not None and not isinstance(v, np.ndarray)}
        where = f"{self.op_type}({described}" + (f"; {shown})" if shown else ")")
        msg = f"{where}: {exc}"
        if isinstance(exc, IndexError):
            return IndexOutOfRangeError(msg)
        if isinstance(exc, MemoryError) or "too big" in str(exc):
            return OutOfMemoryError(msg)
        if isinstance(exc, TypeError):
            return DTypeError(msg)
        return ShapeError(msg)

    # -- inference --------------------------------------------------------------
    def infer(self, attrs, infos):
        """Infer output :class:`TensorInfo` from input infos (``None`` for absent inputs).

        Parameters
        ----------
        attrs : dict
            Bound attributes (see :meth:`bind_attrs`).
        infos : list[TensorInfo or None]
            One per input.

        Returns
        -------
        list[TensorInfo]
            One per declared output; unknown shapes are ``None``, unknown dims
            ``None``.
        """
        self.check_inputs([None if i is None else _Probe(i) for i in infos])
        if self.infer_fn is not None:
            return self.infer_fn(attrs, infos)
        return self._infer_by_running(attrs, infos)

    def _infer_by_running(self, attrs, infos):
        stand_ins = []
        for i, info in enumerate(infos):
            if info is None:
                stand_ins.append(None)
            elif info.value is not None:
                stand_ins.append(np.asarray(info.value))
            elif self.input_slot(i).name in self.value_inputs or info.shape is None or None in info.shape:
                return [self._unknown_output(infos, slot) for slot in self.outputs]
            else:
                stand_ins.append(np.zeros(info.shape, info.dtype))
        results = self.instance(attrs)(*stand_ins)
        if not isinstance(results, tuple):
            results = (results,)
        return [TensorInfo(r.shape, r.dtype) if r is not None else None for r in results]

    def _unknown_output(self, infos, slot):
        bound = {}
        for i, info in enumerate(infos):
            if info is not None:
                bound.setdefault(self.input_slot(i).type, info.dtype)
        dtype = bound.get(slot.type)
        if dtype is None and len(self.types[slot.type]) == 1:
            dtype = next(iter(self.types[slot.type]))
        return TensorInfo(None, dtype)

    # -- kernels ----------------------------------------------------------------
    def instance(self, attrs, device="cpu"):
        """Bind already-validated ``attrs`` to this op's kernel for ``device``."""
        factory = self.kernels.get(device)
        if factory is None:
            raise UnknownOpError(f"{self.op_type}: no kernel for device '{device}'")
        return Op(self, attrs, factory(**attrs))


class _Probe:
    """Array stand-in carrying only a dtype and shape, for input checks in inference."""

    __slots__ = ("dtype", "shape")

    def __init__(self, info):
        self.dtype = info.dtype
        self.shape = info.shape


class Op:
    """An op type bound to attribute values: the unit the executors call.

    Calling it runs the kernel on numpy arrays: ``op(*inputs, out=None)``
    returns an ndarray (never a numpy scalar), or a tuple of them for ops with
    several outputs (absent optional outputs are ``None``); sequence and optional values
    (:mod:`vfw.core.values`) pass through as they are.  Input dtypes are checked once per
    dtype signature; kernel failures become descriptive vfw errors.
    """

    __slots__ = ("schema", "attrs", "kernel", "_signatures", "__weakref__")

    def __init__(self, schema, attrs, kernel):
        self.schema = schema
        self.attrs = attrs
        self.kernel = kernel
        self._signatures = set()

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items() if v is not None)
        return f"Op({self.schema.op_type}{', ' + shown if shown else ''})"

    def __call__(self, *inputs, out=None):
        try:
            # (one and two inputs, most calls, without a comprehension's frame)
            n = len(inputs)
            signature = (inputs[0].dtype, inputs[1].dtype) if n == 2 else (inputs[0].dtype,) if n == 1 else \
                tuple([x.dtype for x in inputs])
        except AttributeError:  # absent optional inputs (None), or a non-array (a sequence, an optional, a mistake)
            signature = tuple([None if x is None else getattr(x, "dtype", type(x)) for x in inputs])
        if signature not in self._signatures:
            self.schema.check_inputs(inputs)
            self._signatures.add(signature)
        try:
            result = self.kernel(*inputs) if out is None else self.kernel(*inputs, out=out)
        except VfwError:
            raise
        except Exception as exc:
            raise self.schema.kernel_error(inputs, self.attrs, exc) from exc
        if type(result) is np.ndarray:
            return result
        # numpy ufuncs and reductions give scalars for 0-d results: outputs are always arrays.
        if type(result) is tuple:
            return tuple(r if r is None or type(r) is np.ndarray or is_container(r) else np.asarray(r)
                         for r in result)
        return result if is_container(result) else np.asarray(result)


_REGISTRY = {}


def register(schema, replace=False):
    """Add ``schema`` to the registry and return it.

    Parameters
    ----------
    schema : OpSchema
    replace : bool
        Allow replacing an existing op type (otherwise a ``ValueError``).
    """
    if schema.op_type in _REGISTRY and not replace:
        raise ValueError(f"op type {schema.op_type!r} is already registered")
    _REGISTRY[schema.op_type] = schema
    return schema


def defop(op_type, *, inputs, outputs, types=None, attrs=None, infer=None, value_inputs=(),
          device="cpu", replace=False):
    """Decorator that registers an op whose kernel factory is the decorated function.

    Examples
    --------
    >>> @defop("Scale", inputs="X:T", outputs="Y:T", types={"T": FLOATS},
    ...        attrs={"factor": Attr("float", 1.0)})
    ... def scale(factor):
    ...     def kernel(x, out=None):
    ...         return np.multiply(x, factor, out=out)
    ...     return kernel
    """

    def wrap(factory):
        doc = (factory.__doc__ or "").strip().splitlines()
        register(OpSchema(op_type, inputs=inputs, outputs=outputs, types=types, attrs=attrs,
                          kernel=factory, infer=infer, value_inputs=value_inputs,
                          doc=doc[0] if doc else "", device=device), replace=replace)
        return factory

    return wrap


def register_kernel(op_type, device, factory):
    """Add a kernel factory for another device to an existing op type."""
    get_schema(op_type).kernels[device] = factory


def get_schema(op_type):
    """Return the :class:`OpSchema` of ``op_type``.

    Raises
    ------
    UnknownOpError
        If no such op is registered.
    """
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise UnknownOpError(f"unknown op type {op_type!r}") from None


def op_types():
    """Sorted names of all registered op types."""
    return sorted(_REGISTRY)


def _freeze(value):
    if isinstance(value, GraphDef):  # protobuf messages are unhashable: a subgraph is keyed by its bytes
        return ("graph", value.SerializeToString(deterministic=True))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def op_key(op_type, attrs, device="cpu"):
    """Hashable cache key of an op type with attribute values."""
    return (op_type, device, _freeze(attrs) if attrs else ())


def make_op(op_type, attrs=None, device="cpu"):
    """Validate ``attrs`` and return a new :class:`Op` (uncached)."""
    schema = get_schema(op_type)
    return schema.instance(schema.bind_attrs(attrs or {}), device)
