"""tf.linalg products and matrix structure (matmul, matvec, tensordot, einsum, diagonals, band parts, trace,
cross, norms, normalization) against real TF: values, dtypes, errors and gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint32", "bool"]


def _cast(tf, x, dtype):
    return tf.cast(x, dtype)


def check_values_and_grads(fn, *args, **kwargs):
    """``check`` (errors included), then ``check_grad`` when real TF computed a result."""
    if check(fn, *args, **kwargs) is not None:
        check_grad(fn, *args, **kwargs)


# -- matmul --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [False, True])
def test_matmul_dtypes(dtype, batch):
    a, b = arrays((2, 3), (3, 4), low=-3, high=3)
    if batch:
        a, b = a[None], b[None]
    check(lambda tf, a, b: tf.matmul(_cast(tf, a, dtype), _cast(tf, b, dtype)), a, b)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                                    ((2, 1, 2, 3), (3, 3, 4)), ((0, 3), (3, 2)), ((2, 3), (3, 0)), ((2, 0), (0, 4))])
def test_matmul_shapes_and_gradients(shapes):
    check_grad(lambda tf, a, b: tf.matmul(a, b), *arrays(*shapes))


@pytest.mark.parametrize("flags", [dict(transpose_a=True), dict(transpose_b=True), dict(adjoint_a=True, adjoint_b=True),
                                   dict(transpose_a=True, adjoint_b=True), dict(a_is_sparse=True, b_is_sparse=True)])
def test_matmul_transposes(flags):
    a, b = arrays((2, 3, 3), (2, 3, 3))
    check_values_and_grads(lambda tf, a, b: tf.matmul(a, b, **flags), a, b)
    check_grad(lambda tf, a, b: tf.linalg.matmul(a, b, **flags), a[0], b[0])


@pytest.mark.parametrize("case", [
    lambda tf: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])),  # inner dims differ
    lambda tf: tf.matmul(tf.ones([3]), tf.ones([3, 2])),  # rank 1
    lambda tf: tf.matmul(tf.ones([2, 3]), tf.constant(1.0)),
    lambda tf: tf.matmul(tf.ones([2, 2, 3]), tf.ones([3, 3, 4])),  # batch dims do not broadcast
    lambda tf: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.float64)),
    lambda tf: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a=True, adjoint_a=True),
    lambda tf: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_b=True, adjoint_b=True),
    lambda tf: tf.matmul([[1, 2]], tf.constant([[1.0], [2.0]])),  # a converted on its own: int32
    lambda tf: tf.matmul(tf.constant([[1.0, 2.0]]), [[1], [2]]),  # b converted with a's dtype as hint
    lambda tf: tf.matmul(np.array([[1.0, 2.0]]), tf.constant([[1.0], [2.0]])),  # numpy float64 a
    lambda tf: tf.matmul([[1, 2]], [[3], [4]]),
])
def test_matmul_conversions_and_errors(case):
    check(case)


@pytest.mark.parametrize("types", [("int8", "int8", "int32"), ("uint8", "int8", "int32"), ("int8", "int8", "int64"),
                                   ("float32", "float32", "float64"), ("int32", "int32", "int32"),
                                   ("float32", "float32", "float32")])
def test_matmul_output_type(types):
    a, b = arrays((2, 3), (3, 2), low=-3, high=3)
    check(lambda tf, a, b: tf.matmul(tf.cast(a, types[0]), tf.cast(b, types[1]), output_type=types[2]), a, b)


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((4, 2, 3), (4, 3)), ((2, 3), (4, 3)), ((2, 3), (1,)),
                                    ((2, 3), ())])
@pytest.mark.parametrize("transpose", [False, True])
def test_matvec(shapes, transpose):
    a, b = arrays(*shapes)
    if transpose:
        a = np.swapaxes(a, -1, -2).copy()
    check_values_and_grads(lambda tf, a, b: tf.linalg.matvec(a, b, transpose_a=transpose), a, b)


# -- tensordot, einsum ----------------------------------------------------------------------------
@pytest.mark.parametrize("axes", [1, 0, 2, 3, -1, [[1], [0]], [1, 0], [[0], [0]], (1, 1), [[1], [1, 2]], [[1]], 1.5,
                                  [[-1], [0]], ([1], 1)], ids=repr)
def test_tensordot_axes(axes):
    a, b = arrays((2, 3), (3, 4))
    check_values_and_grads(lambda tf, a, b: tf.tensordot(a, b, axes), a, b)


@pytest.mark.parametrize("case", [
    ((2, 3), (4, 3, 2), [[0, 1], [2, 1]]),
    ((2, 3), (4, 3, 2), [[-1], [1]]),
    ((2, 3, 4), (4, 3, 5), [[1, 2], [1, 0]]),
    ((), (4, 3), 0),
    ((3,), (3,), 1),
])
def test_tensordot_shapes(case):
    a, b = arrays(case[0], case[1])
    check_grad(lambda tf, a, b: tf.tensordot(a, b, case[2]), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot_dtypes(dtype):
    a, b = arrays((2, 3), (3, 4), low=-3, high=3)
    check(lambda tf, a, b: tf.tensordot(tf.cast(a, dtype), tf.cast(b, dtype), 1), a, b)


def test_tensordot_conversion():
    check(lambda tf: tf.tensordot([[1, 2]], [[1.0], [2.0]], 1))
    check(lambda tf: tf.tensordot([[1.0, 2.0]], [[1.0], [2.0]], 1))


@pytest.mark.parametrize("case", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(3, 3)]), ("i j, j k -> i k", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij->ji", [(2, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("i,j->ij", [(3,), (2,)]), ("ij,jk->ik", [(2, 3), (4, 4)]), ("ij,jk->ik", [(2, 3)]),
    ("ij,jk->ikz", [(2, 3), (3, 4)]),
])
def test_einsum(case):
    equation, shapes = case
    check_values_and_grads(lambda tf, *xs: tf.einsum(equation, *xs), *[arrays(s, seed=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_einsum_dtypes(dtype):
    a, b = arrays((2, 3), (3, 4), low=-3, high=3)
    check(lambda tf, a, b: tf.einsum("ij,jk->ik", tf.cast(a, dtype), tf.cast(b, dtype)), a, b)


def test_einsum_arguments():
    check(lambda tf: tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4], tf.float64)))
    check(lambda tf: tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4]), optimize="greedy"))
    check(lambda tf: tf.einsum("ij,jk->ik", [[1.0, 2.0]], [[1.0], [2.0]]))


# -- transposes, diagonals, band parts, trace ------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_structure_ops_dtypes(dtype):
    x = arrays((3, 4), low=-3, high=3)
    check(lambda tf, x: tf.linalg.matrix_transpose(tf.cast(x, dtype)), x)
    check(lambda tf, x: tf.linalg.adjoint(tf.cast(x, dtype)), x)
    check(lambda tf, x: tf.linalg.band_part(tf.cast(x, dtype), 1, 0), x)
    check(lambda tf, x: tf.linalg.diag_part(tf.cast(x, dtype)), x)
    check(lambda tf, x: tf.linalg.diag(tf.cast(x, dtype)), x)
    check(lambda tf, x, d: tf.linalg.set_diag(tf.cast(x, dtype), tf.cast(d, dtype)), x, x[:, :3].copy())
    check(lambda tf, x: tf.linalg.trace(tf.cast(x, dtype)), x)
    check(lambda tf, d: tf.linalg.tensor_diag(tf.cast(d, dtype)), x[0].copy())
    check(lambda tf, x: tf.linalg.tensor_diag_part(tf.cast(x, dtype)), x[:2, :2].copy())


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 3), (4, 2), (3,)])
def test_transpose_and_trace(shape):
    x = arrays(shape)
    check_values_and_grads(lambda tf, x: tf.linalg.matrix_transpose(x), x)
    check_values_and_grads(lambda tf, x: tf.linalg.trace(x), x)


@pytest.mark.parametrize("k", [0, 1, -1, 3, -2, 5, (-1, 2), (0, 0), (2, 1), (1, 2, 3), (-2, 3)], ids=repr)
@pytest.mark.parametrize("align", ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT", "bad"])
def test_diag_part(k, align):
    x = arrays((2, 3, 4))
    check_values_and_grads(lambda tf, x: tf.linalg.diag_part(x, k=k, align=align, padding_value=9), x)


@pytest.mark.parametrize("case", [
    dict(k=1), dict(k=-1, num_rows=4), dict(num_cols=4), dict(k=2, num_rows=3, num_cols=5), dict(num_rows=1),
    dict(k=-1, num_rows=5, num_cols=5),
])
def test_diag_single(case):
    d = arrays((2, 2))
    check_values_and_grads(lambda tf, d: tf.linalg.diag(d, padding_value=3, **case), d)


@pytest.mark.parametrize("case", [
    dict(k=(0, 1)), dict(k=(0, 1), num_rows=2, num_cols=3), dict(k=(0, 1), num_rows=1, num_cols=3),
    dict(k=(-1, 0), align="LEFT_RIGHT"), dict(k=(-1, 1)), dict(k=(-1, 0), align="RIGHT_RIGHT", num_rows=3),
])
def test_diag_range(case):
    d = arrays((2, 2, 2))
    check_values_and_grads(lambda tf, d: tf.linalg.diag(d, padding_value=7, **case), d)


def test_diag_errors():
    check(lambda tf: tf.linalg.diag(1.0))
    check(lambda tf: tf.linalg.diag(tf.constant([1, 2]), padding_value=3.5))
    check(lambda tf: tf.linalg.diag(tf.constant([1.0, 2.0]), padding_value=tf.constant(3.0)))


@pytest.mark.parametrize("case", [
    ((3, 4), (3,), 0), ((3, 4), (3,), 1), ((3, 4), (2,), -1), ((3, 4), (2, 3), (0, 1)), ((2, 3, 3), (2, 3), 0),
    ((3, 4), (2,), 0), ((2, 3, 3), (3,), 0), ((3, 4), (3, 3), (-1, 1)),
])
def test_set_diag(case):
    x, d = arrays(case[0], case[1])
    check_values_and_grads(lambda tf, x, d: tf.linalg.set_diag(x, d, k=case[2]), x, d)


def test_set_diag_conversion():
    check(lambda tf: tf.linalg.set_diag(tf.ones([3, 3]), [1, 2, 3]))
    check(lambda tf: tf.linalg.set_diag(tf.ones([3, 3]), tf.constant([1, 2, 3])))


@pytest.mark.parametrize("bands", [(0, 0), (1, 0), (0, -1), (-1, 0), (2, 1), (-1, -1), (1, 5), (5, 0), (3, 4),
                                   (0.5, 0)], ids=repr)
def test_band_part(bands):
    check_values_and_grads(lambda tf, x: tf.linalg.band_part(x, *bands), arrays((2, 3, 4)))


def test_band_part_tensors():
    x = arrays((3, 4))
    check(lambda tf, x: tf.linalg.band_part(x, tf.constant(1, tf.int64), 0), x)
    check(lambda tf, x: tf.linalg.band_part(x, tf.constant(1, tf.int64), tf.constant(1)), x)
    check(lambda tf: tf.linalg.band_part(tf.ones([3]), 0, 0))


@pytest.mark.parametrize("shape", [(2,), (2, 3), (1, 2, 2)])
def test_tensor_diag(shape):
    d = arrays(shape)
    check_grad(lambda tf, d: tf.linalg.tensor_diag(d), d)
    check_grad(lambda tf, d: tf.linalg.tensor_diag_part(tf.linalg.tensor_diag(d) * 2.0), d)


@pytest.mark.parametrize("shape", [(2, 3, 3, 2), (2, 3, 2), (2, 3, 2, 3)])
def test_tensor_diag_part(shape):
    check_values_and_grads(lambda tf, x: tf.linalg.tensor_diag_part(x), arrays(shape))


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (2, 3)), ((1, 3), (3,)), ((2,), (2,))])
def test_cross(shapes):
    check_values_and_grads(lambda tf, a, b: tf.linalg.cross(a, b), *arrays(*shapes))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_dtypes(dtype):
    a, b = arrays((2, 3), (2, 3), low=-3, high=3)
    check(lambda tf, a, b: tf.linalg.cross(tf.cast(a, dtype), tf.cast(b, dtype)), a, b)


# -- norms -----------------------------------------------------------------------------------------
ORDS = ["euclidean", "fro", 1, 2, np.inf, -np.inf, 3, 0.5, 0, -1, "nuc", "abc", 2.0]
AXES = [None, 0, -1, [0, 1], (1, 2), [-1, 0], [0, 1, 2], [1, 1], "a"]


@pytest.mark.parametrize("ord", ORDS, ids=repr)
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm(ord, axis, keepdims):
    x = arrays((2, 3, 4), low=0.5, high=2.0) * np.where(arrays((2, 3, 4), seed=1) > 0, 1, -1).astype(np.float32)
    check_values_and_grads(lambda tf, x: tf.norm(x, ord=ord, axis=axis, keepdims=keepdims), x, rtol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", ["euclidean", 1, np.inf])
def test_norm_dtypes(dtype, ord):
    x = arrays((2, 3), low=-3, high=3)
    check(lambda tf, x: tf.norm(tf.cast(x, dtype), ord=ord), x)


@pytest.mark.parametrize("ord", [1, np.inf, 2])
@pytest.mark.parametrize("axis", [None, -1, [0, 1]], ids=repr)
def test_norm_gradient_with_ties(ord, axis):
    # Equal magnitudes: TF splits max gradients evenly over ties; abs has gradient 0 at 0.
    check_grad(lambda tf, x: tf.norm(x, ord=ord, axis=axis), np.array([[1.0, -1.0, 0.0], [1.0, 1.0, -2.0]], np.float32))


def test_norm_of_zeros_and_argument_kinds():
    check_grad(lambda tf, x: tf.linalg.norm(x, axis=1), np.array([[0.0, 0.0], [3.0, 4.0]], np.float32))
    check(lambda tf: tf.norm(tf.ones([2, 3]), axis=tf.constant(1)))
    check(lambda tf: tf.norm(tf.ones([2, 3]), axis=5))
    check(lambda tf: tf.norm([3.0, 4.0], ord=1))


@pytest.mark.parametrize("values", [[(2,), (3, 2)], [(2,), None, (3,)], [], [(2,), "float64"]], ids=repr)
def test_global_norm(values):
    inputs = []
    for i, v in enumerate(values):
        if v is None:
            inputs.append(None)
        elif v == "float64":
            inputs.append(arrays((2,), seed=i).astype(np.float64))
        else:
            inputs.append(arrays(v, seed=i))
    check_values_and_grads(lambda tf, *xs: tf.linalg.global_norm(list(xs)), *inputs)


def test_global_norm_arguments():
    check(lambda tf: tf.linalg.global_norm(tf.ones([2])))
    check(lambda tf: tf.linalg.global_norm([[1.0, 2.0]]))
    check(lambda tf: tf.linalg.global_norm((tf.ones([2]), tf.ones([3]))))
    check(lambda tf: tf.linalg.global_norm([tf.constant([1, 2])]))


@pytest.mark.parametrize("case", [dict(axis=1), dict(axis=[0, 1], epsilon=1000.0), dict(dim=1), dict(axis=0, dim=1),
                                  dict(), dict(axis=-1, epsilon=10.0)])
@pytest.mark.parametrize("namespace", ["linalg", "math", "nn"])
def test_l2_normalize(case, namespace):
    x = arrays((3, 4))
    check_values_and_grads(lambda tf, x: getattr(tf, namespace).l2_normalize(x, **case), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_l2_normalize_dtypes(dtype):
    check(lambda tf, x: tf.math.l2_normalize(tf.cast(x, dtype)), arrays((2, 3), low=-3, high=3))


def test_l2_normalize_zeros():
    check_grad(lambda tf, x: tf.nn.l2_normalize(x, axis=1), np.array([[0.0, 0.0], [3.0, 4.0]], np.float32))


@pytest.mark.parametrize("case", [dict(), dict(ord=1, axis=1), dict(ord=np.inf, axis=[0, 1]), dict(ord=2, axis=0)])
def test_normalize(case):
    check_values_and_grads(lambda tf, x: tf.linalg.normalize(x, **case), arrays((3, 4)), rtol=1e-4)


def test_namespaces():
    from compat_tests.tensorflow.harness import real, vtf
    for name in ["matmul", "tensordot", "einsum", "norm"]:
        assert getattr(vtf, name) is getattr(vtf.linalg, name)
        assert hasattr(real, name)
    assert vtf.math.l2_normalize is vtf.nn.l2_normalize is vtf.linalg.l2_normalize
