"""Fixes found by running real torch's docstring examples against vfw.torch: each case compares with torch 2.13."""

import math
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check, real, vt


def _complex(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _complex_grads(fn, *arrays):
    """``fn(lib, *tensors)``'s value and the gradients of ``Re(sum(w * value))`` (``w`` a fixed complex weight,
    which tells a result from its conjugate) in both libraries, as numpy."""
    results = []
    for lib in (real, vt):
        inputs = [lib.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
        out = fn(lib, *inputs)
        weight = lib.from_numpy(np.asarray(_complex(*out.shape, seed=7)))
        (out * weight).real.sum().backward()
        results.append([out.detach().resolve_conj().numpy()] + [t.grad.resolve_conj().numpy() for t in inputs])
    return results


# -- conjugate transposes ------------------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ["adjoint", "mH", "H"])
def test_conjugate_transposes_conjugate_complex_tensors(spelling):
    def fn(lib, x):
        return lib.adjoint(x) if spelling == "adjoint" else getattr(x, spelling)
    check(fn, _complex(3, 2))
    check(fn, np.arange(6.0).reshape(2, 3))  # real: the transpose
    (want, *want_grads), (got, *got_grads) = _complex_grads(fn, _complex(2, 2))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_grads[0], want_grads[0], rtol=1e-12)


def test_conjugate_transpose_docstring_example():
    def fn(lib):
        x = lib.arange(4, dtype=lib.float)
        a = lib.complex(x, x).reshape(2, 2)
        return a.adjoint(), (a.adjoint() == a.mH).all()
    check(fn)
    assert repr(fn(vt)[0]) == repr(fn(real)[0])  # the printed signs of zero imaginary parts too


def test_householder_product_and_ormqr_of_complex_reflectors():
    h, tau, other = _complex(2, 4, 3), _complex(2, 2, seed=1), _complex(2, 4, 2, seed=2)
    check(lambda lib, h, tau: lib.linalg.householder_product(h, tau), h, tau)
    for transpose in (False, True):
        check(lambda lib, h, tau, o, transpose: lib.ormqr(h, tau, o, transpose=transpose), h,
              _complex(2, 3, seed=3), other, transpose=transpose)
        check(lambda lib, h, tau, o, transpose: lib.ormqr(h, tau, o, left=False, transpose=transpose), h,
              _complex(2, 3, seed=3), other.swapaxes(-1, -2).copy(), transpose=transpose)
    check(lambda lib, h, tau, o: lib.ormqr(h, tau, o), h, tau, other)  # tau must hold min(m, n) reflectors
    want, got = _complex_grads(lambda lib, h, tau: lib.linalg.householder_product(h, tau), h, tau)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    x = vt.from_numpy(h).requires_grad_(True)
    assert type(vt.linalg.householder_product(x, vt.from_numpy(tau)).grad_fn).__name__ == \
        "LinalgHouseholderProductBackward0"


# -- special values ------------------------------------------------------------------------------------
def test_xlog1py_at_zero_input():
    x = np.array([0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 2.0], np.float32)
    y = np.array([-1.0, 1.0, math.inf, math.nan, -2.0, 0.0, math.inf, -1.0, 0.0], np.float32)
    check(lambda lib, x, y: lib.special.xlog1py(x, y), x, y)
    want = real.special.xlog1py(real.from_numpy(x), real.from_numpy(y)).numpy()
    got = vt.special.xlog1py(vt.from_numpy(x), vt.from_numpy(y)).numpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    check(lambda lib: lib.special.xlog1py(lib.zeros(5), lib.tensor([-1, 0, 1, float("inf"), float("nan")])))


def test_dist_of_complex_tensors():
    a, b = _complex(3, 2), _complex(2, seed=1)
    for p in (2, 1, 0, 3.5, math.inf):
        check(lambda lib, a, b, p: lib.dist(a, b, p), a, b, p=p)
    check(lambda lib, a: lib.dist(a.to(lib.complex64), lib.tensor([1.0, 2.0])), a)
    check(lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([1, 3])))  # integers still refused
    want, got = _complex_grads(lambda lib, a, b: lib.dist(a, b), a, b)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    x = vt.tensor([1.0, 2.0], requires_grad=True)
    assert type(vt.dist(x, vt.zeros(2)).grad_fn).__name__ == type(
        real.dist(real.tensor([1.0, 2.0], requires_grad=True), real.zeros(2)).grad_fn).__name__


# -- asarray's requires_grad ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"requires_grad": False}, {"requires_grad": True}, {"copy": True},
                                    {"copy": True, "requires_grad": False}, {"dtype": "float64"},
                                    {"dtype": "float64", "requires_grad": False}])
def test_asarray_of_a_tensor_with_history(kwargs):
    def fn(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a + 2
        options = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's one warning that requires_grad now follows obj's
            c = lib.asarray(b, **options)
        return c, c is b, c.requires_grad, c.grad_fn is None, c.data_ptr() == b.data_ptr()
    check(fn)


def test_asarray_explicit_requires_grad_does_not_warn():
    for lib in (real, vt):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.asarray(lib.ones(2, requires_grad=True) * 2, requires_grad=False)


@pytest.mark.parametrize("requires_grad", [None, False, True])
def test_asarray_of_a_leaf(requires_grad):
    def fn(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = lib.asarray(a) if requires_grad is None else lib.asarray(a, requires_grad=requires_grad)
        return c is a, a.requires_grad, c.requires_grad
    check(fn)


# -- memory formats of factories -----------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5, 7), (2, 3, 4, 5, 6)])
@pytest.mark.parametrize("memory_format", ["preserve_format", "contiguous_format", "channels_last",
                                           "channels_last_3d"])
def test_empty_memory_format(shape, memory_format):
    check(lambda lib: lib.empty(shape, memory_format=getattr(lib, memory_format)).stride())


def test_empty_memory_format_docstring_examples():
    def fn(lib):
        cl = lib.empty((2, 3, 5, 7), memory_format=lib.channels_last)
        return cl.stride(), cl.dim_order(), cl.is_contiguous(memory_format=lib.channels_last), cl.is_contiguous()
    check(fn)
    check(lambda lib: lib.zeros((2, 3), memory_format=lib.contiguous_format))  # only empty() takes one
    check(lambda lib: lib.empty((2, 3), memory_format=3))


@pytest.mark.parametrize("factory", ["empty_like", "zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("memory_format", [None, "preserve_format", "contiguous_format", "channels_last"])
def test_like_factories_memory_format(factory, memory_format):
    def fn(lib, x):
        x = x.transpose(1, 3)
        options = {} if memory_format is None else {"memory_format": getattr(lib, memory_format)}
        extra = (1.5,) if factory == "full_like" else ()
        t = getattr(lib, factory)(x, *extra, **options)
        return t.stride(), t if factory != "empty_like" else t.shape
    check(fn, np.zeros((2, 3, 5, 7), np.float32))


# -- hooks run in backward's grad mode -----------------------------------------------------------------
def test_post_accumulate_grad_hook_may_update_its_leaf_in_place():
    def fn(lib):
        v = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
        v.backward(lib.tensor([1.0, 2.0, 3.0]))
        return v.detach(), v.grad
    check(fn)
    for hook in (lambda p: p.detach(), lambda p: 3):  # anything else is still refused
        def refused(lib, hook=hook):
            v = lib.tensor([1.0], requires_grad=True)
            v.register_post_accumulate_grad_hook(hook)
            (v * 2).sum().backward()
        check(refused)


@pytest.mark.parametrize("create_graph", [False, True])
def test_leaf_hooks_see_backwards_grad_mode(create_graph):
    def fn(lib):
        seen = []
        v = lib.tensor([1.0, 2.0], requires_grad=True)
        v.register_hook(lambda g: seen.append(lib.is_grad_enabled()))
        v.register_post_accumulate_grad_hook(lambda p: seen.append(lib.is_grad_enabled()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph's reference-cycle warning
            (v * v).sum().backward(create_graph=create_graph)
        return seen, lib.is_grad_enabled()
    check(fn)


# -- typename and TypedStorage -------------------------------------------------------------------------
class _Local:
    pass


def test_typename():
    check(lambda lib: [lib.typename(x) for x in (lib.tensor([1, 2]), lib.tensor([1.0]), 3, int, math.sin, "s",
                                                 None, [1], _Local, _Local(), lib.nn.Parameter(lib.ones(2)))])


def test_typed_storage_constructors():
    def fn(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sized = lib.TypedStorage(5, dtype=lib.float32)
            data = lib.TypedStorage([1, 2, 3], dtype=lib.int64)
            default, empty = lib.TypedStorage(3), lib.TypedStorage()
            wrapped = lib.TypedStorage(wrap_storage=lib.tensor([1, 2], dtype=lib.int32).untyped_storage(),
                                       dtype=lib.int32)
        return (sized.size(), sized.nbytes(), sized.dtype, lib.is_storage(sized), data.tolist(), data.dtype,
                default.dtype, default.size(), empty.size(), wrapped.tolist())
    check(fn)
    for args in [(1.5,), (2, 3)]:
        def refused(lib, args=args):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.TypedStorage(*args)
        check(refused)
