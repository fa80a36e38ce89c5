"""keras.ops (numpy-like math, arrays, reductions, creation, linear algebra) against real Keras 3.15.1:
values and Keras' dtype promotion."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def sample(dtype, shape=(2, 3), seed=0):
    values = data(*shape, seed=seed) * 3
    if dtype == "bool":
        return values > 0
    if dtype.startswith("uint"):
        return np.abs(values).astype(dtype)
    return values.astype(dtype)


def outcome(call):
    """``call()``'s result as comparable data (16-bit floats widened), or the class of its error.

    TF kernel errors are compared by class: their texts differ in detail between TF and vfw.
    """
    try:
        out = call()
    except Exception as e:
        return "raised", type(e).__name__
    return _plain(out)


def _plain(out):
    if isinstance(out, (list, tuple)):
        return type(out).__name__, [_plain(o) for o in out]
    if hasattr(out, "dtype") and hasattr(out, "shape"):
        value = np.asarray(out)
        name = out.dtype.name if hasattr(out.dtype, "name") else str(out.dtype)
        return name, value.astype("float32") if name in ("bfloat16", "float16") else value
    return out


def check(make, rtol=1e-5, atol=1e-6):
    same(lambda lib: outcome(lambda: make(lib.keras.ops)), rtol=rtol, atol=atol)


def loose(dtype):
    """Tolerances for results in ``dtype`` (16-bit floats round every TF step)."""
    return {"rtol": 1e-2, "atol": 1e-2} if dtype in ("float16", "bfloat16") else {"rtol": 1e-5, "atol": 1e-6}


UNARY = ["abs", "absolute", "negative", "square", "sign", "sqrt", "exp", "exp2", "expm1", "log", "log1p", "log2",
         "log10", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arctan", "arcsinh", "floor", "ceil", "round", "trunc",
         "fabs", "cbrt", "deg2rad", "rad2deg", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_not",
         "signbit", "relu", "sigmoid", "softplus", "nan_to_num", "reciprocal", "erf", "rsqrt"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dtype):
    x = sample(dtype)
    check(lambda ops: getattr(ops, name)(x), **loose(dtype))


@pytest.mark.parametrize("name", ["arccos", "arcsin", "arctanh", "arccosh"])
def test_unary_domains(name):
    x = np.array([-0.5, 0.0, 0.5, 0.9], "float32") if name != "arccosh" else np.array([1.0, 1.5, 3.0], "float32")
    check(lambda ops: getattr(ops, name)(x))


ARITHMETIC = ["add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "floor_divide", "power",
              "divide_no_nan"]
COMPARISON = ["equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
              "logical_xor", "mod", "fmod", "arctan2", "hypot", "logaddexp", "heaviside", "isclose"]
PAIRS = [("float32", "float32"), ("float32", "float64"), ("float16", "float32"), ("bfloat16", "float16"),
         ("int32", "float32"), ("int8", "uint8"), ("int16", "int64"), ("uint8", "uint8"), ("int64", "float16"),
         ("bool", "int8"), ("bool", "bool"), ("int32", "int32")]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("name", ARITHMETIC + COMPARISON)
def test_binary_promotion(name, pair):
    x, y = sample(pair[0]), sample(pair[1], seed=1)
    if name in ("power",):
        y = np.abs(y) if pair[1] != "bool" else y
    check(lambda ops: getattr(ops, name)(x, y), **loose("float16" if "16" in "".join(pair) else "float32"))


@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "divide", "maximum", "power", "greater", "equal",
                                  "where"])
def test_python_scalars_are_weak(name, dtype, scalar):
    x = sample(dtype)
    if name == "where":
        check(lambda ops: ops.where(x > 0 if dtype != "bool" else x, x, scalar), **loose(dtype))
    else:
        check(lambda ops: (getattr(ops, name)(x, scalar), getattr(ops, name)(scalar, x)), **loose(dtype))


def test_lists_convert_like_tf():
    check(lambda ops: (ops.add([1, 2], [3, 4]), ops.add([1.5, 2], 1), ops.multiply(np.float64(2.0), [1, 2]),
                       ops.add(np.array([1, 2], "int64"), 1.5)))


REDUCTIONS = ["sum", "mean", "prod", "max", "min", "var", "std", "all", "any", "argmax", "argmin", "amax", "amin",
              "logsumexp", "ptp", "count_nonzero"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name, dtype):
    x = sample(dtype, (3, 4))
    kwargs = [{}, {"axis": 0}, {"axis": -1}] + ([{"axis": 1, "keepdims": True}] if name != "count_nonzero" else [])
    check(lambda ops: [getattr(ops, name)(x, **k) for k in kwargs], **loose(dtype))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "uint8"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans(name, dtype):
    x = sample(dtype, (3, 4))
    check(lambda ops: [getattr(ops, name)(x), getattr(ops, name)(x, axis=1), getattr(ops, name)(x, axis=0,
                                                                                              dtype="float64")])


def test_reduction_options():
    x = sample("float32", (2, 3, 4))
    check(lambda ops: [ops.sum(x, axis=(0, 2)), ops.max(x, axis=1, initial=0.5), ops.min(x, initial=-10.0),
                       ops.argmax(x, axis=1, keepdims=True), ops.argmin(x), ops.average(x, axis=1),
                       ops.average(x, axis=2, weights=np.arange(4.0)), ops.average(x, weights=np.ones((2, 3, 4))),
                       ops.prod(x, axis=0, dtype="float64"), ops.max(sample("bool"), axis=0, initial=True)])


def test_argmax_ties_and_negative_zero():
    x = np.array([[0.0, -0.0, 0.0], [-0.0, 0.0, -1.0], [1.0, 1.0, 0.5]], "float32")
    check(lambda ops: (ops.argmax(x, axis=1), ops.argmin(x, axis=1), ops.argmax(x.astype("int32"), axis=0)))


def test_max_of_empty_tensor():
    same(lambda lib: outcome(lambda: lib.keras.ops.max(np.zeros((0, 3), "float32"))))


CREATION = [
    lambda ops: ops.zeros((2, 3)), lambda ops: ops.ones((2,), dtype="int8"), lambda ops: ops.full((2, 2), 3),
    lambda ops: ops.full((3,), 1.5, dtype="float64"), lambda ops: ops.arange(5), lambda ops: ops.arange(1.0, 3.0),
    lambda ops: ops.arange(2, 11, 3), lambda ops: ops.arange(0, 1, 0.25), lambda ops: ops.arange(4, dtype="float16"),
    lambda ops: ops.arange(np.int64(5)), lambda ops: ops.linspace(0, 1, 5), lambda ops: ops.linspace(0, 10, 4,
                                                                                                      endpoint=False),
    lambda ops: ops.linspace(0, 10, 5, dtype="int32"), lambda ops: ops.linspace(2.0, 3.0, 5, retstep=True),
    lambda ops: ops.linspace(np.zeros(2), np.ones(2), 3, axis=1), lambda ops: ops.eye(3),
    lambda ops: ops.eye(3, 4, k=1), lambda ops: ops.eye(4, 3, k=-2, dtype="int32"), lambda ops: ops.identity(2),
    lambda ops: ops.tri(3, 4, k=-1), lambda ops: ops.tri(3), lambda ops: ops.zeros_like(sample("int8")),
    lambda ops: ops.ones_like(sample("float32"), dtype="int32"), lambda ops: ops.full_like(sample("int8"), 2.7),
    lambda ops: ops.empty((2, 2)), lambda ops: ops.empty_like(sample("bool")),
]


@pytest.mark.parametrize("make", CREATION)
def test_creation(make):
    check(make)


X = sample("float32", (2, 3, 4))
ARRAY = [
    lambda ops: ops.reshape(X, (4, -1)), lambda ops: ops.transpose(X), lambda ops: ops.transpose(X, (1, 0, 2)),
    lambda ops: ops.transpose(X, (0, 0, 1)), lambda ops: ops.expand_dims(X, 1), lambda ops: ops.expand_dims(X, (0, -1)),
    lambda ops: ops.squeeze(np.ones((1, 3, 1))), lambda ops: ops.squeeze(np.ones((1, 3, 1)), axis=-1),
    lambda ops: ops.squeeze(X, axis=0), lambda ops: ops.concatenate([X, X], axis=1),
    lambda ops: ops.concatenate([sample("int8"), sample("float16")]), lambda ops: ops.stack([X[0], X[1]], axis=-1),
    lambda ops: ops.stack([1, 2.5]), lambda ops: ops.hstack([X[0], X[1]]), lambda ops: ops.vstack([X[0], X[1]]),
    lambda ops: ops.append(X, X[:1], axis=0), lambda ops: ops.append(sample("int32"), sample("float32")),
    lambda ops: ops.where(X > 0, X, -X), lambda ops: ops.where(X > 0), lambda ops: ops.nonzero(X > 1),
    lambda ops: ops.where(X > 0, 1, 0.5), lambda ops: ops.tile(X[0], 2), lambda ops: ops.tile(X[0], (2, 1, 3)),
    lambda ops: ops.repeat(X, 2), lambda ops: ops.repeat(X, 2, axis=1), lambda ops: ops.repeat(X, [1, 2], axis=0),
    lambda ops: ops.pad(X, [[0, 0], [1, 2], [2, 0]]), lambda ops: ops.pad(X, [[1, 1], [1, 1], [0, 0]], "reflect"),
    lambda ops: ops.pad(X, [[1, 1], [1, 1], [0, 0]], "symmetric"), lambda ops: ops.pad(X, [[0, 0], [0, 0], [1, 1]],
                                                                                         constant_values=5.0),
    lambda ops: ops.split(X, 2), lambda ops: ops.split(X, [1, 3], axis=2), lambda ops: ops.array_split(X, 3, axis=2),
    lambda ops: ops.take(X, [0, 2, -1]), lambda ops: ops.take(X, np.array([[1, 0]]), axis=1),
    lambda ops: ops.take(X, -1, axis=2), lambda ops: ops.take_along_axis(X, np.argsort(np.asarray(X), axis=2), 2),
    lambda ops: ops.take_along_axis(X, np.zeros((1, 1, 2), "int32"), axis=-1),
    lambda ops: ops.take_along_axis(X[0, 0], np.array([3, 0]), None), lambda ops: ops.sort(X),
    lambda ops: ops.sort(X, axis=0), lambda ops: ops.sort(X, axis=None), lambda ops: ops.sort(X > 0),
    lambda ops: ops.argsort(X, axis=1), lambda ops: ops.argsort(np.array([3, 1, 2])), lambda ops: ops.flip(X),
    lambda ops: ops.flip(X, axis=(0, 2)), lambda ops: ops.roll(X, 2), lambda ops: ops.roll(X, -1, axis=1),
    lambda ops: ops.broadcast_to(X[0, 0], (3, 4)), lambda ops: ops.moveaxis(X, 0, -1),
    lambda ops: ops.moveaxis(X, (0, 1), (2, 0)), lambda ops: ops.swapaxes(X, 0, 2), lambda ops: ops.ravel(X),
    lambda ops: ops.diag(X[0]), lambda ops: ops.diag(X[0, 0], k=1), lambda ops: ops.diagonal(X),
    lambda ops: ops.diagonal(X, offset=1, axis1=1, axis2=2), lambda ops: ops.tril(X), lambda ops: ops.tril(X, k=-1),
    lambda ops: ops.triu(X, k=1), lambda ops: ops.trace(X), lambda ops: ops.trace(sample("int8", (3, 3)), offset=1),
    lambda ops: ops.diff(X), lambda ops: ops.diff(X, n=2, axis=0), lambda ops: ops.diff(X > 0, axis=1),
    lambda ops: ops.meshgrid(np.arange(3), np.arange(2)), lambda ops: ops.meshgrid(np.arange(3), np.arange(2),
                                                                                   indexing="ij"),
    lambda ops: ops.searchsorted(np.array([1.0, 2.0, 3.0]), np.array([0.5, 2.0, 4.0])),
    lambda ops: ops.searchsorted(np.array([1, 2, 2, 3]), np.array([2]), side="right"), lambda ops: ops.size(X),
    lambda ops: ops.ndim(X), lambda ops: ops.copy(X), lambda ops: ops.array([1, 2], dtype="float16"),
    lambda ops: ops.clip(X, -0.5, 0.5), lambda ops: ops.clip(sample("bool"), 0, 1),
    lambda ops: ops.select([X < 0, X > 1], [X, -X], 7.0), lambda ops: ops.unstack(X, axis=1),
]


@pytest.mark.parametrize("make", ARRAY)
def test_arrays(make):
    check(make)


LINALG = [
    lambda ops: ops.matmul(sample("float32", (3, 4)), sample("float32", (4, 2))),
    lambda ops: ops.matmul(sample("float32", (2, 3, 4)), sample("float32", (4, 2))),
    lambda ops: ops.matmul(sample("float32", (2, 3, 4)), sample("float32", (2, 4, 5))),
    lambda ops: ops.matmul(sample("float32", (4,)), sample("float32", (4, 2))),
    lambda ops: ops.matmul(sample("float32", (3, 4)), sample("float32", (4,))),
    lambda ops: ops.matmul(sample("int32", (3, 4)), sample("int32", (4, 2))),
    lambda ops: ops.matmul(sample("int8", (3, 4)), sample("int8", (4, 2))),
    lambda ops: ops.matmul(sample("int8", (3, 4)), sample("float16", (4, 2))),
    lambda ops: ops.dot(sample("float32", (3, 4)), sample("float32", (4, 2))),
    lambda ops: ops.dot(sample("float32", (3, 4)), sample("float32", (4,))), lambda ops: ops.dot(2, sample("int8")),
    lambda ops: ops.tensordot(sample("float32", (2, 3, 4)), sample("float32", (3, 4, 5))),
    lambda ops: ops.tensordot(sample("float32", (2, 3)), sample("float32", (3, 2)), axes=([1], [0])),
    lambda ops: ops.tensordot(sample("int8", (2, 3)), sample("int8", (3, 2)), axes=1),
    lambda ops: ops.outer(np.arange(3), np.arange(4.0)), lambda ops: ops.inner(sample("float32"), sample("float32")),
    lambda ops: ops.vdot(sample("float32"), sample("float32")),
    lambda ops: ops.einsum("ij,jk->ik", sample("float32", (2, 3)), sample("float32", (3, 4))),
    lambda ops: ops.einsum("abc,cd->abd", sample("float32", (2, 3, 4)), sample("float32", (4, 5))),
    lambda ops: ops.einsum("abcd,aecd->acbe", sample("float32", (2, 3, 4, 5)), sample("float32", (2, 6, 4, 5))),
    lambda ops: ops.einsum("ii->i", sample("float32", (3, 3))),
    lambda ops: ops.einsum("i,i", np.array([1, 2]), np.array([3, 4])),
    lambda ops: ops.einsum("ij->ji", sample("int8")), lambda ops: ops.cross(sample("float32", (4, 3)),
                                                                          sample("float32", (4, 3))),
    lambda ops: ops.cross(sample("float32", (4, 2)), sample("float32", (4, 2))),
    lambda ops: ops.norm(sample("float32", (3, 4))), lambda ops: ops.norm(sample("float32", (3, 4)), axis=1),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord=1, axis=0),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord=np.inf, axis=1, keepdims=True),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord=3, axis=-1), lambda ops: ops.norm(sample("int32", (5,)), ord=0),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord="fro"), lambda ops: ops.norm(sample("float32", (3, 4)), ord=1),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord=-np.inf), lambda ops: ops.norm(sample("float32", (3, 4)),
                                                                                       ord="nuc"),
    lambda ops: ops.norm(sample("float32", (2, 3, 4)), ord=2, axis=(1, 2), keepdims=True),
    lambda ops: ops.norm(sample("float32", (3, 4)), ord="fro", axis=0),
]


@pytest.mark.parametrize("make", LINALG)
def test_linalg(make):
    check(make, rtol=1e-4, atol=1e-5)


SQUARE = sample("float32", (3, 3)) + 4 * np.eye(3, dtype="float32")
SPD = SQUARE @ SQUARE.T


@pytest.mark.parametrize("make", [
    lambda ops: ops.inv(SQUARE), lambda ops: ops.det(SQUARE), lambda ops: ops.solve(SQUARE, np.ones(3, "float32")),
    lambda ops: ops.solve(SQUARE, np.ones((3, 2), "float32")), lambda ops: ops.cholesky(SPD),
    lambda ops: ops.cholesky(SPD, upper=True), lambda ops: ops.svd(SQUARE, compute_uv=False),
    lambda ops: ops.eigh(SPD)[0], lambda ops: ops.solve_triangular(np.tril(SQUARE), np.ones(3, "float32"), lower=True),
    lambda ops: ops.inv(np.ones((2, 3), "float32")), lambda ops: ops.det(np.ones(3, "float32")),
    lambda ops: ops.qr(np.ones(3, "float32")), lambda ops: ops.qr(SQUARE, mode="full"),
    lambda ops: ops.logdet(SPD), lambda ops: tuple(ops.slogdet(SQUARE)), lambda ops: ops.pinv(SQUARE),
    lambda ops: ops.matrix_rank(SQUARE), lambda ops: ops.cholesky_inverse(np.linalg.cholesky(SPD)),
    lambda ops: ops.cholesky_inverse(np.linalg.cholesky(SPD).T, upper=True),
    lambda ops: ops.lstsq(sample("float32", (5, 3)), sample("float32", (5,), seed=2)),
    lambda ops: ops.lstsq(sample("float32", (5, 3)), sample("float32", (5, 2), seed=2), rcond=0.1),
    lambda ops: ops.lstsq(sample("float32", (5, 3)), sample("float32", (4, 2), seed=2)),
])
def test_linalg_decompositions(make):
    check(make, rtol=1e-4, atol=1e-4)


def test_qr_and_svd_factor():
    def fn(lib):
        ops = lib.keras.ops
        q, r = ops.qr(sample("float32", (4, 3)))
        u, s, vh = ops.svd(sample("float32", (4, 3)), full_matrices=False)
        # Signs of factors are implementation choices: compare the products and the magnitudes.
        return (ops.matmul(q, r), np.abs(np.asarray(r)), ops.matmul(u * s, vh), s)

    same(fn, rtol=1e-4, atol=1e-5)


def test_gradient_through_ops():
    def fn(lib):
        ops = lib.keras.ops
        x = lib.tf.constant(sample("float32", (3, 4)))
        with lib.tf.GradientTape() as tape:
            tape.watch(x)
            y = ops.sum(ops.square(ops.matmul(x, ops.transpose(x)))) + ops.mean(ops.exp(ops.clip(x, -1, 1)))
            y = y + ops.sum(ops.where(x > 0, x, ops.zeros_like(x))) + ops.logsumexp(x) + ops.norm(x)
        return tape.gradient(y, x)

    same(fn, rtol=1e-4, atol=1e-5)


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    ops_names = set(dir(ours.ops))
    for name in ["matmul", "add", "mean", "sum", "reshape", "transpose", "concatenate", "stack", "expand_dims",
                 "squeeze", "where", "cast", "convert_to_tensor", "shape", "ones", "zeros", "arange", "exp", "log",
                 "sqrt", "square", "abs", "maximum", "minimum", "clip", "softmax", "relu", "sigmoid", "tanh",
                 "one_hot", "argmax", "take", "take_along_axis", "einsum", "norm", "erf", "logsumexp", "top_k",
                 "conv", "max_pool", "average_pool", "stop_gradient", "cond", "while_loop", "scan", "fori_loop",
                 "vectorized_map", "dot", "tensordot", "outer", "split", "tile", "repeat", "pad", "sort", "argsort",
                 "cumsum", "linspace", "eye", "tril", "triu", "floor", "ceil", "round", "sign", "all", "any", "equal",
                 "isnan", "isfinite", "nan_to_num", "var", "std", "prod", "min", "max", "moments",
                 "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy"]:
        assert name in ops_names and name in dir(keras.ops), name


NAN_X = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, -2.0, 0.5]], "float32")
EXTRA = [
    lambda ops: ops.fliplr(X), lambda ops: ops.flipud(X), lambda ops: ops.rot90(X), lambda ops: ops.rot90(X, k=3),
    lambda ops: ops.rot90(X, axes=(2, 0)),
    lambda ops: ops.dstack([X[0], X[1]]), lambda ops: ops.dstack([np.arange(3), np.ones(3, "float16")]),
    lambda ops: ops.hsplit(X, 3), lambda ops: ops.vsplit(X, 2), lambda ops: ops.dsplit(X, [1, 3]),
    lambda ops: ops.hsplit(np.arange(6.0), 2), lambda ops: ops.diagflat(X[0, :2]),
    lambda ops: ops.diagflat(np.arange(3), k=-1),
    lambda ops: ops.fmax(NAN_X, 2.0), lambda ops: ops.fmin(NAN_X, NAN_X.T), lambda ops: ops.fmax(sample("int8"), 1),
    lambda ops: ops.logaddexp2(X, -X), lambda ops: ops.sinc(X), lambda ops: ops.sinc(np.array([0, 1, 2])),
    lambda ops: ops.real(X), lambda ops: ops.imag(X), lambda ops: ops.conj(X), lambda ops: ops.conjugate(X),
    lambda ops: ops.erfc(X), lambda ops: ops.isin(np.array([[1, 2], [3, 4]]), np.array([2, 4, 9])),
    lambda ops: ops.isin(np.array([1.0, 2.5]), np.array([2.5]), invert=True),
    lambda ops: ops.logspace(0, 2, 5), lambda ops: ops.logspace(1, 2, 4, base=2, endpoint=False),
    lambda ops: ops.bitwise_and(np.array([12, 5]), np.array([10, 4])),
    lambda ops: ops.bitwise_or(np.array([12, 5], "int8"), np.array([10, 4], "int16")),
    lambda ops: ops.bitwise_xor(np.array([12, 5]), np.array([10, 4])), lambda ops: ops.bitwise_not(np.array([0, 5])),
    lambda ops: ops.bitwise_invert(np.array([1, 2], "uint8")), lambda ops: ops.left_shift(np.array([1, 3]), 2),
    lambda ops: ops.bitwise_right_shift(np.array([-8, 16]), np.array([1, 2])),
    lambda ops: ops.right_shift(np.array([8, 16], "int64"), 3),
    lambda ops: ops.nansum(NAN_X), lambda ops: ops.nansum(NAN_X, axis=1), lambda ops: ops.nansum(sample("int8")),
    lambda ops: ops.nanmean(NAN_X, axis=0), lambda ops: ops.nanmean(NAN_X, axis=1, keepdims=True),
    lambda ops: ops.nanmean(sample("int32"), axis=0), lambda ops: ops.nanmax(NAN_X, axis=1),
    lambda ops: ops.nanmin(NAN_X), lambda ops: ops.nanmax(sample("bool"), axis=0), lambda ops: ops.nanprod(NAN_X, 0),
    lambda ops: ops.nanvar(NAN_X, axis=1), lambda ops: ops.nanstd(NAN_X, axis=0),
    lambda ops: ops.nanargmax(NAN_X, axis=1), lambda ops: ops.nanargmin(NAN_X, axis=0),
    lambda ops: ops.nancumsum(NAN_X, axis=1), lambda ops: ops.nancumprod(NAN_X),
    lambda ops: ops.quantile(X, 0.3), lambda ops: ops.quantile(X, [0.1, 0.5, 0.9], axis=1),
    lambda ops: ops.quantile(X, 0.75, axis=(0, 2), keepdims=True),
    lambda ops: ops.quantile(X, np.array([0.25, 0.5]), axis=-1, method="lower"),
    lambda ops: ops.quantile(X, 0.4, axis=0, method="higher"), lambda ops: ops.quantile(X, 0.4, method="nearest"),
    lambda ops: ops.quantile(X, 0.45, axis=2, method="midpoint"), lambda ops: ops.quantile(NAN_X, 0.5, axis=1),
    lambda ops: ops.quantile(sample("int32", (5,)), 0.5), lambda ops: ops.percentile(X, 40, axis=1),
    lambda ops: ops.percentile(X, [10, 90]), lambda ops: ops.median(X), lambda ops: ops.median(X, axis=1),
    lambda ops: ops.median(X, axis=0, keepdims=True), lambda ops: ops.segment_min(X[0], np.array([0, 1, 1])),
    lambda ops: ops.segment_prod(X[0], np.array([0, 0, 2]), num_segments=3),
    lambda ops: ops.segment_min(X[0], np.array([0, 0, 1]), sorted=True),
]


@pytest.mark.parametrize("make", EXTRA)
def test_extra_numpy(make):
    check(make)


def test_rot90_half_turn_of_inner_axes():
    # (real Keras scrambles this case; vfw gives numpy's rotation)
    from vfw.tensorflow import keras

    np.testing.assert_array_equal(keras.ops.rot90(X, k=2, axes=(1, 2)), np.rot90(X, 2, (1, 2)))
