"""``vfw.onnx_io.check``: run an ONNX model in vfw and in onnxruntime and compare the outputs.

Inputs are given (arrays by position or by name) or generated from the model's declared inputs:
floats from a seeded standard normal, integers in ``[0, 10)`` (small enough to index most
embedding tables and gathers), booleans at random; a symbolic or unknown dim takes
``dim_size``.  Each output gets its greatest absolute and relative differences; the check passes
when every output has the same shape and dtype in both runtimes and ``|vfw - ort| <= atol + rtol *
|ort|`` elementwise (NaNs in the same places).
"""

import numpy as np
import onnx
from onnx import helper

from vfw.core import dtypes as dt


class OutputDifference:
    """How one output of two runs differs.

    Attributes
    ----------
    name : str
    shape : tuple or None
        The reference's shape.
    max_abs, max_rel : float
        Greatest ``|got - expected|`` and ``|got - expected| / |expected|`` (inf where NaNs or
        infinities disagree; 0 for exact matches, also of zeros).
    ok : bool
    problem : str
        Why the output fails beyond values (a shape or dtype mismatch), else empty.
    """

    def __init__(self, name, expected, got, rtol, atol):
        self.name = name
        expected, got = np.asarray(expected), np.asarray(got)
        self.shape = expected.shape
        self.problem = ""
        if expected.shape != got.shape:
            self.problem = f"shape {got.shape} != {expected.shape}"
        elif expected.dtype != got.dtype:
            self.problem = f"dtype {got.dtype} != {expected.dtype}"
        if self.problem or expected.dtype.kind not in "biufV":
            self.max_abs = self.max_rel = 0.0 if not self.problem and np.array_equal(expected, got) else np.inf
            self.ok = self.max_abs == 0.0
            return
        e, g = expected.astype(np.float64), got.astype(np.float64)
        both_nan = np.isnan(e) & np.isnan(g)
        same = both_nan | (e == g)  # equal infinities included
        diff = np.where(same, 0.0, np.abs(g - e))
        diff = np.where(np.isnan(diff), np.inf, diff)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(diff == 0, 0.0, diff / np.abs(e))
        self.max_abs = float(diff.max()) if diff.size else 0.0
        self.max_rel = float(rel.max()) if rel.size else 0.0
        self.ok = bool((diff <= atol + rtol * np.abs(np.where(np.isfinite(e), e, 0))).all())

    def __repr__(self):
        status = "ok" if self.ok else "MISMATCH"
        extra = f" ({self.problem})" if self.problem else ""
        return (f"{self.name}: shape {list(self.shape)} max abs diff {self.max_abs:.3g} max rel diff "
                f"{self.max_rel:.3g} {status}{extra}")


class CheckReport:
    """Per-output differences between two runs of a model.

    Attributes
    ----------
    outputs : list[OutputDifference]
    ok : bool
        Whether every output matched within the tolerances.
    rtol, atol : float
    """

    def __init__(self, outputs, rtol, atol):
        self.outputs = outputs
        self.rtol = rtol
        self.atol = atol
        self.ok = all(o.ok for o in outputs)

    def __iter__(self):
        return iter(self.outputs)

    def __getitem__(self, name):
        for o in self.outputs:
            if o.name == name:
                return o
        raise KeyError(name)

    def __str__(self):
        lines = [repr(o) for o in self.outputs]
        lines.append(f"{'PASSED' if self.ok else 'FAILED'} (rtol={self.rtol:g}, atol={self.atol:g})")
        return "\n".join(lines)

    __repr__ = __str__


def compare_outputs(expected, got, names, rtol=1e-4, atol=1e-5):
    """A :class:`CheckReport` of ``got`` against the reference ``expected`` (lists of arrays, in order)."""
    if len(expected) != len(got):
        raise ValueError(f"compare_outputs: {len(got)} outputs to compare with {len(expected)}")
    return CheckReport([OutputDifference(n, e, g, rtol, atol) for n, e, g in zip(names, expected, got)], rtol, atol)


def as_model(model):
    """A ModelProto from a path, bytes, a file object or a ModelProto."""
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(model)


def model_inputs(model):
    """The inputs a caller feeds: ``[(name, numpy dtype, dims)]`` (dims: int, or a str/None when symbolic)."""
    initializers = {t.name for t in model.graph.initializer}
    found = []
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        if vi.type.WhichOneof("value") != "tensor_type":
            raise ValueError(f"input {vi.name!r} is not a tensor: give its value")
        tensor = vi.type.tensor_type
        dims = None
        if tensor.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tensor.shape.dim]
        found.append((vi.name, dt.as_dtype(tensor.elem_type), dims))
    return found


def generate_inputs(model, seed=0, dim_size=2):
    """Example inputs for ``model`` (see the module docstring): ``{name: array}``."""
    rng = np.random.default_rng(seed)
    model = as_model(model)
    feeds = {}
    for name, dtype, dims in model_inputs(model):
        if dims is None:
            raise ValueError(f"input {name!r} has no declared shape: give its value")
        shape = [d if isinstance(d, int) and d > 0 else dim_size for d in dims]
        if dtype.kind == "f" or dtype == dt.bfloat16:
            value = rng.standard_normal(shape)
        elif dtype.kind in "iu":
            value = rng.integers(0, 10, shape)
        elif dtype.kind == "b":
            value = rng.random(shape) < 0.5
        else:
            raise ValueError(f"input {name!r} of dtype {dtype}: give its value")
        feeds[name] = np.asarray(value).astype(dtype)
    return feeds


def resolve_inputs(model, inputs=None, seed=0, dim_size=2):
    """``{name: array}`` for every input of ``model``: the given ones (by position or name), the rest generated."""
    names = [n for n, _, _ in model_inputs(model)]
    if inputs is None:
        return generate_inputs(model, seed, dim_size)
    if isinstance(inputs, dict):
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise ValueError(f"check: unknown input name(s) {unknown}; the model's inputs are {names}")
        generated = generate_inputs(model, seed, dim_size) if set(inputs) != set(names) else {}
        return {n: np.asarray(inputs[n]) if n in inputs else generated[n] for n in names}
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(inputs) != len(names):
        raise ValueError(f"check: the model takes {len(names)} input(s) ({', '.join(names)}), got {len(inputs)}")
    return {n: np.asarray(getattr(v, "array", v)) for n, v in zip(names, inputs)}


def run_onnxruntime(model, feeds):
    """Outputs of ``model`` (ModelProto) in onnxruntime (CPU) on ``{name: array}``, in output order."""
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [np.asarray(r) for r in session.run(None, feeds)]


def run_vfw(model, feeds):
    """Outputs of ``model`` (ModelProto) imported into vfw (``vfw.onnx_io.load``), in output order."""
    from vfw.onnx_io._import import load

    imported = load(model)
    return [np.asarray(r) for r in imported.run({n: feeds[n] for n in imported.input_names})]


def check(model, inputs=None, rtol=1e-4, atol=1e-5, seed=0, dim_size=2, verbose=True):
    """Run ``model`` in vfw and in onnxruntime on the same inputs and compare every output.

    Parameters
    ----------
    model : str, os.PathLike, bytes, file object or onnx.ModelProto
    inputs : list, dict or array, optional
        Input values by position or by name (arrays or tensors); missing ones are generated.
    rtol, atol : float
        Tolerances of the pass/fail verdict (onnxruntime is the reference).
    seed : int
        Seed of the generated inputs.
    dim_size : int
        Size given to symbolic dims of generated inputs.
    verbose : bool
        Print the report.

    Returns
    -------
    CheckReport
        ``report.ok``, and per output ``max_abs`` / ``max_rel`` (``report['name']``).
    """
    proto = as_model(model)
    feeds = resolve_inputs(proto, inputs, seed, dim_size)
    reference = run_onnxruntime(proto, feeds)
    ours = run_vfw(proto, feeds)
    report = compare_outputs(reference, ours, [o.name for o in proto.graph.output], rtol, atol)
    if verbose:
        print(report)
    return report


def op_histogram(model):
    """``{op type: count}`` over all nodes, those inside subgraphs included (domain-qualified when not default)."""
    counts = {}

    def visit(graph):
        for node in graph.node:
            key = f"{node.domain}.{node.op_type}" if node.domain not in ("", "ai.onnx") else node.op_type
            counts[key] = counts.get(key, 0) + 1
            for attr in node.attribute:
                for sub in [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs):
                    visit(sub)

    visit(as_model(model).graph)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def describe(model):
    """A text summary: IR version, opsets, producer, inputs, outputs, initializers and op histogram."""
    proto = as_model(model)

    def value_text(vi):
        tensor = vi.type.tensor_type
        if vi.type.WhichOneof("value") != "tensor_type":
            return f"{vi.name}: {vi.type.WhichOneof('value')}"
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tensor.shape.dim] \
            if tensor.HasField("shape") else "?"
        return f"{vi.name}: {helper.tensor_dtype_to_np_dtype(tensor.elem_type)} {dims}"

    initializers = {t.name for t in proto.graph.initializer}
    size = sum(int(np.prod(t.dims, dtype=np.int64)) for t in proto.graph.initializer)
    opsets = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in proto.opset_import)
    lines = [f"IR version {proto.ir_version}; opsets: {opsets}",
             f"producer: {proto.producer_name} {proto.producer_version}".rstrip(),
             "inputs:"] + [f"  {value_text(vi)}" for vi in proto.graph.input if vi.name not in initializers]
    lines += ["outputs:"] + [f"  {value_text(vi)}" for vi in proto.graph.output]
    lines.append(f"initializers: {len(initializers)} ({size} elements)")
    lines.append("ops:")
    lines += [f"  {op}: {n}" for op, n in op_histogram(proto).items()]
    return "\n".join(lines)
