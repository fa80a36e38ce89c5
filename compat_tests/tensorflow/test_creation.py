"""Tensor creation, casts and shape queries of vfw.tensorflow against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("case", [
    lambda tf: tf.zeros([2, 3]), lambda tf: tf.zeros(3, tf.int32), lambda tf: tf.zeros((), tf.bool),
    lambda tf: tf.zeros(tf.constant([2, 1])), lambda tf: tf.zeros(tf.constant([2, 1], tf.int64)),
    lambda tf: tf.zeros([2.5]), lambda tf: tf.zeros([-1]), lambda tf: tf.zeros([2], tf.string),
    lambda tf: tf.zeros(tf.TensorShape([2, 3]), "float64"), lambda tf: tf.zeros([2, None]),
    lambda tf: tf.zeros([[2]]), lambda tf: tf.zeros(np.array([2, 3])), lambda tf: tf.zeros(tf.constant([2.0])),
    lambda tf: tf.zeros([0, 2], np.float16), lambda tf: tf.ones([2], tf.string), lambda tf: tf.ones([2], tf.bool),
    lambda tf: tf.ones([2, 2], tf.complex64), lambda tf: tf.ones((1, 2), tf.uint8), lambda tf: tf.ones([], tf.bfloat16),
    lambda tf: tf.fill([2, 2], 3), lambda tf: tf.fill([2, 2], 3.5), lambda tf: tf.fill([2], tf.constant(3, tf.int64)),
    lambda tf: tf.fill([2, 2], [1, 2]), lambda tf: tf.fill([2, -2], 1), lambda tf: tf.fill([], "a"),
    lambda tf: tf.fill(2, True), lambda tf: tf.fill([2], None),
    lambda tf: tf.zeros_like([[1, 2]]), lambda tf: tf.zeros_like(tf.constant([1.5]), dtype=tf.int32),
    lambda tf: tf.ones_like(tf.constant(["a"])), lambda tf: tf.zeros_like(tf.constant(["a"])),
    lambda tf: tf.ones_like(tf.constant([True])), lambda tf: tf.ones_like([1.5, 2]),
    lambda tf: tf.zeros_like([1.5], dtype="int64"), lambda tf: tf.ones_like(tf.zeros([2, 0, 3], tf.float64)),
])
def test_filled(case):
    check(case)


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((1, 5, 2), {}), ((5.0,), {}), ((1, 5.5), {}), ((0, 1, 0.3), {}), ((5,), {"dtype": "float64"}),
    ((5, 0, -1), {}), ((0, 5, 0), {}), ((5, 0), {}), ((0, 5, -1), {}), ((2 ** 40, 2 ** 40 + 3), {}),
    ((np.int64(3),), {}), ((3,), {"dtype": "uint8"}), ((3,), {"dtype": "bool"}), ((0.0, 1.0, 0.1), {}),
    ((1,), {"delta": 2}), ((0.5, 5, 0.7), {"dtype": "float64"}), ((0, 5, 2), {"dtype": "float32"}),
    ((np.float64(5),), {}), ((3,), {"dtype": "int16"}), ((3,), {"dtype": "float16"}), ((5, 1.5), {}),
    ((1, 2, 0.0), {}), ((INF,), {}), ((NAN,), {}), ((-3, 4, 3), {}), ((10, -7, -4), {}), ((-0.5, 2.25, 0.25), {}),
])
def test_range(args, kwargs):
    check(lambda tf: tf.range(*args, **kwargs))


def test_range_with_tensors():
    check(lambda tf: tf.range(tf.constant(5, tf.int64)))
    check(lambda tf: tf.range(tf.constant(5, tf.int64), tf.constant(10)))
    check(lambda tf: tf.range(tf.constant(3.0), 5))
    check(lambda tf: tf.range(tf.constant([3])))
    check(lambda tf: tf.range(start=2, limit=6))
    check(lambda tf: tf.range(tf.constant(5, tf.int64), dtype=tf.int32))
    check(lambda tf: tf.range(tf.constant(1.5, tf.float64), 4, tf.constant(0.5, tf.float64)))


@pytest.mark.parametrize("case", [
    lambda tf: tf.linspace(0., 1., 5), lambda tf: tf.linspace(0, 1, 5), lambda tf: tf.linspace(tf.constant(0.), 1., 5),
    lambda tf: tf.linspace(tf.constant([0., 1.]), tf.constant([1., 3.]), 3),
    lambda tf: tf.linspace(tf.constant([0., 1.]), tf.constant([1., 3.]), 3, axis=1),
    lambda tf: tf.linspace(tf.constant([0., 1.]), 5., 3, axis=-1), lambda tf: tf.linspace(0., 1., 1),
    lambda tf: tf.linspace(0., 1., 0), lambda tf: tf.linspace(tf.constant(0., tf.float64), 1., 4),
    lambda tf: tf.linspace(0., tf.constant(1., tf.float64), 4), lambda tf: tf.linspace(tf.constant(0), 5, 4),
    lambda tf: tf.linspace(0., 1., tf.constant(3)), lambda tf: tf.linspace(0., 1., 3.5),
    lambda tf: tf.linspace(0., 1., -1), lambda tf: tf.linspace(0., 1., 2, axis=1),
    lambda tf: tf.linspace(tf.zeros([2, 1]), tf.ones([3]), 4, axis=1), lambda tf: tf.linspace(-3., 7., 11),
])
def test_linspace(case):
    check(case)


def test_linspace_gradient():
    start, stop = arrays((2, 1), (3,))
    check_grad(lambda tf, a, b: tf.linspace(a, b, 5, axis=1), start, stop)
    check_grad(lambda tf, a, b: tf.linspace(a, b, 1), start, stop)
    check_grad(lambda tf, a, b: tf.linspace(a, b, 2, axis=-1), start, stop)


def test_fill_gradient():
    check_grad(lambda tf, v: tf.fill([2, 3], v), np.array(1.5, np.float32))


@pytest.mark.parametrize("case", [
    lambda tf: tf.eye(2), lambda tf: tf.eye(2, 3, dtype=tf.int32), lambda tf: tf.eye(2, batch_shape=[2]),
    lambda tf: tf.eye(2, num_columns=1, batch_shape=[1, 2]), lambda tf: tf.eye(0), lambda tf: tf.eye(-1),
    lambda tf: tf.eye(2.5), lambda tf: tf.eye(tf.constant(2)), lambda tf: tf.eye(2, dtype=tf.bool),
    lambda tf: tf.eye(2, dtype=tf.string), lambda tf: tf.eye(2, 3.5), lambda tf: tf.eye(2, batch_shape=[2.5]),
    lambda tf: tf.eye(2, batch_shape=tf.constant([2])), lambda tf: tf.eye(2, dtype=tf.complex64),
    lambda tf: tf.eye(np.int64(3), 2), lambda tf: tf.linalg.eye(3, dtype=tf.float64),
])
def test_eye(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.one_hot([0, 2, -1, 5], 3), lambda tf: tf.one_hot([0, 2], 3, on_value=5, off_value=-1),
    lambda tf: tf.one_hot([0, 2], 3, on_value=5.0), lambda tf: tf.one_hot([0, 2], 3, on_value=5, off_value=1.5),
    lambda tf: tf.one_hot([[0, 2]], 3, axis=0), lambda tf: tf.one_hot([[0, 2]], 3, axis=1),
    lambda tf: tf.one_hot([[0, 2]], 3, axis=-2), lambda tf: tf.one_hot([0, 2], 3, dtype=tf.int64),
    lambda tf: tf.one_hot([0, 2], 3, dtype=tf.int64, on_value=2.0), lambda tf: tf.one_hot([0.0, 2], 3),
    lambda tf: tf.one_hot(tf.constant([0, 2], tf.uint8), 3), lambda tf: tf.one_hot(tf.constant([0, 2], tf.int64), 3),
    lambda tf: tf.one_hot([0, 2], 3, on_value=True, off_value=False), lambda tf: tf.one_hot([0, 2], -1),
    lambda tf: tf.one_hot([0, 2], 3, axis=3), lambda tf: tf.one_hot([0, 2], 3, on_value=5, dtype=tf.float32),
    lambda tf: tf.one_hot([0, 2], 3, off_value=5), lambda tf: tf.one_hot([0, 2], 3, off_value=tf.constant(5, tf.int64)),
    lambda tf: tf.one_hot([0, 2], 3.0), lambda tf: tf.one_hot(tf.constant([0, 2], tf.int8), 3),
    lambda tf: tf.one_hot(tf.constant([0, 2], tf.int16), 3), lambda tf: tf.one_hot(5, 3), lambda tf: tf.one_hot(1, 3),
    lambda tf: tf.one_hot([0, 2], 3, on_value="a", off_value="b"),
    lambda tf: tf.one_hot([0, 2], 3, on_value=[1.], off_value=0.), lambda tf: tf.one_hot([[1, 0], [2, 3]], 4, axis=1),
    lambda tf: tf.one_hot([], 3), lambda tf: tf.one_hot([1], 0),
])
def test_one_hot(case):
    check(case)


SPECIAL = [NAN, INF, -INF, 3e9, -3e9, 3e19, 1e-30]
IN_RANGE = [1.7, 0.5, -0.0, 100.9, 0.0, 126.5]
TARGETS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "float16", "bfloat16",
           "float32", "float64", "complex64", "string"]


def _float_values(source, target):
    """Values whose conversion TF defines: for integer targets, values in range (TF's results for
    NaN/inf/out-of-range ones depend on its vectorization and differ between elements of one tensor);
    NaN and out-of-range values to int32/int64 from float32/float64 give the minimum, consistently."""
    values = IN_RANGE + ([-1.7, -100.9, -127.5] if not target.startswith("u") else [])
    if target in ("int32", "int64") and source in ("float32", "float64"):
        values += [NAN, INF, -INF, 3e19, -3e19] + ([3e9, -3e9] if target == "int32" else [])
    if not target.startswith(("int", "uint")):
        values += SPECIAL
    return values


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("target", TARGETS)
def test_cast_from_floats(source, target):
    values = _float_values(source, target)
    check(lambda tf: tf.cast(tf.constant(values, source), target))


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("target", TARGETS)
def test_saturate_cast_from_floats(source, target):
    # Saturation makes every value defined (NaN aside) except where TF's own bound computation overflows
    # (float -> int64/uint64: TF rounds the bound to 2**63 and wraps; vfw clamps to the largest value below).
    values = IN_RANGE + [-1.7, -3e9, 3e9, -1e4, 1e4] + ([INF, -INF, 3e19] if "int64" not in target else [])
    values += [NAN] if target in ("int32", "bool", "float16", "bfloat16", "float32", "float64", "complex64",
                                  "string") else []
    check(lambda tf: tf.saturate_cast(tf.constant(values, source), target))


@pytest.mark.parametrize("source", ["int8", "int32", "int64", "uint8", "uint32", "bool"])
@pytest.mark.parametrize("target", TARGETS)
def test_cast_from_integers(source, target):
    values = [0, 1, 100] if source in ("uint8", "uint32") else [0, 1] if source == "bool" else [0, -1, 100, -128, 127]
    wide = {"int32": [70000, -70000, 2 ** 31 - 1], "int64": [2 ** 40, -2 ** 40, 2 ** 63 - 1],
            "uint32": [2 ** 32 - 1, 2 ** 31]}.get(source, [])
    values = [bool(v) for v in values] if source == "bool" else values + wide
    check(lambda tf: tf.cast(tf.constant(values, source), target))
    if source not in ("bool", "int64") and target not in ("bool", "string"):  # TF's int64 bounds overflow
        check(lambda tf: tf.saturate_cast(tf.constant(values, source), target))


@pytest.mark.parametrize("case", [
    lambda tf: tf.cast(1.7, tf.int32), lambda tf: tf.cast([1.7, 2], tf.int32),
    lambda tf: tf.cast(np.float64(1.7), "int32"),
    lambda tf: tf.cast(tf.constant(1.5 + 2j), tf.float32), lambda tf: tf.cast(tf.constant("a"), tf.float32),
    lambda tf: tf.cast(tf.constant([1.5]), tf.complex128),
    lambda tf: tf.saturate_cast(tf.constant([1.5 + 2j]), tf.float32),
    lambda tf: tf.saturate_cast(tf.constant([1e39, -1e39], tf.float64), tf.float32), lambda tf: tf.cast(True, tf.int32),
    lambda tf: tf.saturate_cast(tf.constant([1.5]), tf.complex64), lambda tf: tf.cast(tf.constant([1, 2]), "int32"),
])
def test_cast_misc(case):
    check(case)


def test_cast_gradients():
    x = arrays((3, 2), dtype="float32")
    check_grad(lambda tf, x: tf.cast(x, tf.float64), x)
    check_grad(lambda tf, x: tf.cast(tf.cast(x, tf.float16), tf.float32), x)
    check_grad(lambda tf, x: [tf.cast(x, tf.int32), x * 2.0], x)
    check_grad(lambda tf, x: tf.saturate_cast(x * 1e3, tf.float16), x, rtol=1e-3)
    check_grad(lambda tf, x: tf.cast(x, tf.float32), x)


@pytest.mark.parametrize("case", [
    lambda tf: tf.identity([1, 2]), lambda tf: tf.identity_n([tf.constant(1), [2.0]]), lambda tf: tf.identity_n(1),
    lambda tf: tf.shape(tf.zeros([2, 3])), lambda tf: tf.shape(tf.zeros([2, 3]), out_type=tf.int64),
    lambda tf: tf.shape(tf.zeros([2, 3]), out_type=tf.float32), lambda tf: tf.shape([[1, 2]]), lambda tf: tf.shape(3),
    lambda tf: tf.size(tf.zeros([2, 3])), lambda tf: tf.size(tf.zeros([2, 3]), out_type=tf.int64),
    lambda tf: tf.size(tf.zeros([2, 3]), out_type=tf.float32), lambda tf: tf.rank(tf.zeros([2, 3])),
    lambda tf: tf.rank(3), lambda tf: tf.shape_n([tf.zeros([2]), [[1]]]), lambda tf: tf.size("abc"),
    lambda tf: tf.shape_n([tf.zeros([2]), [[1]]], out_type=tf.int64), lambda tf: tf.shape(tf.constant(["ab"])),
    lambda tf: tf.ensure_shape(tf.zeros([2, 3]), [2, None]), lambda tf: tf.ensure_shape(tf.zeros([2, 3]), [3, None]),
    lambda tf: tf.ensure_shape(tf.zeros([2, 3]), None), lambda tf: tf.ensure_shape([1, 2], [2]),
    lambda tf: tf.ensure_shape(tf.zeros([2, 3]), [2]),
    lambda tf: tf.ensure_shape(tf.zeros([2, 3]), tf.TensorShape(None)),
])
def test_identity_and_shapes(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])),
    lambda tf: tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([None])),
    lambda tf: tf.broadcast_static_shape(tf.TensorShape([None, 3]), tf.TensorShape([4, 1])),
    lambda tf: tf.broadcast_static_shape(tf.TensorShape([2, 2]), tf.TensorShape([3])),
    lambda tf: tf.broadcast_static_shape(tf.TensorShape(None), tf.TensorShape([3])),
    lambda tf: tf.broadcast_static_shape(tf.TensorShape([]), tf.TensorShape([3, 1])),
    lambda tf: tf.broadcast_dynamic_shape([2, 1], [3]), lambda tf: tf.broadcast_dynamic_shape([2, 2], [3]),
    lambda tf: tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), [3]),
    lambda tf: tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), tf.constant([3])),
    lambda tf: tf.broadcast_dynamic_shape(tf.constant([1, 4, 1]), tf.constant([3, 1, 1, 5])),
])
def test_broadcast_shapes(case):
    check(case)


def test_identity_and_ensure_shape_gradients():
    x = arrays((2, 3))
    check_grad(lambda tf, x: tf.identity(x) * x, x)
    check_grad(lambda tf, x: tf.ensure_shape(x, [None, 3]), x)
    check_grad(lambda tf, x, y: tf.identity_n([x, y]), x, arrays(4, seed=1))


@pytest.mark.parametrize("case", [
    lambda tf: tf.guarantee_const(tf.constant([1.0])), lambda tf: tf.get_static_value(tf.constant([1, 2])),
    lambda tf: tf.get_static_value([1, 2]), lambda tf: tf.get_static_value(3),
    lambda tf: tf.get_static_value(tf.Variable([1.0])),
    lambda tf: tf.bitcast(tf.constant([1.0]), tf.int32), lambda tf: tf.bitcast(tf.constant([1.0, 2.0]), tf.int64),
    lambda tf: tf.bitcast(tf.constant([1.0]), tf.int8),
    lambda tf: tf.bitcast(tf.constant([[1, 2]], tf.int32), tf.int64),
    lambda tf: tf.bitcast(tf.constant([1, 2, 3], tf.int32), tf.int64),
    lambda tf: tf.bitcast(tf.constant(-1), tf.uint32),
    lambda tf: tf.bitcast(tf.constant([[1.5, -2.0]], tf.float16), tf.uint8),
])
def test_misc_creation(case):
    check(case)
