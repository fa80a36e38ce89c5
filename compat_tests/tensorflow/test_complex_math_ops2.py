"""More complex inputs against real TensorFlow 2.21: expm1, log1p, the inverse trigonometric and hyperbolic functions,
xlogy/xdivy/xlog1py, multiply_no_nan, divide_no_nan, squared_difference, equal/not_equal, reduce_euclidean_norm,
add_n, tf.linalg.det/slogdet/inv/trace (values, dtypes, tape gradients of real losses, zeros in the no-nan ops)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

_UNARY = ["math.expm1", "math.log1p", "math.asin", "math.acos", "math.atan", "math.asinh", "math.acosh", "math.atanh",
          "asin", "acos", "atan", "asinh", "acosh", "atanh"]
_BINARY = ["math.xlogy", "math.xdivy", "math.xlog1py", "math.multiply_no_nan", "math.divide_no_nan",
           "math.squared_difference", "equal", "not_equal", "math.equal", "math.not_equal"]


def _fn(tf, path):
    fn = tf
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def _cplx(shape, dtype="complex64", seed=0):
    re, im = arrays(shape, shape, seed=seed, low=-1.5, high=1.5)
    return (re + 1j * im).astype(dtype)


def _parts(tf, outs):
    """Real and imaginary parts of complex outputs (so that the harness's weighted sum is a real loss)."""
    return [part(o) for o in outs for part in (tf.math.real, tf.math.imag)] if outs[0].dtype.is_complex else outs


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", _UNARY)
def test_unary_values(name, dtype):
    check(lambda tf, z: _fn(tf, name)(z), _cplx((2, 3), dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _UNARY[:8])
def test_unary_gradients(name):
    re, im = arrays((2, 3), (2, 3), seed=3, low=-1.5, high=1.5)
    check_grad(lambda tf, a, b: _parts(tf, [_fn(tf, name)(tf.complex(a, b))]), re, im, rtol=1e-4, atol=1e-5)


def _with_zeros(z):
    z = z.copy()
    z.flat[::3] = 0
    return z


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", _BINARY)
def test_binary_values(name, dtype):
    x, y = _cplx((2, 3), dtype, seed=1), _cplx((2, 3), dtype, seed=2)
    check(lambda tf, a, b: _fn(tf, name)(a, b), x, y, rtol=1e-5, atol=1e-6)
    check(lambda tf, a, b: _fn(tf, name)(a, b), _with_zeros(x), _with_zeros(y[::-1]), rtol=1e-5, atol=1e-6)
    check(lambda tf, a, b: _fn(tf, name)(a, b), x, y[:1], rtol=1e-5, atol=1e-6)  # broadcast
    check(lambda tf, a: _fn(tf, name)(a, a), x)


@pytest.mark.parametrize("name", _BINARY[:6])
def test_binary_gradients(name):
    re, im = arrays((2, 3), (2, 3), seed=4, low=-1.5, high=1.5)
    re2, im2 = arrays((2, 3), (2, 3), seed=5, low=-1.5, high=1.5)
    if "no_nan" in name:  # a zero y: 0 and a zero gradient there
        re2[0, 0] = im2[0, 0] = 0
    else:  # a zero x: xlogy/xdivy/xlog1py give 0 there (a zero y is left out: TF's complex x / 0 is nan+nanj)
        re[0, 0] = im[0, 0] = 0

    def fn(tf, a, b, c, d):
        return _parts(tf, [_fn(tf, name)(tf.complex(a, b), tf.complex(c, d))])
    check_grad(fn, re, im, re2, im2, rtol=1e-4, atol=1e-5)


def test_binary_dtype_errors():
    z = _cplx((3,))
    for name in _BINARY:
        check(lambda tf, a, b, name=name: _fn(tf, name)(a, b), z, z.astype("complex128"))
        check(lambda tf, a, b, name=name: _fn(tf, name)(a, b), z, z.real.copy())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_euclidean_norm_and_add_n(dtype):
    z, w = _cplx((2, 3, 4), dtype, seed=6), _cplx((2, 3, 4), dtype, seed=7)
    check(lambda tf, a: [tf.math.reduce_euclidean_norm(a), tf.math.reduce_euclidean_norm(a, axis=1),
                         tf.math.reduce_euclidean_norm(a, axis=[0, 2], keepdims=True),
                         tf.math.reduce_euclidean_norm(a, axis=-1, keepdims=False)], z)
    check(lambda tf, a, b: [tf.add_n([a, b, a]), tf.math.add_n([b]), tf.add_n(a)], z, w)
    check(lambda tf, a, b: tf.add_n([a, b]), z, w.astype("complex128" if dtype == "complex64" else "complex64"))


def test_euclidean_norm_and_add_n_gradients():
    re, im = arrays((2, 3, 4), (2, 3, 4), seed=8, low=-1.5, high=1.5)

    def fn(tf, a, b):
        z = tf.complex(a, b)
        w = tf.complex(b, a * 2)
        outs = [tf.math.reduce_euclidean_norm(z, axis=1), tf.math.reduce_euclidean_norm(z, axis=[0, 2], keepdims=True),
                tf.math.reduce_euclidean_norm(w), tf.add_n([z, w, z])]
        return [part(o) for o in outs for part in (tf.math.real, tf.math.imag)]
    check_grad(fn, re, im, rtol=1e-4, atol=1e-5)


_MATRICES = _cplx((2, 3, 3), "complex128", seed=9)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_linalg_values(dtype):
    a = _MATRICES.astype(dtype)
    rtol = 1e-4 if dtype == "complex64" else 1e-10
    check(lambda tf, m: [tf.linalg.det(m), tf.linalg.inv(m), tf.linalg.inv(m, adjoint=True), tf.linalg.trace(m),
                         tuple(tf.linalg.slogdet(m)), tf.linalg.diag_part(m)], a, rtol=rtol, atol=rtol)


def test_linalg_singular_and_errors():
    singular = np.array([[1, 2j], [1, 2j]], np.complex128)
    check(lambda tf, m: [tf.linalg.det(m), tuple(tf.linalg.slogdet(m))], singular)
    check(lambda tf, m: tf.linalg.inv(m), singular)  # InvalidArgumentError
    check(lambda tf, m: tf.linalg.det(m), _MATRICES[..., :2])
    check(lambda tf, m: tf.linalg.inv(m), _MATRICES[0, 0])


@pytest.mark.parametrize("name", ["det", "inv", "inv_adjoint", "trace", "slogdet"])
def test_linalg_gradients(name):
    # TF's own gradients, which for det (g det(A) A^-H) and slogdet (the sign taken as constant) are not the
    # conjugate derivatives torch gives
    functions = {"det": lambda tf, m: [tf.linalg.det(m)], "inv": lambda tf, m: [tf.linalg.inv(m)],
                 "inv_adjoint": lambda tf, m: [tf.linalg.inv(m, adjoint=True)],
                 "trace": lambda tf, m: [tf.linalg.trace(m)], "slogdet": lambda tf, m: list(tf.linalg.slogdet(m))}

    def fn(tf, a, b):
        return _parts(tf, functions[name](tf, tf.complex(a, b)))
    check_grad(fn, _MATRICES.real.copy(), _MATRICES.imag.copy(), rtol=1e-8, atol=1e-9)
