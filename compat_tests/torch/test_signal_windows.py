"""torch.signal.windows against real torch 2.13: values for every window, symmetric and periodic, float32 and
float64, sizes 0/1/2/odd/even; the shape parameters; torch's errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

WINDOWS = [
    ("bartlett", {}), ("blackman", {}), ("cosine", {}), ("hamming", {}), ("hann", {}), ("nuttall", {}),
    ("kaiser", {}), ("kaiser", {"beta": 3.5}), ("gaussian", {}), ("gaussian", {"std": 2.5}),
    ("exponential", {}), ("exponential", {"tau": 2.0}), ("general_hamming", {}), ("general_hamming", {"alpha": 0.3}),
    ("general_cosine", {"a": [0.4, 0.3, 0.3]}), ("general_cosine", {"a": (1.0,)}),
]


def _dtypes(name):
    return getattr(torch, name), getattr(vt, name)


@pytest.mark.parametrize("name,kwargs", WINDOWS)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values_match_torch(name, kwargs, sym, dtype):
    real_dtype, our_dtype = _dtypes(dtype)
    for M in [0, 1, 2, 7, 10]:
        want = getattr(torch.signal.windows, name)(M, sym=sym, dtype=real_dtype, **kwargs)
        got = getattr(vt.signal.windows, name)(M, sym=sym, dtype=our_dtype, **kwargs)
        assert got.dtype == our_dtype and tuple(got.shape) == tuple(want.shape)
        tolerance = 2e-7 if dtype == "float32" else 1e-14
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tolerance * 5, atol=tolerance)


def test_exponential_center_of_periodic_window():
    for M, center in [(1, 1.5), (5, 1.0), (6, 4.5)]:
        want = torch.signal.windows.exponential(M, sym=False, center=center, dtype=torch.float64)
        got = vt.signal.windows.exponential(M, sym=False, center=center, dtype=vt.float64)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)


def test_default_dtype_and_requires_grad():
    assert vt.signal.windows.hann(4).dtype == vt.float32
    vt.set_default_dtype(vt.float64)
    try:
        assert vt.signal.windows.cosine(4).dtype == vt.float64
    finally:
        vt.set_default_dtype(vt.float32)
    window = vt.signal.windows.kaiser(5, requires_grad=True)
    assert window.requires_grad and torch.signal.windows.kaiser(5, requires_grad=True).requires_grad
    (window * vt.arange(5.0)).sum().backward()
    np.testing.assert_array_equal(window.grad.numpy(), np.arange(5.0))


ERROR_CALLS = [
    ("hann", (-1,), {}), ("nuttall", (3,), {"dtype": "int64"}), ("bartlett", (-2,), {}),
    ("blackman", (3,), {"dtype": "int32"}), ("cosine", (3,), {"layout": "sparse_coo"}),
    ("kaiser", (4,), {"beta": -1.0}), ("gaussian", (4,), {"std": 0.0}), ("exponential", (5,), {"center": 1.0}),
    ("exponential", (5,), {"tau": 0.0}), ("general_cosine", (4,), {"a": []}), ("general_cosine", (4,), {"a": 3}),
    ("general_cosine", (4,), {}), ("hamming", (-3,), {}), ("exponential", (-1,), {"sym": False}),
]


@pytest.mark.parametrize("name,args,kwargs", ERROR_CALLS)
def test_errors_match_torch(name, args, kwargs):
    def resolved(lib):
        return {k: getattr(lib, v) if k in ("dtype", "layout") else v for k, v in kwargs.items()}

    with pytest.raises(Exception) as real_error:
        getattr(torch.signal.windows, name)(*args, **resolved(torch))
    with pytest.raises(type(real_error.value)) as our_error:
        getattr(vt.signal.windows, name)(*args, **resolved(vt))
    assert str(our_error.value) == str(real_error.value)


def test_namespace_matches_torch():
    assert sorted(vt.signal.windows.__all__) == sorted(torch.signal.windows.__all__)
    assert vt.signal.windows.windows.hann is vt.signal.windows.hann
    with pytest.raises(TypeError):
        vt.signal.windows.hann(2.0)
