"""Divergences from torch 2.13 found by a differential probe of everyday calls, each checked against real torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad, vt


# -- arange with an integer dtype and fractional bounds -------------------------------------------------
@pytest.mark.parametrize("bounds", [(0, 5, 1.5), (0.5, 5, 1.5), (1, 6, 2.5), (0, -5, -1.5), (-0.5, 3.7, 0.9),
                                    (0, 5.5, 1.5), (0.5, 3, 1), (0, 1, 0.3), (2, 9, 3)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_arange_integer_dtype_fractional_bounds(bounds, dtype):
    check(lambda torch: torch.arange(*bounds, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("bounds", [(0, float("inf")), (float("-inf"), 0), (0, float("nan")), (5, 0, 1),
                                    (0.0, 5, -1)])
def test_arange_bad_ranges_raise(bounds):
    check(lambda torch: torch.arange(*bounds))


def test_arange_bad_range_messages():
    with pytest.raises(RuntimeError, match="unsupported range: 0 -> inf"):
        vt.arange(0, float("inf"))
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
        vt.arange(5, 0, 1)


# -- uint16/32/64 promotion ---------------------------------------------------------------------------
@pytest.mark.parametrize("pair", [("uint16", "int16"), ("uint32", "int64"), ("uint16", "bool"),
                                  ("uint16", "uint8"), ("uint64", "uint16"), ("uint16", "float32"),
                                  ("uint32", "float16"), ("uint16", "uint16"), ("uint64", "complex64"),
                                  ("uint16", "complex128"), ("uint32", "bfloat16")])
def test_promote_types_of_wide_unsigned(pair):
    check(lambda torch: torch.promote_types(*(getattr(torch, n) for n in pair)))


def test_wide_unsigned_promotion_error_in_ops():
    a = np.array([1, 2], np.uint16)
    b = np.array([3, 4], np.int16)
    check(lambda torch, a, b: a + b, a, b)
    check(lambda torch, a, b: torch.cat([a, b]), a, b)
    check(lambda torch, a, b: torch.result_type(a, b), a, b)
    with pytest.raises(RuntimeError, match="attempted to promote UInt16 and Short"):
        vt.promote_types(vt.uint16, vt.int16)


# -- scatter_reduce takes "max"/"min" too -------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_max_min_spellings(reduce, include_self):
    x = np.array([1.0, 5.0, 1.0, -1.0, 1.0], np.float32)
    src = np.array([3.0, 2.0, 7.0, -4.0], np.float32)
    index = np.array([0, 1, 1, 3])
    check(lambda torch, x, i, s: x.scatter_reduce(0, i, s, reduce=reduce, include_self=include_self), x, index, src)


def test_scatter_reduce_unknown_reduce_raises():
    x = np.ones(3, np.float32)
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0]), torch.tensor([2.0]), reduce="maximum"), x)


# -- `element in tensor` ------------------------------------------------------------------------------
@pytest.mark.parametrize("element", [1.0, 7, True, 1 + 0j, np.float64(2.0), "a", None, [1]])
def test_contains_scalars_and_refusals(element):
    check(lambda torch, x: element in x, np.arange(6.0, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("element", [np.array([0, 9]), np.array([[9, 9, 9]]), np.array(4), np.array([[7], [8]])])
def test_contains_tensor_broadcasts(element):
    check(lambda torch, x, e: e in x, np.arange(6).reshape(2, 3), element)


# -- atan2's gradient where y^2 + x^2 is 0 -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_gradient_at_the_origin_and_underflow(dtype):
    y = np.array([0.0, 1e-30, 0.0, -0.0, 1.0, -2.0], dtype)
    x = np.array([0.0, 0.0, -0.0, 1.0, 0.0, 3.0], dtype)
    check_grad(lambda torch, y, x: torch.atan2(y, x), y, x)


# -- class-index losses: torch's order of target checks -----------------------------------------------
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shapes", [((2, 3), (1, 2), "float32"), ((2, 3), (2,), "float32"), ((2, 3), (2, 2), "float32"),
                                    ((2, 3), (3, 3), "float32"), ((2, 3, 4), (2, 4), "float32"),
                                    ((2, 3, 4), (3, 4), "float32"), ((2, 3, 4), (2, 5), "int64"),
                                    ((3,), (2,), "float32"), ((3,), (2,), "int64"), ((3,), (1, 1), "int64"),
                                    ((3,), (1, 1), "float32"), ((3,), (), "int64"), ((2, 3), (2,), "int32")])
def test_class_index_loss_target_checks(loss, shapes):
    in_shape, target_shape, target_dtype = shapes
    x = np.linspace(-1, 1, int(np.prod(in_shape))).astype(np.float32).reshape(in_shape)
    target = np.zeros(target_shape, target_dtype)
    check(lambda torch, x, t: getattr(torch.nn.functional, loss)(x, t), x, target)


# -- unique / unique_consecutive along a dim of an empty tensor ----------------------------------------
@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape, dim", [((0, 2), 0), ((2, 0), 1), ((2, 0, 3), -2), ((0, 2, 3), 0), ((0,), 0),
                                        ((2, 0), 0), ((0, 2, 0), 1), ((0, 0), 1), ((0, 2), 1)])
def test_unique_dim_of_empty_tensor(fn, shape, dim):
    x = np.zeros(shape, np.float32)
    check(lambda torch, x: getattr(torch, fn)(x, dim=dim, return_inverse=True, return_counts=True), x)


# -- linspace in bfloat16 (was truncated to integers) ---------------------------------------------------
@pytest.mark.parametrize("bounds", [(0, 1, 7), (-3, 10, 9), (5, -5, 11), (0, 1, 1), (0.25, 0.75, 3)])
def test_linspace_bfloat16(bounds):
    check(lambda torch: torch.linspace(*bounds, dtype=torch.bfloat16))


def test_linspace_default_bfloat16():
    def fn(torch):
        torch.set_default_dtype(torch.bfloat16)
        try:
            return torch.linspace(-1, 2, 5)
        finally:
            torch.set_default_dtype(torch.float32)
    check(fn)


# -- ordering ops refuse complex tensors with torch's errors -------------------------------------------
_COMPLEX_ORDERING = {
    "max": lambda torch, x: x.max(), "min": lambda torch, x: x.min(), "max_dim": lambda torch, x: x.max(0),
    "min_dim": lambda torch, x: torch.min(x, dim=0), "amax": lambda torch, x: x.amax(),
    "amin": lambda torch, x: x.amin(0), "aminmax": lambda torch, x: torch.aminmax(x),
    "argmax": lambda torch, x: x.argmax(), "argmin": lambda torch, x: x.argmin(0),
    "sort": lambda torch, x: x.sort(), "sort_stable": lambda torch, x: x.sort(stable=True),
    "argsort": lambda torch, x: x.argsort(), "msort": lambda torch, x: torch.msort(x),
    "topk": lambda torch, x: x.topk(1), "maximum": lambda torch, x: torch.maximum(x, x),
}


@pytest.mark.parametrize("name", sorted(_COMPLEX_ORDERING))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_ordering_ops_refuse_complex(name, dtype):
    check(_COMPLEX_ORDERING[name], np.array([1 + 2j, 3 - 1j], dtype))


def test_complex_refusal_messages():
    x = vt.tensor([1 + 2j, 3 - 1j])
    with pytest.raises(NotImplementedError, match="\"max_all\" not implemented for 'ComplexFloat'"):
        x.max()
    with pytest.raises(NotImplementedError, match="\"min_values_cpu\" not implemented for 'ComplexFloat'"):
        x.amin()
    with pytest.raises(RuntimeError, match="Sort does not support complex dtypes on CPU"):
        x.sort()
    with pytest.raises(RuntimeError, match="argmax\\(\\): does not support complex input"):
        x.argmax()


# -- strides of the dims None inserts in a basic index ------------------------------------------------
_NEWAXIS_KEYS = {
    "after_slice": lambda x: x[:, None], "front": lambda x: x[None], "end": lambda x: x[..., None],
    "after_int": lambda x: x[0, None], "before_int": lambda x: x[:, None, 1], "after_sliced": lambda x: x[:, 1:, None],
    "twice": lambda x: x[None, None], "around_ellipsis": lambda x: x[None, ..., None, 1],
    "then_step": lambda x: x[:, :, None, ::2], "of_view": lambda x: x.transpose(0, 2)[:, None],
    "chained": lambda x: x[1:, None][:, :, ::2],
}


@pytest.mark.parametrize("name", sorted(_NEWAXIS_KEYS))
def test_newaxis_strides(name):
    def fn(torch, x):
        view = _NEWAXIS_KEYS[name](x)
        return view.stride(), view.storage_offset(), view.is_contiguous(), view.contiguous().stride(), view
    check(fn, np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))


def test_newaxis_view_still_writes_through():
    def fn(torch, x):
        view = x[:, None, 1:]
        view[1, 0, 0, 2] = -5.0
        return x
    check(fn, np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))


# -- kthvalue's index among equal values (torch's quickselect) -----------------------------------------
def _tied_values(shape, distinct, dtype, seed, nan=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, distinct, shape).astype(dtype)
    if nan:
        a[rng.random(shape) < 0.2] = np.nan
    return a


@pytest.mark.parametrize("case", [((9,), 2, "float32", 4, 0), ((5, 9), 3, "float32", 4, 1), ((6, 13), 2, "int64", 7, 0),
                                  ((4, 7, 5), 3, "float64", 3, 1), ((3, 40), 4, "float16", 20, -1),
                                  ((2, 3, 17), 2, "int8", 9, 2), ((7, 12), 3, "float32", 6, 0),
                                  ((3, 300), 5, "float32", 123, 1), ((1, 5000), 2, "float32", 2400, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_index_among_ties(case, keepdim):
    shape, distinct, dtype, k, dim = case
    x = _tied_values(shape, distinct, dtype, seed=len(shape) * k)
    check(lambda torch, x: torch.kthvalue(x, k, dim, keepdim), x)


@pytest.mark.parametrize("k", [1, 3, 5, 8])
def test_kthvalue_ties_with_nan(k):
    x = _tied_values((6, 8), 3, "float32", seed=k, nan=True)
    check(lambda torch, x: x.kthvalue(k), x)


def test_kthvalue_gradient_goes_to_torchs_index():
    x = np.array([[5.0, 2.0, 2.0, 1.0, 5.0, 5.0, 2.0, 1.0, 2.0], [1.0, 3.0, 3.0, 2.0, 3.0, 0.0, 3.0, 3.0, 1.0]])
    check_grad(lambda torch, x: torch.kthvalue(x, 4, 1)[0], x)
