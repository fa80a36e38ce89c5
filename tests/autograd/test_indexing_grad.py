"""Gradients of the indexing ops (Gather*, Scatter*, Compress) and the non-differentiable indexing/creation ops."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core.registry import get_schema

RNG = np.random.default_rng(0)


def x(*shape):
    return RNG.standard_normal(shape)


def distinct(*shape, scale=1.0):
    """Values spaced by ``scale`` (shuffled): max/min have no ties within finite-difference reach."""
    return (RNG.permutation(int(np.prod(shape))).reshape(shape) * scale + 0.5).astype(np.float64)


def ints(values, dtype=np.int64):
    return np.array(values, dtype=dtype)


# -- Gather ------------------------------------------------------------------------
@pytest.mark.parametrize("shape, indices, axis", [
    ((5, 3), ints([0, 2, 2, -1, 4, 0]), 0),             # duplicates and a negative index
    ((5, 3), ints([[1, -5], [1, 3]]), 0),               # 2-D indices
    ((4, 5, 2), ints([4, 0, -1, 4]), 1),                # duplicates on a middle axis
    ((4, 5, 2), ints([[1, 1, 0]], np.int32), -1),       # int32 indices, negative axis
    ((3, 4), ints(2), 1),                               # scalar index drops the axis
    ((3, 4), ints(-3), 0),
    ((6,), ints([[5, 5], [5, 0]]), 0),
    ((3, 4), np.zeros((0,), np.int64), 1),              # empty indices: zero gradient
])
def test_gather(shape, indices, axis):
    check_gradient("Gather", [x(*shape), indices], {"axis": axis})


def test_gather_higher_order():
    check_higher_order("Gather", [x(4, 3), ints([1, 1, -1])], {"axis": 0}, order=2)
    check_higher_order("Gather", [x(2, 4), ints([[3, 0, 3]])], {"axis": 1}, order=3)


# -- GatherElements ----------------------------------------------------------------
@pytest.mark.parametrize("shape, indices, axis", [
    ((3, 4), ints([[0, 2, 2, 1], [2, 2, -1, 0], [-3, 0, 1, 1]]), 0),
    ((3, 4), ints([[3, 3, 0], [1, -1, 1]]), 1),                       # smaller than data on the other dim
    ((2, 3, 4), RNG.integers(-3, 3, (2, 5, 4)), 1),                  # more entries than the axis: duplicates
    ((2, 3, 4), RNG.integers(-4, 4, (2, 3, 4)).astype(np.int32), -1),
    ((5,), ints([4, 4, 4, -5]), 0),
])
def test_gather_elements(shape, indices, axis):
    check_gradient("GatherElements", [x(*shape), indices], {"axis": axis})


# -- GatherND ----------------------------------------------------------------------
@pytest.mark.parametrize("shape, indices, batch_dims", [
    ((3, 4), ints([[0, 1], [2, -1], [0, 1]]), 0),                     # element tuples, a duplicate
    ((3, 4), ints([[2], [-3], [2]]), 0),                              # row slices
    ((2, 3, 4), ints([[[1, 2], [1, 2]], [[0, -1], [-2, 0]]]), 0),    # 3-D indices
    ((2, 3, 4), ints([[[1], [1], [-1]], [[0], [2], [0]]]), 1),        # batch_dims=1, slices
    ((2, 3, 4), ints([[[1, 3], [1, 3]], [[-3, 0], [2, 2]]]), 1),     # batch_dims=1, elements
    ((2, 2, 3, 2), ints([[[[2], [2]], [[0], [-1]]], [[[1], [1]], [[0], [2]]]]), 2),  # batch_dims=2
    ((2, 3), ints([[1], [-1]]), 1),                                   # batch_dims=1, scalar results
])
def test_gather_nd(shape, indices, batch_dims):
    check_gradient("GatherND", [x(*shape), indices], {"batch_dims": batch_dims})


def test_gather_nd_higher_order():
    check_higher_order("GatherND", [x(2, 3, 2), ints([[[1], [1]], [[-1], [0]]])], {"batch_dims": 1}, order=2)


# -- ScatterElements ---------------------------------------------------------------
_SE_CASES = [
    ((3, 4), ints([[0, 2, 2, 1], [0, -1, -3, 1]]), 0),                # duplicates (incl. via negative index)
    ((3, 4), ints([[3, 3], [1, -1], [0, 0]]), 1),                     # smaller than data on the other dim
    ((2, 3, 4), RNG.integers(-3, 3, (2, 5, 4)).astype(np.int32), 1),  # more updates than the axis
    ((2, 3, 2), ints([[[1, 0], [1, 0], [1, 1]]]), -1),
]


@pytest.mark.parametrize("reduction", ["none", "add", "mul"])
@pytest.mark.parametrize("shape, indices, axis", _SE_CASES)
def test_scatter_elements(shape, indices, axis, reduction):
    check_gradient("ScatterElements", [x(*shape), indices, x(*indices.shape)],
                   {"axis": axis, "reduction": reduction})


@pytest.mark.parametrize("reduction", ["max", "min"])
@pytest.mark.parametrize("shape, indices, axis", _SE_CASES)
def test_scatter_elements_max_min(shape, indices, axis, reduction):
    # updates and data drawn from one shuffled grid: no ties, so the function is smooth at the point
    values = distinct(int(np.prod(shape)) + indices.size, scale=0.1)
    data, updates = values[:int(np.prod(shape))].reshape(shape), values[int(np.prod(shape)):].reshape(indices.shape)
    check_gradient("ScatterElements", [data, indices, updates], {"axis": axis, "reduction": reduction})


def test_scatter_elements_mul_with_zero_updates():
    # position 0: one zero among three; position 1: two zeros; position 2: a zero alone; position 3: data is 0
    data = np.array([1.5, -2.0, 0.7, 0.0, 1.1])
    indices = ints([0, 0, 0, 1, 1, 1, 2, 3, 3])
    updates = np.array([0.0, 1.3, -0.8, 0.0, 0.0, 2.0, 0.0, 1.7, -0.6])
    check_gradient("ScatterElements", [data, indices, updates], {"axis": 0, "reduction": "mul"})


@pytest.mark.parametrize("reduction", ["add", "mul", "none"])
def test_scatter_elements_higher_order(reduction):
    indices = ints([[1, 1, 0], [2, 0, 2]])
    check_higher_order("ScatterElements", [x(3, 3), indices, x(2, 3)], {"axis": 0, "reduction": reduction},
                       order=2)


def test_scatter_elements_mul_third_order():
    indices = ints([0, 0, 0, 2, 2])
    check_higher_order("ScatterElements", [x(3), indices, x(5)], {"axis": 0, "reduction": "mul"}, order=3)


def test_scatter_elements_max_higher_order():
    data, updates = distinct(3, 3, scale=0.1), distinct(2, 3, scale=0.13)
    check_higher_order("ScatterElements", [data, ints([[1, 1, 0], [2, 0, 2]]), updates],
                       {"axis": 0, "reduction": "max"}, order=2)


def test_scatter_elements_wrt_one_input_only():
    indices = ints([[0, 0], [1, 0]])
    for reduction in ("none", "mul", "max"):
        check_gradient("ScatterElements", [distinct(2, 2), indices, distinct(2, 2, scale=0.3)],
                       {"axis": 1, "reduction": reduction}, wrt=[0])
        check_gradient("ScatterElements", [distinct(2, 2), indices, distinct(2, 2, scale=0.3)],
                       {"axis": 1, "reduction": reduction}, wrt=[2])


# -- ScatterND ---------------------------------------------------------------------
_SND_CASES = [
    ((3, 4), ints([[0, 1], [2, -1], [0, 1], [-3, 1]])),   # element tuples; (0, 1) three times
    ((3, 4), ints([[2], [-1], [0]])),                     # row slices, a duplicate through -1
    ((2, 3, 2), ints([[[1, 2]], [[1, -1]], [[0, 0]]])),   # 3-D indices, slices of length 2
    ((4,), ints([[1], [1], [1], [3]])),
]


@pytest.mark.parametrize("reduction", ["none", "add", "mul"])
@pytest.mark.parametrize("shape, indices", _SND_CASES)
def test_scatter_nd(shape, indices, reduction):
    k = indices.shape[-1]
    updates = x(*(indices.shape[:-1] + shape[k:]))
    check_gradient("ScatterND", [x(*shape), indices, updates], {"reduction": reduction})


@pytest.mark.parametrize("reduction", ["max", "min"])
@pytest.mark.parametrize("shape, indices", _SND_CASES)
def test_scatter_nd_max_min(shape, indices, reduction):
    ushape = indices.shape[:-1] + shape[indices.shape[-1]:]
    n, m = int(np.prod(shape)), int(np.prod(ushape))
    values = distinct(n + m, scale=0.1)
    check_gradient("ScatterND", [values[:n].reshape(shape), indices, values[n:].reshape(ushape)],
                   {"reduction": reduction})


def test_scatter_nd_mul_with_zero_updates():
    data = x(3, 2)
    indices = ints([[0], [0], [1], [1], [2]])
    updates = np.array([[0.0, 1.2], [0.0, -0.4], [0.9, 0.0], [1.4, 2.0], [0.0, -1.1]])
    check_gradient("ScatterND", [data, indices, updates], {"reduction": "mul"})


@pytest.mark.parametrize("reduction", ["add", "mul", "max"])
def test_scatter_nd_higher_order(reduction):
    check_higher_order("ScatterND", [distinct(3, 2, scale=0.1), ints([[2], [0], [2]]), distinct(3, 2, scale=0.17)],
                       {"reduction": reduction}, order=2)


# -- ties and zeros: torch's scatter_reduce as the oracle (finite differences do not apply) --
@pytest.mark.parametrize("reduction, torch_reduce", [("max", "amax"), ("min", "amin"), ("mul", "prod")])
def test_scatter_elements_matches_torch_at_ties_and_zeros(reduction, torch_reduce):
    torch = pytest.importorskip("torch")
    data = np.array([[1.0, 2.0, 0.0], [3.0, 3.0, -1.0]])
    indices = ints([[0, 1, 1], [0, 1, 1], [1, 1, 0]])
    updates = np.array([[1.0, 3.0, 0.0], [1.0, 2.0, 0.0], [3.0, 1.0, 5.0]])
    weights = x(2, 3)
    tensors = [Tensor(data, requires_grad=True), indices, Tensor(updates, requires_grad=True)]
    out = execute("ScatterElements", *tensors, axis=0, reduction=reduction)
    gd, gu = autograd.gradient(out, [tensors[0], tensors[2]], [Tensor(weights)])

    td = torch.tensor(data, requires_grad=True)
    tu = torch.tensor(updates, requires_grad=True)
    tout = td.scatter_reduce(0, torch.tensor(indices), tu, torch_reduce, include_self=True)
    np.testing.assert_allclose(out.array, tout.detach().numpy())
    tgd, tgu = torch.autograd.grad(tout, [td, tu], torch.tensor(weights))
    np.testing.assert_allclose(gd.array, tgd.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gu.array, tgu.numpy(), rtol=1e-12)


def test_scatter_none_gives_the_gradient_to_the_last_duplicate_only():
    data = Tensor(np.zeros(3), requires_grad=True)
    updates = Tensor(np.array([1.0, 2.0, 3.0, 4.0]), requires_grad=True)
    out = execute("ScatterElements", data, ints([1, 2, 1, 1]), updates, axis=0)
    gd, gu = autograd.gradient(out, [data, updates], [Tensor(np.array([10.0, 20.0, 30.0]))])
    np.testing.assert_array_equal(gd.array, [10.0, 0.0, 0.0])
    np.testing.assert_array_equal(gu.array, [0.0, 30.0, 0.0, 20.0])


# -- Compress ----------------------------------------------------------------------
@pytest.mark.parametrize("shape, condition, axis", [
    ((3, 4), [True, False, True], 0),
    ((3, 4), [False, True, True, False], 1),
    ((3, 4), [True, False, True, True], -1),
    ((2, 3, 2), [False, True], 1),                       # shorter than the axis
    ((3, 4), [True, False] * 5 + [False] * 3, None),     # flattened, longer than the axis (extra false)
    ((3, 2), [False, False, False], 0),                  # nothing selected
])
def test_compress(shape, condition, axis):
    check_gradient("Compress", [x(*shape), np.array(condition)], {"axis": axis})


def test_compress_higher_order():
    check_higher_order("Compress", [x(3, 2), np.array([True, False, True])], {"axis": 0}, order=2)


# -- dtypes ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op, inputs, attrs", [
    ("Gather", [(4, 3), ints([3, 3, -1])], {"axis": 0}),
    ("Gather", [(4, 3), ints([[2, 2]])], {"axis": 1}),
    ("GatherElements", [(2, 3), ints([[2, 2, 0]])], {"axis": 1}),
    ("GatherND", [(2, 3), ints([[1], [0]])], {"batch_dims": 1}),
    ("ScatterElements", [(3,), ints([0, 0, 2]), (3,)], {"reduction": "mul"}),
    ("ScatterElements", [(3,), ints([0, 0, 2]), (3,)], {"reduction": "none"}),
    ("ScatterND", [(3,), ints([[0], [2], [0]]), (3,)], {"reduction": "max"}),
    ("Compress", [(3, 2), np.array([True, False, True])], {"axis": 0}),
])
def test_low_precision_gradients_match_float64(op, inputs, attrs, dtype):
    arrays = [distinct(*a, scale=0.25) if isinstance(a, tuple) else a for a in inputs]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    out64 = execute(op, *arrays, **attrs)
    weights = RNG.standard_normal(out64.shape)

    def grads(dt_):
        tensors = [Tensor(a.astype(dt_), requires_grad=True) if i in wrt else a for i, a in enumerate(arrays)]
        out = execute(op, *tensors, **attrs)
        return autograd.gradient(out, [tensors[i] for i in wrt], [Tensor(weights.astype(dt_))])

    for g_lo, g_hi in zip(grads(dtype), grads(np.float64)):
        assert g_lo.dtype == dtype
        np.testing.assert_allclose(g_lo.array.astype(np.float64), g_hi.array, rtol=1e-2, atol=1e-2)


# -- not differentiable ------------------------------------------------------------
_NON_DIFFERENTIABLE = ["NonZero", "Unique", "OneHot", "Shape", "Size", "Range", "ConstantOfShape", "EyeLike",
                       "Constant"]


@pytest.mark.parametrize("op", _NON_DIFFERENTIABLE)
def test_declared_not_differentiable(op):
    schema = get_schema(op)
    assert schema.differentiable is False and schema.gradient is None


@pytest.mark.parametrize("op, extra, attrs", [
    ("NonZero", [], {}),
    ("Unique", [], {}),
    ("Shape", [], {}),
    ("Size", [], {}),
    ("EyeLike", [], {}),
    ("OneHot", None, {}),
])
def test_non_differentiable_outputs_do_not_require_grad(op, extra, attrs):
    src = Tensor(np.array([[0.0, 1.5], [1.5, -2.0]]), requires_grad=True)
    if op == "OneHot":  # float values input (off/on) is the tensor that requires grad
        outs = execute(op, ints([0, 1]), ints(3), Tensor(np.array([0.0, 1.0]), requires_grad=True))
    else:
        outs = execute(op, src, *extra, **attrs)
    for out in outs if isinstance(outs, tuple) else (outs,):
        assert out is None or (out.grad_node is None and not out.requires_grad)
