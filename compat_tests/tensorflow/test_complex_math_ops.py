"""Complex inputs to tf.math's elementwise functions, pow and reduce_prod against real TensorFlow 2.21: values,
dtypes, gradients through tapes and the dtype errors of the functions that still refuse complex."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

_UNARY = ["exp", "sqrt", "square", "math.log", "sin", "cos", "tan", "tanh", "math.sinh", "math.cosh", "sigmoid",
          "math.reciprocal", "math.rsqrt", "negative", "sign"]


def _fn(tf, path):
    fn = tf
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def _cplx(shape, dtype="complex64", seed=0):
    re, im = arrays(shape, shape, seed=seed, low=0.3, high=1.5)
    sign = np.where(np.arange(re.size).reshape(shape) % 2, -1, 1)
    return (re * sign + 1j * im).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", _UNARY)
def test_unary_values(name, dtype):
    check(lambda tf, z: _fn(tf, name)(z), _cplx((2, 3), dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _UNARY)
def test_unary_gradients(name):
    re, im = arrays((2, 3), (2, 3), seed=3, low=0.3, high=1.5)

    def fn(tf, a, b):
        w = _fn(tf, name)(tf.complex(a, b))
        return [tf.math.real(w), tf.math.imag(w)]

    check_grad(fn, re, im, rtol=1e-4, atol=1e-5)


def test_pow_and_reduce_prod():
    z, w = _cplx((2, 3), seed=1), _cplx((2, 3), seed=2)
    check(lambda tf, a, b: [tf.pow(a, b), a ** 2.0, tf.math.reduce_prod(a), tf.math.reduce_prod(a, axis=1),
                            tf.reduce_prod(b, axis=0, keepdims=True)], z, w)
    check(lambda tf, a, b: tf.pow(a, b), z.astype("complex128"), w.astype("complex128"))
    re, im = arrays((2, 3), (2, 3), seed=5, low=0.3, high=1.5)

    def fn(tf, a, b):
        u, v = tf.complex(a, b), tf.complex(b, a)
        outs = [tf.pow(u, v), tf.math.reduce_prod(u, axis=1), tf.math.reduce_prod(v)]
        return [part(o) for o in outs for part in (tf.math.real, tf.math.imag)]

    check_grad(fn, re, im, rtol=1e-4, atol=1e-5)


def test_still_refused_and_dtype_errors():
    z = _cplx((3,))
    check(lambda tf, a: tf.math.is_finite(a), z)
    check(lambda tf, a: tf.math.log_sigmoid(a), z)
    for name in _UNARY + ["math.reduce_prod"]:
        check(lambda tf, a, name=name: _fn(tf, name)(a), np.array([True, False]))
    check(lambda tf, a: tf.math.reciprocal(a), np.array([1, 2], np.int32))  # no int kernel
    check(lambda tf, a, b: tf.pow(a, b), z, z.real.copy())


# -- N-dimensional transforms: TF 2.21 has no CPU kernel for them ------------------------------------------
@pytest.mark.parametrize("name", ["fftnd", "ifftnd", "rfftnd", "irfftnd"])
def test_fftnd_has_no_cpu_kernel(name):
    x = arrays((2, 3, 4))
    z = _cplx((2, 3, 4))
    for value in (x, z, z.astype("complex128"), np.array(1, np.int32)):
        check(lambda tf, a: getattr(tf.signal, name)(a), value)
        check(lambda tf, a: getattr(tf.signal, name)(a, fft_length=[3, 4], axes=[1, 2], norm="ortho"), value)
        check(lambda tf, a: getattr(tf, name)(a, [3, 4], [1, 2]), value)
    import tensorflow as real_tf
    import vfw.tensorflow as vtf
    messages = []
    for lib in (real_tf, vtf):  # the message names the op and its type attributes
        with pytest.raises(lib.errors.NotFoundError) as caught:
            getattr(lib.signal, name)(lib.constant(x if name == "rfftnd" else z))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
