"""Differential harness for ONNX export: vfw.torch exports, onnxruntime runs, real torch is the oracle.

A case is a function ``fn(torch, *inputs)`` written once against the torch API and input specs
whose dims are ints or symbols (``"B"``...).  :func:`check_export` exports ``fn`` with
``vfw.torch.onnx.export`` (symbolic dims as ``dynamic_axes``), checks the model with
``onnx.checker.check_model(full_check=True)``, runs it in onnxruntime at the example sizes and at
other sizes, and compares every output with what real torch computes on the same inputs
(dtype, shape and values).
"""

import io

import numpy as np
import pytest

real = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import vfw.torch as vt  # noqa: E402

BASE_SIZES = {"B": 2, "L": 5, "H": 6, "W": 7, "C": 3, "N": 4}
OTHER_SIZES = ({"B": 5, "L": 3, "H": 9, "W": 4, "C": 3, "N": 7}, {"B": 1, "L": 8, "H": 5, "W": 10, "C": 3, "N": 1})


class Spec:
    """An input: dims (ints or symbols), dtype and how values are drawn."""

    def __init__(self, dims, dtype="float32", low=None, high=None):
        self.dims = tuple(dims)
        self.dtype = np.dtype(dtype)
        self.low, self.high = low, high

    def shape(self, sizes):
        return tuple(sizes[d] if isinstance(d, str) else d for d in self.dims)

    def draw(self, rng, sizes):
        shape = self.shape(sizes)
        if self.dtype.kind == "f":
            low = -2.0 if self.low is None else self.low
            high = 2.0 if self.high is None else self.high
            return rng.uniform(low, high, shape).astype(self.dtype)
        if self.dtype.kind == "b":
            return rng.random(shape) < 0.5
        return rng.integers(0 if self.low is None else self.low, 10 if self.high is None else self.high,
                            shape).astype(self.dtype)


def F(*dims, low=None, high=None, dtype="float32"):
    """A float input."""
    return Spec(dims, dtype, low, high)


def I(*dims, low=None, high=None, dtype="int64"):  # noqa: E743
    """An integer input (values in [low, high))."""
    return Spec(dims, dtype, low, high)


def Bool(*dims):
    """A bool input."""
    return Spec(dims, "bool")


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in _flat(item)]
    return [x]


def _numpy(t):
    t = t.detach()
    return np.array(t.numpy())


class _Module(vt.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(vt, *inputs)


def export_model(model, inputs, dynamic=None, opset=None, **kwargs):
    """Export a vfw module/callable on numpy inputs; returns the checked ModelProto."""
    names = [f"in{i}" for i in range(len(inputs))]
    f = io.BytesIO()
    vt.onnx.export(model, tuple(vt.from_numpy(a.copy()) for a in inputs), f, input_names=names,
                   dynamic_axes={names[i]: axes for i, axes in (dynamic or {}).items()}, opset_version=opset,
                   dynamo=False, **kwargs)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto


def run_ort(proto, arrays):
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: a for i, a in zip(session.get_inputs(), arrays)}
    return session.run(None, feeds)


def compare(got, want, rtol, atol, where):
    assert len(got) == len(want), f"{where}: {len(got)} outputs, torch gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, f"{where} output {k}: dtype {g.dtype} != torch {w.dtype}"
        assert g.shape == w.shape, f"{where} output {k}: shape {g.shape} != torch {w.shape}"
        if w.dtype.kind == "f":
            # float16: onnxruntime computes chains of half ops in float32 and rounds at the end, torch rounds each op.
            tol = (1e-3, 1e-3) if w.dtype == np.float16 else (rtol, atol)
            np.testing.assert_allclose(g, w, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=f"{where} output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{where} output {k}")


def _check(theirs, ours, specs, dynamic, sizes, rtol, atol, opset, seed, export_kwargs):
    """Export ``ours``, run it in onnxruntime at the example sizes and others, compare with ``theirs``."""
    rng = np.random.default_rng(seed)
    base = dict(BASE_SIZES, **(sizes or {}))
    symbols = {s for spec in specs for s in spec.dims if isinstance(s, str)}
    inputs = [spec.draw(rng, base) for spec in specs]
    axes = {i: {a: d for a, d in enumerate(spec.dims) if isinstance(d, str)} for i, spec in enumerate(specs)}
    proto = export_model(ours, inputs, {i: a for i, a in axes.items() if a} if dynamic else None, opset,
                         **export_kwargs)
    trials = [base] + ([dict(base, **{s: o[s] for s in symbols}) for o in OTHER_SIZES] if dynamic and symbols
                       else [])
    for trial in trials:
        arrays = inputs if trial is base else [spec.draw(rng, trial) for spec in specs]
        got = run_ort(proto, arrays)
        with real.no_grad():
            want = [_numpy(t) for t in _flat(theirs(*[real.from_numpy(a.copy()) for a in arrays]))]
        compare(got, want, rtol, atol, f"sizes {trial}")
    return proto


def check_export(fn, specs, dynamic=True, sizes=None, rtol=1e-5, atol=1e-5, opset=None, seed=0, **export_kwargs):
    """Export ``fn(vt, *inputs)`` (symbolic dims dynamic), run it in onnxruntime at several sizes and compare
    with ``fn(real, *inputs)``; returns the ModelProto."""
    return _check(lambda *a: fn(real, *a), _Module(fn), specs, dynamic, sizes, rtol, atol, opset, seed,
                  export_kwargs)


def same_weights(make):
    """The module ``make(lib)`` in real torch and in vfw.torch with real torch's weights, both in eval mode."""
    real.manual_seed(0)
    theirs = make(real).eval()
    ours = make(vt).eval()
    ours.load_state_dict({k: vt.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


def check_module(make, specs, dynamic=True, sizes=None, rtol=1e-5, atol=1e-5, opset=None, seed=0, **export_kwargs):
    """As :func:`check_export` for the module ``make(torch)`` (real torch's weights copied into vfw's)."""
    theirs, ours = same_weights(make)
    return _check(theirs, ours, specs, dynamic, sizes, rtol, atol, opset, seed, export_kwargs)
