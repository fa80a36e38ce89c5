"""vfw.torch tensor printing against real torch: ``repr``/``str``/``print`` must match character for character."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat_tests.torch.harness import real, vt
from vfw.frontends.torch import _dispatch

NAN, INF = math.nan, math.inf
LIBS = (real, vt)


@pytest.fixture(autouse=True)
def _restore_options():
    """Print options and the default dtype are global: every test leaves them at torch's defaults."""
    yield
    for lib in LIBS:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


def reprs(make, *arrays, options=None, requires_grad=False):
    """``repr`` and ``str`` of ``make(torch, *tensors)`` in real torch and in vfw.torch."""
    out = []
    for lib in LIBS:
        if options is not None:
            lib.set_printoptions(**options)
        tensors = [lib.from_numpy(np.array(a)) for a in arrays]
        if requires_grad:
            tensors = [t.requires_grad_() for t in tensors]
        t = make(lib, *tensors)
        out.append((repr(t), str(t)))
        lib.set_printoptions(profile="default")
    return out


def assert_same_repr(make, *arrays, options=None, requires_grad=False):
    (want, want_str), (got, got_str) = reprs(make, *arrays, options=options, requires_grad=requires_grad)
    assert got == want
    assert got_str == want_str == want


def same_repr_of(array, **kwargs):
    assert_same_repr(lambda torch, t: t, array, **kwargs)


# -- dtypes and element formats -----------------------------------------------------------
DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("values", [[1, 0, 3], [[1, -2], [3, 4]], 5, [], [[]], [7], [[[1], [0]], [[1], [1]]],
                                    [100, 1, 0, 120], [[-1, 2, -3]]])
def test_dtypes(dtype, values):
    array = np.array(values, dtype=np.float64)
    same_repr_of(np.abs(array).astype(dtype) if dtype == "uint8" else array.astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("values", [[0.1, 2.5], [1e10, 1.0], 3.5, [1.0, 2.0], [[0.25, -1.5], [1e-3, 7.0]], [],
                                    [NAN, 1.5, -INF]])
def test_float_dtypes(dtype, values):
    def make(torch):
        return torch.tensor(values, dtype=getattr(torch, dtype))
    assert_same_repr(make)


@pytest.mark.parametrize("values", [
    [1.0, 2.0], [1.5, 2.0], [-1.0, 1.0], [-1.0, 10.0], [0.0, 100.0], [0.1, 0.25], [123456.789],
    [1e10, 1.0], [1e-5, 1.0], [1e-4, 1.0], [2e-4, 0.1], [1e8], [1.5e8], [1e8 + 8], [1000.0, 1.0], [1001.0, 1.0],
    [1e-10, 0.0], [-1e-5, 1.0], [1e-4, 1e-4], [0.9871312, 0.0009871311], [65504.0], [1e38, -1e-38],
    [NAN, INF, 1.0], [NAN, INF], [1e10, NAN, INF], [1e10, NAN, 1.5], [-INF, 1.0], [-INF, 1.5], [-INF, 100.5],
    [0.0, NAN, -0.0], [0.0, 0.0], [-0.0, 1.0], [-0.0, 1.5], [0.0, NAN], [1.0, -0.0, NAN, 2.0],
    [99999999.5], [0.00015, 0.5], [1e-45, 1.0], [3.4e38, 1.0], [-2.5, 2.5, 0.0],
])
def test_float_notation(values):
    same_repr_of(np.array(values, dtype=np.float32))


@pytest.mark.parametrize("values", [[1e300, 1e-300], [1e100, 1.0], [1e-100, 1.0], [1.5e300], [1e8 + 0.5], [1e8 + 1],
                                    [5e-324, 1.0], [-1e-100, -1e-5, 1e-200], [1.0, 2.0 ** 60]])
def test_float64_notation(values):
    same_repr_of(np.array(values, dtype=np.float64))


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, 1.5, -2.25, 1e10, 1e-5, NAN, INF, -INF, 123456789.0, 1e8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_zero_dim_floats(value, dtype):
    with np.errstate(over="ignore"):
        same_repr_of(np.array(value, dtype=dtype))


@pytest.mark.parametrize("array", [np.array(5), np.array(-3, np.int32), np.array(True), np.array(False),
                                   np.array(200, np.uint8), np.array([-2 ** 63, 2 ** 63 - 1]),
                                   np.array([1, -2, 300]), np.array([[1, -2], [100, 4]], np.int8),
                                   np.array([True, False]), np.array([True] * 100), np.array([[True], [False]]),
                                   np.array([1, 60000], np.uint16), np.array([1, 2 ** 32 - 1], np.uint32),
                                   np.array([1, 2 ** 64 - 1], np.uint64)])
def test_integers_and_bools(array):
    same_repr_of(array)


@pytest.mark.parametrize("values", [[1.5 + 2j, -1 - 0.5j], [1e10 + 1j], [complex(NAN, 1), 1 + 1j], [1j],
                                    [1 + 2j, 1 + 200j], [1 + 2j, -100 + 1.5j], [1e-5 + 2j], [0j, 1j],
                                    [complex(NAN, NAN), complex(INF, -INF)], [1.5 - 1e10j, 1 + 1j],
                                    [complex(-0.0, -0.0)]])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex(values, dtype):
    same_repr_of(np.array(values, dtype=dtype))


# -- shapes, empty tensors, summarization and wrapping --------------------------------------
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 3), (0, 0), (3, 0, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "bfloat16", "complex64"])
def test_empty(shape, dtype):
    assert_same_repr(lambda torch: torch.zeros(shape, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("shape", [(30,), (1000,), (1001,), (2000,), (2, 2, 2), (2, 2, 2, 2), (40, 50), (7, 7, 7, 3),
                                   (1, 1, 1, 1, 1, 1), (3, 1, 400), (10, 10, 50), (1, 2000), (2000, 1), (5, 300)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
def test_shapes_and_summaries(shape, dtype):
    same_repr_of(np.arange(math.prod(shape)).reshape(shape).astype(dtype))


@pytest.mark.parametrize("divisor", [1, 3, 7e-6, 1e7])
@pytest.mark.parametrize("shape", [(30,), (4, 25), (3, 4, 30), (2500,), (50, 50)])
def test_wrapping(divisor, shape):
    same_repr_of(np.arange(math.prod(shape), dtype=np.float32).reshape(shape) / np.float32(divisor))


def test_summary_formats_only_the_shown_values():
    # The hidden middle value would force a wider format if it were considered.
    z = np.zeros(2000, np.float32)
    z[1000] = 12345.5
    same_repr_of(z)
    same_repr_of(np.where(np.arange(3000) == 1500, 10 ** 9, np.arange(3000)))


# -- suffixes -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 4, 13, 14, 15, 16, 17, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_requires_grad_suffix(n, dtype):
    same_repr_of(np.arange(n, dtype=dtype), requires_grad=True)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 35)])
def test_requires_grad_suffix_shapes(shape):
    same_repr_of(np.ones(shape, np.float64), requires_grad=True)


@pytest.mark.parametrize("shape", [(), (4,), (14,), (2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_fn_suffix(shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    a = real.from_numpy(x.copy()).requires_grad_()
    b = vt.from_numpy(x.copy()).requires_grad_()
    want, got = repr(a * a), repr(_dispatch.call("Mul", b, b))
    assert got == want


@pytest.mark.parametrize("linewidth", range(20, 60, 3))
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float16, np.complex128])
def test_suffix_wrapping(linewidth, dtype):
    for n in (1, 2, 5, 9):
        same_repr_of(np.arange(n).astype(dtype), options={"linewidth": linewidth})
        if dtype is np.float16:
            same_repr_of(np.arange(n).astype(dtype), options={"linewidth": linewidth}, requires_grad=True)
    same_repr_of(np.zeros((0, 7), dtype), options={"linewidth": linewidth})


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "complex128"])
@pytest.mark.parametrize("values", [[1.0, 2.0], [], 2.5])
def test_default_dtype_decides_dtype_suffix(default, dtype, values):
    def make(torch):
        torch.set_default_dtype(getattr(torch, default))
        return torch.tensor(values, dtype=getattr(torch, dtype))
    assert_same_repr(make)


# -- print options --------------------------------------------------------------------------
OPTION_ARRAYS = [np.array([1.23456, 1e10], np.float32), np.array([1.53456], np.float32), np.array([1.0, 2.0]),
                 np.arange(20.0).reshape(4, 5) / 3, np.arange(2000), np.array(3.5), np.array([1, 2], np.int32),
                 np.arange(12.0).reshape(6, 1, 2), np.zeros((0, 2)), np.array([NAN, 1e-10, 2.0]),
                 np.arange(10.0) / 3]


@pytest.mark.parametrize("options", [
    {"precision": 2}, {"precision": 0}, {"precision": 8}, {"threshold": 5}, {"threshold": 0, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 2}, {"threshold": 5, "edgeitems": 0}, {"edgeitems": 0}, {"linewidth": 20},
    {"linewidth": 1}, {"linewidth": 200}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
    {"profile": "full"}, {"profile": "default"}, {"profile": "short", "precision": 6},
])
@pytest.mark.parametrize("index", range(len(OPTION_ARRAYS)))
def test_printoptions(options, index):
    same_repr_of(OPTION_ARRAYS[index], options=options)


def test_get_printoptions_follows_set_printoptions():
    from torch._tensor_str import get_printoptions as real_get
    from vfw.torch._tensor_str import get_printoptions
    for calls in ([{}], [{"precision": 2}], [{"sci_mode": False}, {"profile": "short"}], [{"profile": "full"}],
                  [{"profile": "bogus"}], [{"threshold": 5, "edgeitems": 1, "linewidth": 40, "sci_mode": True}]):
        for kwargs in calls:
            real.set_printoptions(**kwargs)
            vt.set_printoptions(**kwargs)
        assert get_printoptions() == real_get()
    real.set_printoptions(profile="default")
    vt.set_printoptions(profile="default")
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                     "sci_mode": None}


def test_printoptions_context_manager_restores():
    from vfw.frontends.torch._tensor_str import printoptions
    x = vt.tensor([1.23456])
    with printoptions(precision=2):
        assert repr(x) == "tensor([1.23])"
    assert repr(x) == "tensor([1.2346])"


def test_print(capsys):
    printed = []
    for lib in LIBS:
        print(lib.tensor([[1.5, 2.0], [3.0, 4.0]], dtype=lib.float64))
        printed.append(capsys.readouterr().out)
    assert printed[1] == printed[0] == "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]], dtype=torch.float64)\n"


# -- random arrays ---------------------------------------------------------------------------
@st.composite
def float_arrays(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64, np.float16]))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
    width = {np.float16: 16, np.float32: 32, np.float64: 64}[dtype]
    elements = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    if draw(st.booleans()):  # mostly finite values of one random magnitude, as real data looks
        elements = st.floats(-1, 1, width=width) | st.sampled_from([0.0, NAN])
    array = draw(hnp.arrays(dtype, shape, elements=elements))
    exponent = draw(st.integers(-30, 30) if dtype is np.float64 else st.integers(-6, 6))
    with np.errstate(all="ignore"):
        scale = dtype(10.0) ** exponent
        array = array * scale if draw(st.booleans()) else np.round(array * scale)
    return np.asarray(array, dtype=dtype)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(float_arrays(), st.booleans())
def test_random_float_arrays(array, requires_grad):
    same_repr_of(array, requires_grad=requires_grad)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(float_arrays(), st.integers(0, 8), st.integers(0, 60), st.integers(1, 4), st.integers(10, 120),
       st.sampled_from([None, True, False]))
def test_random_float_arrays_with_options(array, precision, threshold, edgeitems, linewidth, sci_mode):
    options = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth,
               "sci_mode": sci_mode}
    same_repr_of(array, options=options)


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(st.sampled_from([np.int8, np.int32, np.int64, np.uint8, np.bool_]),
                  hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12)))
def test_random_integer_arrays(array):
    same_repr_of(array)
