"""Dynamic axes: turning the constants a concrete trace baked from input sizes into shape arithmetic.

vfw traces concretely: ``x.view(x.size(0), -1)`` records a ``Reshape`` to the constant
``[2, 64]``.  To export a graph whose inputs have symbolic dims, the model is traced again with
each symbolic dim changed (:func:`perturbed_sizes`: one or two more than the example's size, or twice and three
times it where the model refuses those), and the traces are compared:

* the ops must be the same (type, inputs, outputs, attributes): a model whose operations change
  with a size (Python control flow on shapes) cannot be generalized and is refused (the error's ``values`` name
  the outputs of the first op that differs, for the frontends to name the layer that made it); strided windows
  with TF's ``"same"`` padding, whose pads change with a size, are first rewritten with ``auto_pad="SAME_UPPER"``
  (:mod:`._export_same`);
* a constant that differs between the traces is rebuilt from ``Shape`` ops of the inputs:
  an integer vector (or scalar) element by element, each varying element fitted as
  ``a * (product of the symbols it depends on) + b`` or ``b + sum(a_i * symbol_i)`` with
  integer coefficients that must reproduce every trace; a float scalar that is such a formula,
  its reciprocal, square root or reciprocal square root (a mean's ``1 / n``), or else ``b + sum(a_i * symbol_i)``
  with real coefficients (``x.shape[0] * 0.5``, computed in double precision as Python does); a tensor
  filled with one value whose shape varies becomes ``ConstantOfShape`` (``Expand`` of the rebuilt value when the
  value varies too, ``torch.full((n,), 1 / n)``); a ramp ``start, start + step, ...`` (integer start and
  step) whose length varies becomes ``Range``; an integer that none of these fits may be one of floor divisions
  of the sizes (:mod:`._export_floor`).  Anything else (a mask built in numpy from a size...) is
  refused, naming the op that reads it;
* dims of values that differ between traces become unknown (-1) in the value infos, or the
  symbol's name where a dim equals a symbol in every trace.

Average and max pools whose window is the whole input (``AdaptiveAvgPool2d(1)``) are written as
``GlobalAveragePool`` / ``GlobalMaxPool`` first (:func:`global_pools`), so their window size is
not an attribute baked from the traced size.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.ir import make_opdef, opdef_attrs, proto_to_tensor, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo
from vfw.onnx_io._export import ExportError
from vfw.onnx_io._export_floor import fit_floor, floor_formula
from vfw.onnx_io._export_same import same_padded

PERTURBATIONS = (1, 2)
"""Each symbolic dim is traced again at its example size plus each of these..."""

MULTIPLES = (2, 3)
"""...or, where the model refuses those sizes (a U-Net takes sizes divisible by its total downsampling, as the
example's), at these multiples of the example size."""


def perturbed_sizes(size):
    """The sizes to trace a symbolic dim again at, given its example ``size``: candidate tuples, tried in order
    until the model accepts every size of one."""
    candidates = [tuple(size + step for step in PERTURBATIONS)]
    if size > 1:
        candidates.append(tuple(size * k for k in MULTIPLES))
    return candidates


def _describe(op):
    return f"{op.type} (producing {', '.join(o for o in op.output if o) or 'nothing'})"


def _same_op(a, b):
    if (a.type, list(a.input), list(a.output)) != (b.type, list(b.input), list(b.output)):
        return False
    attrs_a, attrs_b = opdef_attrs(a), opdef_attrs(b)
    if a.type == "PyFunc":  # each trace registers its callback anew; the export refuses PyFunc anyway
        attrs_a.pop("token", None)
        attrs_b.pop("token", None)
    if attrs_a.keys() != attrs_b.keys():
        return False
    for key, value in attrs_a.items():
        other = attrs_b[key]
        if isinstance(value, GraphDef):
            if not _same_subgraph(value, other):
                return False
        elif isinstance(value, np.ndarray):
            if value.shape != other.shape or not np.array_equal(value, other):
                return False
        elif value != other:
            return False
    return True


def _same_subgraph(a, b):
    """Same ops and constants (value infos may differ: they hold the traced sizes)."""
    if len(a.op) != len(b.op) or list(a.input) != list(b.input) or list(a.output) != list(b.output):
        return False
    if [t.SerializeToString() for t in a.initializer] != [t.SerializeToString() for t in b.initializer]:
        return False
    return all(_same_op(x, y) for x, y in zip(a.op, b.op))


def global_pools(graph):
    """Rewrite (in place) the average and max pools whose window is the whole input as GlobalAveragePool /
    GlobalMaxPool: the same values, with no window size to bake in (``AdaptiveAvgPool2d(1)``...)."""
    dims = {vi.name: list(vi.dims) for vi in graph.value_info}
    read = {n for op in graph.op for n in op.input} | set(graph.output)
    for op in graph.op:
        if op.type not in ("AveragePool", "MaxPool") or any(n in read for n in op.output[1:]):
            continue  # a max pool's indices have no global form
        attrs = opdef_attrs(op)
        spatial = dims.get(op.input[0], [])[2:]
        whole = list(attrs.get("kernel_shape", ())) == spatial and not any(attrs.get("pads") or ()) and \
            all(d == 1 for d in attrs.get("dilations") or ()) and attrs.get("auto_pad", "NOTSET") == "NOTSET"
        if whole and spatial and all(d > 0 for d in spatial):
            op.type = "Global" + op.type
            del op.arg[:]
            del op.output[1:]
    return graph


def _check_same_ops(base, graph, when, cause, advice):
    """Raise ExportError unless ``graph`` (traced ``when``) records the ops ``base`` records."""
    first = next((k for k, (op, other) in enumerate(zip(base.op, graph.op)) if not _same_op(op, other)), None)
    if first is None and (len(graph.op) != len(base.op) or list(graph.output) != list(base.output)):
        at = min(len(base.op), len(graph.op))  # the first op only one of them records
        extra = base.op[at] if at < len(base.op) else graph.op[at] if at < len(graph.op) else None
        raise _at_values(ExportError(f"ONNX export: the model records other operations when {when} (Python "
                                     f"control flow on {cause}?); {advice}"), extra)
    if first is not None:
        op, other = base.op[first], graph.op[first]
        raise _at_values(ExportError(f"ONNX export: the model records other operations when {when}: {_describe(op)} "
                                     f"becomes {_describe(other)} (Python control flow on {cause}, or an attribute "
                                     f"computed from it?); {advice}"), op)


def _at_values(error, op):
    """``error`` pointing at the outputs of ``op`` (its ``values``: the exporter names the layer that made them)."""
    error.values = list(op.output) if op is not None else []
    return error


def check_value_independent(base, other):
    """Refuse a trace whose constants depend on the input values (``other``: traced with other values).

    Such a constant is a value computed outside the engine's ops (``x.item()``, numpy code on a
    tensor's values) that the graph would replay frozen, giving wrong results for other inputs.
    """
    advice = "the graph would replay the traced values for every input, so it is not exported"
    _check_same_ops(base, other, "traced with other input values", "tensor values", advice)
    readers = {}
    for op in base.op:
        for n in op.input:
            readers.setdefault(n, op)
    theirs = {t.name: t.SerializeToString() for t in other.initializer}
    for proto in base.initializer:
        if theirs.get(proto.name) != proto.SerializeToString():
            reader = readers.get(proto.name)
            where = f"input {proto.name!r} of {_describe(reader)}" if reader is not None else \
                f"constant {proto.name!r}"
            raise ExportError(f"ONNX export: {where} depends on the input values but was computed outside the graph "
                              f"(Python or numpy code on tensor values, such as .item() or .numpy()); {advice}")


class _Symbols:
    """The symbolic dims: where to read each one at run time, and the ops reading them (emitted once)."""

    def __init__(self, sources, graph):
        self.sources = sources  # symbol -> (input name, axis)
        self.graph = graph
        self.ops = []
        self._dims = {}
        self._count = 0

    def fresh(self, hint):
        self._count += 1
        return f"{hint}_dyn{self._count}"

    def constant(self, array):
        array = np.asarray(array)
        name = self.fresh("const")
        self.graph.initializer.append(tensor_to_proto(array, name))
        self.graph.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(array.dtype), dims=array.shape))
        return name

    def op(self, op_type, inputs, dims=(1,), dtype=dt.int64, **attrs):
        """Append an op computing a value of ``dims`` (-1: varies) and ``dtype``; returns its name."""
        name = self.fresh(op_type.lower())
        self.ops.append(make_opdef(op_type, inputs, [name], **attrs))
        self.graph.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(dtype), dims=list(dims)))
        return name

    def dim(self, symbol):
        """A ``[1]`` int64 value holding the symbol's size."""
        name = self._dims.get(symbol)
        if name is None:
            source, axis = self.sources[symbol]
            name = self._dims[symbol] = self.op("Shape", [source], start=axis, end=axis + 1)
        return name


def _fit(samples, symbols):
    """An integer formula for one varying element: ``("prod", a, b, syms)`` or ``("sum", {sym: a}, b)``.

    ``samples``: ``[(sizes, value)]`` with the base trace first, then traces that each change one
    symbol.  Returns ``None`` when neither form reproduces every sample.
    """
    (base_sizes, base_value), rest = samples[0], samples[1:]
    depends = [s for s in symbols if any(sz[s] != base_sizes[s] and v != base_value for sz, v in rest)]
    if not depends:
        return None

    def prod(sizes):
        return int(np.prod([sizes[s] for s in depends]))

    def integral(x):
        return float(x).is_integer()

    sizes1, value1 = next((sz, v) for sz, v in rest if sz[depends[0]] != base_sizes[depends[0]])
    slope = (value1 - base_value) / (prod(sizes1) - prod(base_sizes))
    if integral(slope):
        a, b = int(slope), base_value - int(slope) * prod(base_sizes)
        if all(a * prod(sz) + b == v for sz, v in samples):
            return ("prod", a, b, depends)
    coefficients = {}
    for s in depends:
        sz, v = next((sz, v) for sz, v in rest if sz[s] != base_sizes[s])
        slope = (v - base_value) / (sz[s] - base_sizes[s])
        if not integral(slope):
            return None
        coefficients[s] = int(slope)
    b = base_value - sum(a * base_sizes[s] for s, a in coefficients.items())
    if all(b + sum(a * sz[s] for s, a in coefficients.items()) == v for sz, v in samples):
        return ("sum", coefficients, b)
    return None


def _formula(symbols, fitted):
    """A ``[1]`` int64 value computing a fitted formula."""
    if fitted[0] in ("floor_prod", "floor_sum"):
        return floor_formula(symbols, fitted, lambda ints: symbols.constant(np.asarray(ints, np.int64)))
    if fitted[0] == "prod":
        _, a, b, depends = fitted
        value = symbols.dim(depends[0])
        for s in depends[1:]:
            value = symbols.op("Mul", [value, symbols.dim(s)])
        if a != 1:
            value = symbols.op("Mul", [value, symbols.constant(np.asarray([a], np.int64))])
    else:
        _, coefficients, b = fitted
        value = None
        for s, a in coefficients.items():
            term = symbols.dim(s) if a == 1 else symbols.op("Mul", [symbols.dim(s), symbols.constant(
                np.asarray([a], np.int64))])
            value = term if value is None else symbols.op("Add", [value, term])
    if b:
        value = symbols.op("Add", [value, symbols.constant(np.asarray([b], np.int64))])
    return value


def _int_vector(symbols, arrays, sizes, where):
    """A value computing an integer scalar/vector constant whose elements vary with the symbols."""
    base = arrays[0]
    flat = [a.reshape(-1) for a in arrays]
    pieces, run = [], []
    for k in range(base.size):
        values = [int(f[k]) for f in flat]
        if all(v == values[0] for v in values):
            run.append(values[0])
            continue
        samples = list(zip(sizes, values))
        fitted = _fit(samples, list(symbols.sources)) or fit_floor(samples, list(symbols.sources))
        if fitted is None:
            raise ExportError(f"ONNX export: {where} holds a size ({values[0]} when traced) that no integer formula "
                              "of the dynamic axes reproduces; export with these axes static")
        if run:
            pieces.append(symbols.constant(np.asarray(run, np.int64)))
            run = []
        pieces.append(_formula(symbols, fitted))
    if run:
        pieces.append(symbols.constant(np.asarray(run, np.int64)))
    value = pieces[0] if len(pieces) == 1 else symbols.op("Concat", pieces, dims=(base.size,), axis=0)
    if base.ndim == 0:
        value = symbols.op("Squeeze", [value, symbols.constant(np.asarray([0], np.int64))], dims=())
    if base.dtype != np.int64:
        value = symbols.op("Cast", [value], dims=base.shape, dtype=base.dtype, to=dt.onnx_code(base.dtype))
    return value


def _uniform(array):
    return array.size > 0 and bool((array == array.reshape(-1)[0]).all())


def _ramp(array):
    """``(start, step)`` of a 1-D array ``start + step * k`` with integer start and step (None otherwise)."""
    if array.ndim != 1 or array.dtype.kind not in "iuf" or array.size < 2:
        return None
    start, step = array[0], array[1] - array[0]
    if not (float(start).is_integer() and float(step).is_integer()):
        return None
    start, step = int(start), int(step)
    return (start, step) if np.array_equal(array, start + step * np.arange(array.size)) else None


# A float scalar computed from sizes (a mean's 1/n, a standard deviation's sqrt(n - 1)...): the inverse
# transform that makes it an integer, and the ops that go back.
_FLOAT_FORMS = (
    (lambda v: v, ()),
    (lambda v: 1 / v, ("Reciprocal",)),
    (lambda v: v * v, ("Sqrt",)),
    (lambda v: 1 / (v * v), ("Sqrt", "Reciprocal")),
)


def _float_scalar(symbols, arrays, sizes, where):
    """A value computing a float scalar that is an integer formula of the sizes under one of :data:`_FLOAT_FORMS`
    (``None`` when none fits)."""
    values = [float(a.reshape(-1)[0]) for a in arrays]
    if any(v == 0 or not np.isfinite(v) for v in values):
        return None
    for inverse, ops in _FLOAT_FORMS:
        integers = [inverse(v) for v in values]
        if not all(abs(g - round(g)) <= 1e-5 * max(1.0, abs(g)) for g in integers):
            continue
        samples = list(zip(sizes, [round(g) for g in integers]))
        if _fit(samples, list(symbols.sources)) is None and fit_floor(samples, list(symbols.sources)) is None:
            continue
        dtype = arrays[0].dtype
        value = _int_vector(symbols, [np.asarray(round(g), np.int64) for g in integers], sizes, where)
        value = symbols.op("Cast", [value], dims=(), dtype=dtype, to=dt.onnx_code(dtype))
        for op_type in ops:
            value = symbols.op(op_type, [value], dims=(), dtype=dtype)
        return value if arrays[0].ndim == 0 else symbols.op(
            "Reshape", [value, symbols.constant(np.asarray(arrays[0].shape, np.int64))], dims=arrays[0].shape,
            dtype=dtype)
    return _affine_float(symbols, values, sizes, arrays[0])


def _fit_real(samples, symbols):
    """``_fit``'s formulas with real coefficients (``x.shape[0] * 0.5``, ``1.5 * n - 2``), or ``None``: the
    values are float32 or float64 roundings of what Python computed in double precision."""
    (base_sizes, base_value), rest = samples[0], samples[1:]
    depends = [s for s in symbols if any(sz[s] != base_sizes[s] and v != base_value for sz, v in rest)]
    if not depends:
        return None

    def close(a, b):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))

    coefficients = {}
    for s in depends:
        sz, v = next((sz, v) for sz, v in rest if sz[s] != base_sizes[s])
        coefficients[s] = (v - base_value) / (sz[s] - base_sizes[s])
    b = base_value - sum(a * base_sizes[s] for s, a in coefficients.items())
    if all(close(b + sum(a * sz[s] for s, a in coefficients.items()), v) for sz, v in samples):
        return coefficients, b
    return None


def _affine_float(symbols, values, sizes, base):
    """A value computing a float scalar ``b + sum(a_i * symbol_i)`` with real coefficients, in double precision
    as Python computes it, cast to the constant's dtype (``None`` when the samples fit no such formula)."""
    fitted = _fit_real(list(zip(sizes, values)), list(symbols.sources))
    if fitted is None:
        return None
    coefficients, b = fitted
    double = np.dtype(np.float64)
    value = None
    for s, a in coefficients.items():
        term = symbols.op("Cast", [symbols.dim(s)], dtype=double, to=dt.onnx_code(double))
        if a != 1:
            term = symbols.op("Mul", [term, symbols.constant(np.asarray([a], double))], dtype=double)
        value = term if value is None else symbols.op("Add", [value, term], dtype=double)
    if b:
        value = symbols.op("Add", [value, symbols.constant(np.asarray([b], double))], dtype=double)
    value = symbols.op("Cast", [value], dtype=base.dtype, to=dt.onnx_code(base.dtype))
    return symbols.op("Reshape", [value, symbols.constant(np.asarray(base.shape, np.int64))], dims=base.shape,
                      dtype=base.dtype)


def _rebuilt(symbols, name, arrays, sizes, where):
    """The name of a value computing the varying constant ``name`` (see the module docstring)."""
    base = arrays[0]
    if base.dtype.kind in "iu" and base.ndim <= 1 and all(a.shape == base.shape for a in arrays):
        return _int_vector(symbols, arrays, sizes, where)
    if base.dtype.kind == "f" and base.size == 1 and all(a.shape == base.shape for a in arrays):
        value = _float_scalar(symbols, arrays, sizes, where)
        if value is not None:
            return value
    shapes = [np.asarray(a.shape, np.int64) for a in arrays]
    if len({a.ndim for a in arrays}) == 1 and all(_uniform(a) for a in arrays) and \
            all(a.reshape(-1)[0] == base.reshape(-1)[0] for a in arrays):
        shape = _int_vector(symbols, shapes, sizes, where)
        varying = [-1 if len({a.shape[k] for a in arrays}) > 1 else base.shape[k] for k in range(base.ndim)]
        return symbols.op("ConstantOfShape", [shape], dims=varying, dtype=base.dtype, value=base.reshape(-1)[:1])
    if base.ndim and len({a.ndim for a in arrays}) == 1 and all(_uniform(a) for a in arrays):  # 1 / n fills
        fill = _rebuilt(symbols, name, [a.reshape(-1)[:1].reshape(()) for a in arrays], sizes, where)
        shape = _int_vector(symbols, shapes, sizes, where)
        varying = [-1 if len({a.shape[k] for a in arrays}) > 1 else base.shape[k] for k in range(base.ndim)]
        return symbols.op("Expand", [fill, shape], dims=varying, dtype=base.dtype)
    ramps = [_ramp(a) for a in arrays]
    if ramps[0] is not None and all(r == ramps[0] for r in ramps):
        start, step = ramps[0]
        length = _int_vector(symbols, [np.asarray(a.size, np.int64) for a in arrays], sizes, where)
        limit = symbols.op("Add", [symbols.op("Mul", [length, symbols.constant(np.asarray(step, np.int64))], dims=()),
                                   symbols.constant(np.asarray(start, np.int64))], dims=())
        value = symbols.op("Range", [symbols.constant(np.asarray(start, np.int64)), limit,
                                     symbols.constant(np.asarray(step, np.int64))], dims=(-1,))
        return value if base.dtype == np.int64 else symbols.op("Cast", [value], dims=(-1,), dtype=base.dtype,
                                                               to=dt.onnx_code(base.dtype))
    raise ExportError(f"ONNX export: {where} is a constant whose values depend on the dynamic axes (traced with "
                      f"shape {list(base.shape)}), and vfw cannot rebuild it from the input shapes; export with these "
                      "axes static, or compute it with tensor operations")


def generalize(base, variants, sources, base_sizes):
    """Rebuild the size-dependent constants of ``base`` from the inputs' shapes.

    Parameters
    ----------
    base : GraphDef
        The graph traced on the example inputs (self-contained: weights are initializers).
    variants : list[tuple[GraphDef, dict[str, int]]]
        The same model traced with other sizes, and each symbol's size in that trace.
    sources : dict[str, tuple[str, int]]
        Symbol -> ``(graph input, axis)`` to read it from.
    base_sizes : dict[str, int]

    Returns
    -------
    GraphDef
        ``base`` with the varying constants computed at run time, and the dims that varied
        unknown (-1) in its value infos.

    Raises
    ------
    ExportError
        When the traces differ in their ops, or a varying constant cannot be rebuilt.
    """
    base, variants = same_padded(base, variants)  # TF's "same" pads of strided windows: auto_pad SAME_UPPER
    for graph, sizes in variants:
        changed = ", ".join(f"{s}={v}" for s, v in sizes.items() if v != base_sizes[s])
        _check_same_ops(base, graph, f"traced with {changed}", "a dynamic size",
                        "it cannot be exported with these dynamic axes")
    out = GraphDef()
    out.CopyFrom(base)
    symbols = _Symbols(sources, out)
    all_sizes = [base_sizes] + [sizes for _, sizes in variants]
    readers = {}
    for op in base.op:
        for n in op.input:
            readers.setdefault(n, op)
    values = [{t.name: t for t in g.initializer} for g, _ in variants]
    rebuilt = {}
    for proto in base.initializer:
        others = [v.get(proto.name) for v in values]
        if any(o is None for o in others):
            raise ExportError(f"ONNX export: the constant {proto.name!r} exists only in some traces")
        if all(o.SerializeToString() == proto.SerializeToString() for o in others):
            continue
        arrays = [proto_to_tensor(proto)] + [proto_to_tensor(o) for o in others]
        reader = readers.get(proto.name)
        where = f"input {proto.name!r} of {_describe(reader)}" if reader is not None else f"constant {proto.name!r}"
        try:
            rebuilt[proto.name] = _rebuilt(symbols, proto.name, arrays, all_sizes, where)
        except ExportError as e:
            _at_values(e, reader)
            raise
    if rebuilt:
        kept = [t for t in out.initializer if t.name not in rebuilt]
        del out.initializer[:]
        out.initializer.extend(kept)
        for op in out.op:
            op.input[:] = [rebuilt.get(n, n) for n in op.input]
        out.output[:] = [rebuilt.get(n, n) for n in out.output]
        ops = list(symbols.ops) + list(out.op)
        del out.op[:]
        out.op.extend(ops)
    _loosen_dims(out, [g for g, _ in variants])
    return out


def _loosen_dims(graph, variants):
    """Mark unknown (-1) the dims of value infos that differ between the traces."""
    others = [{vi.name: vi for vi in g.value_info} for g in variants]
    for vi in graph.value_info:
        dims = list(vi.dims)
        for table in others:
            other = table.get(vi.name)
            if other is None or len(other.dims) != len(dims):
                dims = [-1] * len(dims)
                break
            dims = [d if d == o else -1 for d, o in zip(dims, other.dims)]
        vi.dims[:] = dims


def symbol_dims(graph, variants, base_sizes, all_sizes, names):
    """For the values ``names``: ``{name: {axis: symbol}}`` where a dim equals a symbol in every trace."""
    tables = [{vi.name: list(vi.dims) for vi in g.value_info} for g in [graph] + list(variants)]
    found = {}
    for name in names:
        rows = [t.get(name) for t in tables]
        if any(r is None for r in rows):
            continue
        for axis in range(len(rows[0])):
            for symbol in base_sizes:
                if all(len(r) > axis and r[axis] == sizes[symbol] for r, sizes in zip(rows, all_sizes)) and \
                        len({r[axis] for r in rows}) > 1:
                    found.setdefault(name, {})[axis] = symbol
                    break
    return found
