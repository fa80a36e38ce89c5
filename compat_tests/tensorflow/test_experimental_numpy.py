"""tf.experimental.numpy (tnp) against real TF 2.21: namespace, dtypes, creation, math, shapes, random,
and ``experimental_enable_numpy_behavior`` (switched off again after each test that enables it)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf
from compat_tests.tensorflow.random_harness import same

F32 = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], np.float32)
F64 = np.array([0.5, -1.5, 2.0], np.float64)
I32 = np.array([[1, -2, 3], [4, 0, -6]], np.int32)
I8 = np.array([1, 2, 3], np.int8)
B = np.array([True, False, True])
POS = np.array([0.5, 0.25, 0.75], np.float32)


def _real_numpy_state():
    from tensorflow.python.framework import ops, tensor
    from tensorflow.python.ops.numpy_ops import np_dtypes

    return tensor.Tensor, ops, np_dtypes


@pytest.fixture(autouse=True)
def numpy_behavior(request):
    """NumPy behavior on in both libraries (TF NumPy's intended mode; several TF NumPy functions call
    ``.astype`` and fail without it), then TF's defaults restored in both. ``test_default_*`` tests run
    with the defaults."""
    if request.node.name.startswith("test_default_"):
        yield
        return
    tensor_class, ops, np_dtypes = _real_numpy_state()
    saved_attrs = dict(tensor_class.__dict__)
    saved = (ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32)
    real.experimental.numpy.experimental_enable_numpy_behavior()
    vtf.experimental.numpy.experimental_enable_numpy_behavior()
    yield
    vtf.experimental.numpy._disable_numpy_behavior()
    for name in set(tensor_class.__dict__) - set(saved_attrs):
        delattr(tensor_class, name)
    for name, value in saved_attrs.items():
        if tensor_class.__dict__.get(name) is not value:
            setattr(tensor_class, name, value)
    ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32 = saved


def tnp_check(fn, *args, **kwargs):
    """``check`` with ``fn(tnp, *args)``."""
    return check(lambda tf, *a: fn(tf.experimental.numpy, *a), *args, **kwargs)


def test_default_namespace_matches_tf():
    public = {n for n in dir(real.experimental.numpy) if not n.startswith("_")}
    ours = {n for n in dir(vtf.experimental.numpy) if not n.startswith("_")}
    assert public == ours
    assert {n for n in dir(real.experimental.numpy.random) if not n.startswith("_")} <= set(
        dir(vtf.experimental.numpy.random))
    assert vtf.experimental.numpy.ndarray is vtf.Tensor
    assert vtf.experimental.numpy.float32 is real.experimental.numpy.float32


@pytest.mark.parametrize("case", [
    lambda tnp: tnp.array(1.5), lambda tnp: tnp.array(1), lambda tnp: tnp.array([1, 2.5]),
    lambda tnp: tnp.array([[True]]), lambda tnp: tnp.array(3, dtype=tnp.float32), lambda tnp: tnp.array(2, ndmin=3),
    lambda tnp: tnp.asarray([1, 2]), lambda tnp: tnp.asarray(np.float32(2)), lambda tnp: tnp.asarray([1, 2], "int8"),
    lambda tnp: tnp.zeros(3), lambda tnp: tnp.zeros((2, 3), tnp.int32), lambda tnp: tnp.ones([2]),
    lambda tnp: tnp.ones((2,), dtype="int32"), lambda tnp: tnp.empty((1, 2)), lambda tnp: tnp.full(2, 3),
    lambda tnp: tnp.full((2, 2), 3.0), lambda tnp: tnp.full([3], True), lambda tnp: tnp.full(2, 1, dtype=tnp.float32),
    lambda tnp: tnp.arange(3), lambda tnp: tnp.arange(3.0), lambda tnp: tnp.arange(1, 7, 2),
    lambda tnp: tnp.arange(0, 1, 0.25, dtype="float32"), lambda tnp: tnp.arange(5, 0, -2),
    lambda tnp: tnp.arange(0.5, 3), lambda tnp: tnp.linspace(0, 1, 5),
    lambda tnp: tnp.linspace(0, 1, 4, endpoint=False),
    lambda tnp: tnp.linspace(2, 3, 5, retstep=True), lambda tnp: tnp.linspace(0, 1, 3, dtype=tnp.int32),
    lambda tnp: tnp.linspace(tnp.asarray([0.0, 1]), tnp.asarray([2.0, 3]), 3),
    lambda tnp: tnp.linspace(tnp.asarray([0.0, 1]), tnp.asarray([2.0, 3]), 3, axis=1),
    lambda tnp: tnp.logspace(0, 2, 3), lambda tnp: tnp.logspace(0, 3, 4, base=2.0),
    lambda tnp: tnp.geomspace(1, 1000, 4), lambda tnp: tnp.eye(3), lambda tnp: tnp.eye(2, 3, k=1, dtype=tnp.int32),
    lambda tnp: tnp.eye(3, k=-1), lambda tnp: tnp.eye(2, 4, k=-3, dtype=bool), lambda tnp: tnp.eye(0),
    lambda tnp: tnp.identity(2), lambda tnp: tnp.tri(3), lambda tnp: tnp.tri(2, 4, 1),
    lambda tnp: tnp.diag([1, 2]), lambda tnp: tnp.diag([1.0, 2.0], k=1), lambda tnp: tnp.diagflat([[1, 2], [3, 4]]),
    lambda tnp: tnp.diag_indices(3), lambda tnp: tnp.meshgrid([1, 2], [3, 4, 5]),
    lambda tnp: tnp.meshgrid([1, 2], [3.0, 4, 5], indexing="ij"), lambda tnp: tnp.ix_([0, 1], [2, 3, 4]),
    lambda tnp: tnp.vander([1, 2, 3]), lambda tnp: tnp.vander([1.0, 2.0], 3, increasing=True),
], ids=lambda c: None)
def test_default_creation(case):
    tnp_check(case)


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("x", [F32, I32, [1.5, 2]], ids=["f32", "i32", "list"])
def test_like(name, x):
    tnp_check(lambda tnp, a: getattr(tnp, name)(a), x)
    tnp_check(lambda tnp, a: getattr(tnp, name)(a, dtype="int64"), x)
    tnp_check(lambda tnp, a: tnp.full_like(a, 7), x)


def test_triangles_and_diagonals():
    m = np.arange(12.0).reshape(3, 4)
    for k in (-1, 0, 2):
        tnp_check(lambda tnp, a, k=k: (tnp.tril(a, k), tnp.triu(a, k), tnp.diag(a, k), tnp.diagonal(a, k)), m)
    tnp_check(lambda tnp, a: tnp.tril(a), np.arange(24).reshape(2, 3, 4))
    tnp_check(lambda tnp, a: (tnp.diagonal(a, 0, 1, 2), tnp.trace(a), tnp.trace(a, 1, 1, 2)),
              np.arange(24).reshape(2, 3, 4).astype(np.int32))


@pytest.mark.parametrize("args", [
    ("float32", 1.0), ("int32", "float32"), ("int8", "uint8"), (np.int32, 2.0), ("int32", 2), ("bool", 1),
    ("float16", 1.5), ("int64", "float32"), ("complex64", "float64"),
], ids=repr)
def test_default_result_type_and_promote_types(args):
    check(lambda tf: tf.experimental.numpy.result_type(*args))
    check(lambda tf: tf.experimental.numpy.result_type(tf.zeros([1], args[0]), *args[1:]))
    if all(isinstance(a, str) for a in args):
        check(lambda tf: tf.experimental.numpy.promote_types(*args))


def test_result_type_of_tensors_and_lists():
    tnp_check(lambda tnp, a, b: (tnp.result_type(a, b), tnp.result_type([1, 2], b), tnp.result_type(a, [1.5])),
              I32, F32)
    tnp_check(lambda tnp: tnp.result_type(tnp.float32, np.float64(1)))


OPERANDS = [(F32, I32), (I32, 2.0), (I32, 2), (F32, F64), (I8, I8), (F32, 1.5), (I32, B[:1]), (F64, F32[0]),
            ([1, 2, 3], [0.5, 1.5, 2.5]), (2, 3), (np.float16([1, 2, 3]), 2.5)]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide", "divide", "floor_divide", "mod",
          "remainder", "power", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "arctan2", "hypot", "logaddexp", "logaddexp2", "float_power", "logical_and", "logical_or",
          "logical_xor", "heaviside", "divmod"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("operands", OPERANDS, ids=lambda o: f"{getattr(o[0], 'dtype', type(o[0]).__name__)}-"
                         f"{getattr(o[1], 'dtype', type(o[1]).__name__)}")
def test_binary(name, operands):
    x, y = operands
    if name in ("power", "float_power"):
        x, y = np.abs(x) if isinstance(x, np.ndarray) else x, np.abs(y) if isinstance(y, np.ndarray) else y
    if name.startswith("logaddexp") and (isinstance(x, list) or getattr(x, "dtype", None) == np.float16):
        # TF NumPy subtracts Python lists with `-` (TypeError) and computes part of logaddexp2 in float16.
        return
    tnp_check(lambda tnp, a, b: getattr(tnp, name)(a, b), x, y, rtol=2e-5)


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "maximum", "logical_and", "bitwise_xor",
                                  "bitwise_and", "bitwise_or", "equal"])
def test_default_binary(name):
    for x, y in [(F32, I32), (I32, 2.0), (B, B), (I32, I32), (F32, 1.5)]:
        tnp_check(lambda tnp, a, b: getattr(tnp, name)(a, b), x, y)


def test_integer_functions():
    a, b = np.array([12, -18, 0, 7], np.int32), np.array([8, 12, 5, 0], np.int32)
    tnp_check(lambda tnp, x, y: (tnp.gcd(x, y), tnp.lcm(x, y), tnp.bitwise_not(x), tnp.gcd(x, 6)), a, b)


UNARY_FLOAT = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "exp2", "cbrt", "sin", "cos", "tan",
               "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arctanh", "reciprocal", "floor",
               "ceil", "fix", "sinc", "deg2rad", "rad2deg", "fabs"]
UNARY = ["abs", "absolute", "negative", "square", "positive", "conj", "conjugate", "logical_not", "sign",
         "signbit", "isfinite", "isinf", "isnan", "isposinf", "isneginf", "real", "imag", "angle", "iscomplex",
         "isreal", "iscomplexobj", "isrealobj", "around", "round"]


@pytest.mark.parametrize("name", UNARY_FLOAT + UNARY)
def test_unary_floats(name):
    x = np.array([0.5, -0.25, 0.0, -0.0, 0.75, 1.5, -2.5], np.float32)
    if name in ("sqrt", "log", "log2", "log10", "arccosh"):
        x = np.abs(x) + np.float32(0.5)
    if name in ("arcsin", "arccos", "arctanh"):
        x = np.clip(x, -0.9, 0.9)
    tnp_check(lambda tnp, a: getattr(tnp, name)(a), x, rtol=2e-5)
    tnp_check(lambda tnp, a: getattr(tnp, name)(a), np.array([np.inf, -np.inf, np.nan, 1.0]), rtol=2e-5)
    if name not in ("isinf", "isposinf", "isneginf"):  # TF NumPy reads `.dtype` of the Python float there
        tnp_check(lambda tnp: getattr(tnp, name)(0.75), rtol=2e-5)


@pytest.mark.parametrize("name", UNARY_FLOAT + UNARY)
def test_unary_integers(name):
    tnp_check(lambda tnp, a: getattr(tnp, name)(a), np.array([1, 2, 0, 3], np.int32), rtol=2e-5)
    tnp_check(lambda tnp, a: getattr(tnp, name)(a), np.array([1, 0, 2], np.int8), rtol=2e-5)


def test_rounding_and_clip():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.2345, -2.71828], np.float64)
    for decimals in (0, 1, 2):
        tnp_check(lambda tnp, a, d=decimals: (tnp.around(a, d), tnp.round(a, d)), x)
    tnp_check(lambda tnp, a: (tnp.clip(a, -1, 1), tnp.clip(a, -1.0, None), tnp.clip(a, None, 0.5)), x)
    tnp_check(lambda tnp, a: (tnp.clip(a, 0, 2), tnp.clip(a, 0, 1.5)), I32)
    tnp_check(lambda tnp, a: tnp.angle(a, deg=True), x)
    tnp_check(lambda tnp, a: (tnp.real(a), tnp.imag(a), tnp.angle(a), tnp.conj(a), tnp.iscomplex(a)),
              np.array([1 + 2j, -1j, 3], np.complex64))


AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("x", [F32, I32, I8.reshape(1, 3), B.reshape(3, 1)], ids=["f32", "i32", "i8", "bool"])
@pytest.mark.parametrize("axis", AXES, ids=repr)
def test_reductions(x, axis):
    tnp_check(lambda tnp, a: (tnp.sum(a, axis), tnp.prod(a, axis), tnp.amax(a, axis), tnp.amin(a, axis),
                              tnp.max(a, axis, keepdims=True), tnp.min(a, axis), tnp.all(a, axis),
                              tnp.any(a, axis, keepdims=True), tnp.ptp(a, axis)), x)
    tnp_check(lambda tnp, a: (tnp.mean(a, axis), tnp.var(a, axis), tnp.std(a, axis),
                              tnp.mean(a, axis, keepdims=True), tnp.sum(a, axis, dtype=tnp.float32)), x)
    if axis != (0, 1):  # TF NumPy's average, argmax, cumsum... take one axis
        tnp_check(lambda tnp, a: (tnp.average(a, axis), tnp.count_nonzero(a, axis), tnp.cumsum(a, axis),
                                  tnp.cumprod(a, axis), tnp.argmax(a, axis), tnp.argmin(a, axis)), x)


def test_nan_reductions_and_average():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 4.0]])
    for axis in (None, 0, 1):
        tnp_check(lambda tnp, a, ax=axis: (tnp.nansum(a, ax), tnp.nanprod(a, ax), tnp.nanmean(a, ax)), x)
    w = np.array([1.0, 2.0, 3.0])
    tnp_check(lambda tnp, a, b: (tnp.average(a, 1, b), tnp.average(a, weights=a, returned=True),
                                 tnp.average(a, 0, returned=True)), F64.reshape(1, 3) * np.ones((2, 1)), w)


def test_comparisons_of_whole_arrays():
    a = np.array([1.0, np.nan, np.inf, 2.0])
    b = np.array([1.0 + 1e-9, np.nan, np.inf, 2.1])
    tnp_check(lambda tnp, x, y: (tnp.isclose(x, y), tnp.isclose(x, y, equal_nan=True), tnp.allclose(x, y),
                                 tnp.allclose(x[:1], y[:1]), tnp.array_equal(x, x), tnp.array_equal(x[:2], x),
                                 tnp.isclose(x, 2, rtol=0.1)), a, b)


def test_sort_and_selection():
    x = np.array([[3, 1, 2], [0, 5, 5]], np.int32)
    for axis in (-1, 0, None):
        tnp_check(lambda tnp, a, ax=axis: (tnp.sort(a, ax), tnp.argsort(a, ax)), x)
    tnp_check(lambda tnp, a, c: (tnp.where(c, a, 1.5), tnp.where(c), tnp.nonzero(a), tnp.where(a > 1, a, 0)),
              x, x > 1)
    tnp_check(lambda tnp, a: tnp.select([a < 1, a > 3], [a, a * 10], -1), x)
    tnp_check(lambda tnp: tnp.nonzero(3))
    tnp_check(lambda tnp: tnp.sort([True, False]))


SHAPE_CASES = [
    lambda tnp, a: tnp.reshape(a, (3, 2)), lambda tnp, a: tnp.reshape(a, -1),
    lambda tnp, a: tnp.reshape(a, [3, -1], "F"),
    lambda tnp, a: tnp.ravel(a), lambda tnp, a: tnp.flatten(a, "F"), lambda tnp, a: tnp.transpose(a),
    lambda tnp, a: tnp.transpose(a[None], (1, 2, 0)), lambda tnp, a: tnp.swapaxes(a, 0, -1),
    lambda tnp, a: tnp.moveaxis(a[None], 0, -1), lambda tnp, a: tnp.moveaxis(a[None], [0, 1], [2, 0]),
    lambda tnp, a: tnp.expand_dims(a, 1), lambda tnp, a: tnp.squeeze(a[None, :, None]),
    lambda tnp, a: tnp.squeeze(a[None], 0), lambda tnp, a: tnp.concatenate([a, a], 1),
    lambda tnp, a: tnp.concatenate([a, [[1.5, 2, 3]]]),
    lambda tnp, a: tnp.stack([a, a], -1), lambda tnp, a: tnp.hstack([a, a]), lambda tnp, a: tnp.vstack([a, a[0]]),
    lambda tnp, a: tnp.dstack([a, a]), lambda tnp, a: tnp.hstack([a[0], [1, 2]]),
    lambda tnp, a: tnp.split(a, 3, 1), lambda tnp, a: tnp.split(a, [1, 5], 1), lambda tnp, a: tnp.split(a, 2, 1),
    lambda tnp, a: tnp.hsplit(a, 3), lambda tnp, a: tnp.vsplit(a, 2), lambda tnp, a: tnp.dsplit(a[None], [1]),
    lambda tnp, a: tnp.tile(a, 2), lambda tnp, a: tnp.tile(a, (2, 1, 2)), lambda tnp, a: tnp.repeat(a, 2),
    lambda tnp, a: tnp.repeat(a, [1, 2], axis=0), lambda tnp, a: tnp.flip(a), lambda tnp, a: tnp.flip(a, 1),
    lambda tnp, a: tnp.fliplr(a), lambda tnp, a: tnp.flipud(a), lambda tnp, a: tnp.roll(a, 1),
    lambda tnp, a: tnp.roll(a, -1, 1), lambda tnp, a: tnp.rot90(a), lambda tnp, a: tnp.rot90(a, 2),
    lambda tnp, a: tnp.rot90(a, 3), lambda tnp, a: tnp.rot90(a, -1, (1, 0)),
    lambda tnp, a: tnp.pad(a, [[1, 1], [1, 1]], "constant"), lambda tnp, a: tnp.pad(a, [[0, 1], [2, 0]], "reflect"),
    lambda tnp, a: tnp.pad(a, ((1, 1), (1, 1)), "symmetric"),
    lambda tnp, a: tnp.pad(a, [[1, 1], [1, 1]], "constant", constant_values=9),
    lambda tnp, a: tnp.take(a, [0, 4]), lambda tnp, a: tnp.take(a, [[2, 0]], axis=1),
    lambda tnp, a: tnp.take(a, [5, -1], axis=1), lambda tnp, a: tnp.take(a, [5, -1], axis=1, mode="wrap"),
    lambda tnp, a: tnp.take_along_axis(a, tnp.argsort(a, 1), 1),
    lambda tnp, a: tnp.take_along_axis(a, [[0], [2]], 1), lambda tnp, a: tnp.take_along_axis(a, [[1, 0, 1]], 0),
    lambda tnp, a: tnp.broadcast_to(a[0], (4, 3)), lambda tnp, a: tnp.broadcast_arrays(a, a[0], 1.0),
    lambda tnp, a: tnp.atleast_1d(1.0), lambda tnp, a: tnp.atleast_2d(a[0]), lambda tnp, a: tnp.atleast_3d(a),
    lambda tnp, a: tnp.atleast_3d(a[0], 2), lambda tnp, a: tnp.append(a, [1, 2]),
    lambda tnp, a: tnp.append(a, a, axis=0), lambda tnp, a: tnp.compress([True, False, True], a, axis=1),
    lambda tnp, a: tnp.compress([False, True], a), lambda tnp, a: tnp.diff(a), lambda tnp, a: tnp.diff(a, 2, axis=1),
    lambda tnp, a: tnp.diff(a, axis=0), lambda tnp, a: (tnp.shape(a), tnp.ndim(a), tnp.size(a), tnp.size(a, 1)),
    lambda tnp, a: (tnp.isscalar(a), tnp.isscalar(1.0), tnp.isscalar(a[0, 0])), lambda tnp, a: tnp.copy(a),
]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda c: None)
@pytest.mark.parametrize("x", [F32, I32], ids=["f32", "i32"])
def test_shape_ops(case, x):
    tnp_check(case, x)


def test_diff_of_bools():
    tnp_check(lambda tnp, a: tnp.diff(a), B)


@pytest.mark.parametrize("case", [
    lambda tnp, a, b: tnp.dot(a, b.T if hasattr(b, "T") else tnp.transpose(b)),
    lambda tnp, a, b: tnp.matmul(a, tnp.transpose(b)), lambda tnp, a, b: tnp.matmul(a[0], tnp.transpose(b)),
    lambda tnp, a, b: tnp.matmul(a, b[0]), lambda tnp, a, b: tnp.matmul(a[0], b[0]),
    lambda tnp, a, b: tnp.matmul(tnp.stack([a, a]), b[0]), lambda tnp, a, b: tnp.dot(a[0], b[0]),
    lambda tnp, a, b: tnp.dot(a, 2), lambda tnp, a, b: tnp.tensordot(a, b, 2),
    lambda tnp, a, b: tnp.tensordot(a, b, [[1], [1]]), lambda tnp, a, b: tnp.inner(a, b),
    lambda tnp, a, b: tnp.outer(a, b), lambda tnp, a, b: tnp.vdot(a, b), lambda tnp, a, b: tnp.kron(a, b),
    lambda tnp, a, b: tnp.kron(a[0], b), lambda tnp, a, b: tnp.cross(a, b), lambda tnp, a, b: tnp.cross(a[:, :2], b),
    lambda tnp, a, b: tnp.cross(a[:, :2], b[:, :2]), lambda tnp, a, b: tnp.cross(a, b, axis=1),
    lambda tnp, a, b: tnp.einsum("ij,kj->ik", a, b), lambda tnp, a, b: tnp.einsum("ij->", a),
    lambda tnp, a, b: tnp.polyval([1, 2, 3], a), lambda tnp, a, b: tnp.polyval(a[0], b),
], ids=lambda c: None)
@pytest.mark.parametrize("operands", [(F32, F32 * 2), (I32, I32 + 1), (F32, I32)], ids=["f32", "i32", "mixed"])
def test_products(case, operands):
    tnp_check(case, *operands, rtol=1e-4, atol=1e-4)


def test_bool_products():
    tnp_check(lambda tnp, a: (tnp.dot(a, a), tnp.outer(a, a), tnp.matmul(a[None], a[:, None])), B)


def test_dtype_helpers():
    tnp_check(lambda tnp: (tnp.issubdtype(tnp.float32, tnp.floating if hasattr(tnp, "floating") else np.floating),
                           tnp.issubdtype(tnp.int32, tnp.inexact), tnp.issubdtype("float64", tnp.inexact)))
    tnp_check(lambda tnp: (float(tnp.finfo(tnp.float32).eps), int(tnp.iinfo(tnp.int8).max), tnp.pi, tnp.e,
                           tnp.inf, tnp.newaxis, tnp.float_, tnp.int_, tnp.bool_))


@pytest.mark.parametrize("case", [
    lambda tnp: tnp.sum("ab"), lambda tnp: tnp.reshape([1, 2, 3], (2, 2)), lambda tnp: tnp.concatenate([]),
    lambda tnp: tnp.split([1, 2, 3], 2), lambda tnp: tnp.where([True], [1]),
    lambda tnp: tnp.diag(np.zeros((1, 1, 1))), lambda tnp: tnp.arange(0, 3, 0), lambda tnp: tnp.nonzero(1),
    lambda tnp: tnp.random.randint(0, 2, dtype="float32"), lambda tnp: tnp.pad([1], 1, "edge"),
], ids=lambda c: None)
def test_errors(case):
    tnp_check(case)


@pytest.mark.parametrize("case", [
    lambda tnp: tnp.random.rand(2, 3), lambda tnp: tnp.random.randn(4), lambda tnp: tnp.random.random((2,)),
    lambda tnp: tnp.random.standard_normal((3,)), lambda tnp: tnp.random.uniform(1, 2, (3,)),
    lambda tnp: tnp.random.uniform(np.float32(-1), np.float32(1), [2, 2]), lambda tnp: tnp.random.randint(0, 10, (5,)),
    lambda tnp: tnp.random.randint(5, size=(2,), dtype="int32"), lambda tnp: tnp.random.poisson(3.0, (4,)),
], ids=lambda c: None)
def test_default_random_matches_tf_stream(case):
    def seeded(tf):
        tnp = tf.experimental.numpy
        tnp.random.seed(1234)
        return case(tnp), case(tnp)

    same(seeded)


def test_numpy_methods():
    tnp_check(lambda tnp, a: (a.T, a.reshape(3, 2), a.reshape((1, 6)), a.reshape(-1, order="F"), a.astype("int32"),
                              a.ravel(), a.flatten(), a.clip(0, 1.5), a.mean(), a.mean(0), a.max(1), a.min(),
                              a.transpose(), a.transpose((1, 0)), a.transpose(axes=[1, 0]), a.data, +a, a.size,
                              a.tolist(), a.ndim), F32)
    tnp_check(lambda tnp, a: (a.mean(), a.astype(tnp.float64), a.max(keepdims=True)), I32)


@pytest.mark.parametrize("index", [
    lambda tf, t: t[[0, 1]], lambda tf, t: t[:, [2, 0]], lambda tf, t: t[np.array([1, 0])],
    lambda tf, t: t[[True, False]], lambda tf, t: t[tf.constant([1])], lambda tf, t: t[[0, 1], [1, 2]],
    lambda tf, t: t[t > 0], lambda tf, t: t[..., None, 1], lambda tf, t: t[1:, [[0, 2], [1, 1]]],
    lambda tf, t: t[None, [1], ::-1], lambda tf, t: t[0, [2, 2, 0]],
], ids=lambda c: None)
def test_numpy_indexing(index):
    check_grad(index, F32)


def test_variables():
    check(lambda tf: (tf.Variable([1, 2]) + 1.5, 1.5 * tf.Variable([1, 2]), tf.constant([1.0]) + tf.Variable([1, 2]),
                      tf.experimental.numpy.sum(tf.Variable([[1, 2]]), 1),
                      tf.experimental.numpy.add(tf.Variable([1.5]), 1)))


def test_default_indexing_stays_tf():
    check(lambda tf, t: t[[0, 1]], F32)


def test_default_has_no_numpy_methods():
    for name in ("T", "astype", "ravel", "reshape", "tolist", "size"):
        assert hasattr(real.constant([1.0]), name) is hasattr(vtf.constant([1.0]), name) is False


OPERATOR_CASES = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
                  lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a ** b, lambda a, b: a < b,
                  lambda a, b: a >= b, lambda a, b: a == b, lambda a, b: a != b, lambda a, b: b + a,
                  lambda a, b: b - a, lambda a, b: b * a, lambda a, b: b / a, lambda a, b: b ** a]


@pytest.mark.parametrize("op", OPERATOR_CASES, ids=lambda c: None)
@pytest.mark.parametrize("operands", [(F32, I32), (I32, 1.5), (I32, 2), (F32, 2.0), (F64[:2], F32[:, :2]),
                                      (I8, np.int32(3)), (I32, np.array(2, np.int64)), (B, I8)],
                         ids=lambda o: f"{getattr(o[0], 'dtype', '')}-{type(o[1]).__name__}")
def test_operators_promote_with_numpy_behavior(op, operands):
    a, b = operands
    a = np.abs(a) + (a.dtype != np.bool_) if a.dtype != np.bool_ else a
    b = np.abs(b) + 1 if not isinstance(b, np.ndarray) or b.dtype != np.bool_ else b
    check(lambda tf, x: op(x, b if not isinstance(b, np.ndarray) else tf.constant(b)), a, rtol=2e-5)


def test_default_operators_stay_strict():
    check(lambda tf, x, y: x + y, F32, I32)
    check(lambda tf, x: x + 1.5, I32)
    check(lambda tf, x, y: tf.add(x, y), F32, I32)


def test_functions_keep_tf_strictness_with_numpy_behavior():
    check(lambda tf, x, y: tf.add(x, y), F32, I32)
    check(lambda tf, x: tf.math.multiply(x, 1.5), I32)
    check(lambda tf, x, y: x @ y, F32[0], F32[0])
    check(lambda tf, x, y: x @ y, F32, I32.T)


def test_default_then_prefer_float32():
    tensor_class, ops, np_dtypes = _real_numpy_state()
    saved_attrs = dict(tensor_class.__dict__)
    saved = (ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32)
    try:
        real.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=True)
        vtf.experimental.numpy.experimental_enable_numpy_behavior(prefer_float32=True)
        tnp_check(lambda tnp, a, b: (tnp.array(1.5), tnp.asarray([1.0, 2]), tnp.zeros(2), tnp.add(a, 2.0),
                                     tnp.add(b, 2.0), tnp.sqrt(b), tnp.mean(b), tnp.result_type(1.0), tnp.arange(2.0),
                                     tnp.linspace(0, 1, 3), tnp.random.rand(1).dtype), F32, I8)
        check(lambda tf, a, b: (a + 1.5, b + 1.5, b / b), I32, I8)
    finally:
        vtf.experimental.numpy._disable_numpy_behavior()
        for name in set(tensor_class.__dict__) - set(saved_attrs):
            delattr(tensor_class, name)
        ops._dtype_conversion_mode, ops._numpy_style_slicing, np_dtypes._prefer_float32 = saved
    tnp_check(lambda tnp: (tnp.array(1.5), tnp.zeros(1)))


def test_gradients_flow_through_tnp():
    x, w = arrays((2, 3), (3, 4))
    check_grad(lambda tf, a, b: tf.experimental.numpy.sum(tf.experimental.numpy.tanh(
        tf.experimental.numpy.matmul(a, b)) ** 2, axis=1), x, w)
    check_grad(lambda tf, a: (tf.experimental.numpy.std(a, 0), tf.experimental.numpy.cumsum(a, 1),
                              tf.experimental.numpy.logaddexp(a, 0.5)), x)
