"""Run one op in vfw and in ONNX's reference evaluator (the oracle) and compare.

``onnx.reference.ReferenceEvaluator`` is used only here, as an independent
oracle; it never runs inside vfw.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from vfw.core import dtypes as dt
from vfw.core import run

OPSET = onnx.defs.onnx_opset_version()


def _onnx_attr(value):
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return dt.onnx_code(np.dtype(value))
    if isinstance(value, np.ndarray):
        return numpy_helper.from_array(value)
    return value


def onnx_run(op_type, inputs, attrs=None, n_outputs=1, opset=OPSET, domain=""):
    """Outputs of ``op_type`` on ``inputs`` (arrays or None) per the ONNX reference evaluator."""
    names = ["" if x is None else f"x{i}" for i, x in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    outputs = [f"y{i}" for i in range(n_outputs)]
    attrs = {k: _onnx_attr(v) for k, v in (attrs or {}).items() if v is not None}
    node = helper.make_node(op_type, names, outputs, domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "oracle",
        [helper.make_tensor_value_info(n, dt.onnx_code(x.dtype), None) for n, x in zip(names, inputs) if n],
        [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, opset)])
    feeds = {n: x for n, x in zip(names, inputs) if n}
    return [np.asarray(r) for r in ReferenceEvaluator(model).run(None, feeds)]


def vfw_run(op_type, inputs, attrs=None):
    """Outputs of ``op_type`` on ``inputs`` in vfw, always as a list."""
    result = run(op_type, *inputs, **(attrs or {}))
    return list(result) if isinstance(result, tuple) else [result]


def assert_same(actual, expected, rtol=1e-5, atol=1e-6, what="output"):
    """Assert equal dtype, shape and values (exact for ints/bools, close for floats, NaN == NaN)."""
    assert isinstance(actual, np.ndarray), f"{what}: kernel returned {type(actual).__name__}, not ndarray"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "fc" or actual.dtype == dt.bfloat16:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def check_op(op_type, inputs, attrs=None, *, n_outputs=None, rtol=1e-5, atol=1e-6, opset=OPSET,
             outputs=None):
    """Assert vfw's ``op_type`` matches the ONNX reference on ``inputs`` with ``attrs``.

    Parameters
    ----------
    n_outputs : int, optional
        How many outputs to request from the oracle (default: as many as vfw returns).
    outputs : iterable[int], optional
        Which output positions to compare (default: all requested).
    """
    ours = vfw_run(op_type, inputs, attrs)
    n = n_outputs or len(ours)
    theirs = onnx_run(op_type, inputs, attrs, n, opset)
    for i in outputs if outputs is not None else range(n):
        assert_same(ours[i], theirs[i], rtol, atol, what=f"{op_type} output {i}")
    return ours


def rand(shape, dtype=np.float32, low=-3, high=3, seed=0):
    """Reproducible random array of ``dtype`` (bools are coin flips)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = max(low, np.iinfo(dtype).min)
        return rng.integers(lo, high, size=shape, endpoint=True).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)
