"""Gradients of the shape ops (vfw.core.ops.shape and shape_layout) against finite differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute

RNG = np.random.default_rng(0)


def x(*shape):
    return RNG.standard_normal(shape)


def i64(*values):
    return np.array(values, np.int64)


# -- Identity / Reshape / Expand -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_identity(shape):
    check_gradient("Identity", [x(*shape)])


@pytest.mark.parametrize(("shape", "target", "allowzero"), [
    ((2, 3), (3, 2), 0), ((2, 3, 4), (-1, 4), 0), ((2, 3, 4), (0, 12), 0), ((6,), (1, 2, 3), 1), ((1,), (), 0),
])
def test_reshape(shape, target, allowzero):
    check_gradient("Reshape", [x(*shape), i64(*target)], {"allowzero": allowzero})


@pytest.mark.parametrize(("shape", "target"), [((3,), (2, 3)), ((2, 1), (2, 4)), ((1, 3), (2, 1, 1)), ((), (2, 2))])
def test_expand(shape, target):
    check_gradient("Expand", [x(*shape), i64(*target)])


# -- Transpose / Squeeze / Unsqueeze / Flatten -----------------------------------------------------------------
@pytest.mark.parametrize(("shape", "perm"), [
    ((2, 3), None), ((2, 3, 4), None), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (2, 0, 1)), ((1, 2, 3, 2), (3, 1, 0, 2)),
])
def test_transpose(shape, perm):
    check_gradient("Transpose", [x(*shape)], {} if perm is None else {"perm": perm})


@pytest.mark.parametrize(("shape", "axes"), [
    ((1, 3, 1), None), ((2, 1, 3), (1,)), ((2, 3, 1), (-1,)), ((1, 3, 1), (0, -1)), ((1,), (0,)),
])
def test_squeeze(shape, axes):
    check_gradient("Squeeze", [x(*shape)] + ([] if axes is None else [i64(*axes)]))


@pytest.mark.parametrize(("shape", "axes"), [((3,), (0,)), ((2, 3), (-1,)), ((2, 3), (1, 3)), ((), (0, -1))])
def test_unsqueeze(shape, axes):
    check_gradient("Unsqueeze", [x(*shape), i64(*axes)])


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_flatten(axis):
    check_gradient("Flatten", [x(2, 3, 2)], {"axis": axis})


# -- Concat / Split / Tile -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("shapes", "axis"), [
    (((2, 3), (4, 3)), 0), (((2, 3), (2, 1), (2, 2)), 1), (((2, 3), (2, 1), (2, 2)), -1),
    (((2, 0, 2), (2, 3, 2)), -2), (((3,),), 0),
])
def test_concat(shapes, axis):
    check_gradient("Concat", [x(*s) for s in shapes], {"axis": axis})


def test_concat_with_some_inputs_only():
    check_gradient("Concat", [x(2, 2), x(2, 3), x(2, 1)], {"axis": 1}, wrt=[1])


@pytest.mark.parametrize(("shape", "split", "attrs"), [
    ((6, 2), (2, 4), {}), ((2, 5), (1, 0, 4), {"axis": 1}), ((2, 3, 4), (3, 1), {"axis": -1}),
    ((7, 2), None, {"num_outputs": 3}), ((2, 6), None, {"axis": -1, "num_outputs": 2}),
])
def test_split(shape, split, attrs):
    check_gradient("Split", [x(*shape)] + ([] if split is None else [i64(*split)]), attrs)


@pytest.mark.parametrize("used", [[0], [2], [0, 2]])
def test_split_with_unused_outputs(used):
    # Outputs that got no gradient are given zeros by autograd; the maker concatenates them.
    check_gradient("Split", [x(3, 4)], {"axis": 1, "num_outputs": 3}, outputs=used)


@pytest.mark.parametrize(("shape", "repeats"), [
    ((2, 3), (1, 1)), ((2, 3), (2, 3)), ((3,), (4,)), ((2, 1, 3), (2, 3, 1)), ((2, 3), (0, 2)), ((), ()),
])
def test_tile(shape, repeats):
    check_gradient("Tile", [x(*shape), i64(*repeats)])


# -- Slice -----------------------------------------------------------------------------------------------------
SLICES = [
    # (shape, starts, ends, axes, steps)
    ((6,), (1,), (4,), None, None),
    ((6,), (1,), (5,), None, (2,)),
    ((7,), (0,), (7,), None, (3,)),  # the last interleaved zeros are cropped
    ((7,), (1,), (6,), (0,), (4,)),  # a single element taken with a large step
    ((6,), (-1,), (-100,), None, (-1,)),  # full reversal, end clamped past the front
    ((7,), (5,), (0,), None, (-2,)),
    ((8,), (100,), (-100,), None, (-3,)),  # starts and ends clamped
    ((6,), (4,), (2,), None, None),  # empty result
    ((6,), (2,), (4,), None, (-1,)),  # empty result with a negative step
    ((0, 3), (0,), (5,), (0,), (-1,)),  # empty axis
    ((4, 5), (1, -4), (3, 100), None, None),
    ((4, 5), (0, 4), (4, 0), (-2, -1), (2, -1)),
    ((3, 4, 5), (-1, 1), (-100, 5), (-1, 0), (-2, 1)),
    ((3, 4, 5), (0, 3, 1), (3, 0, 5), (0, 1, 2), (2, -2, 3)),
    ((5, 6), (1,), (-1,), (1,), None),
]


@pytest.mark.parametrize(("shape", "starts", "ends", "axes", "steps"), SLICES)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_slice(shape, starts, ends, axes, steps, index_dtype):
    inputs = [x(*shape), np.array(starts, index_dtype), np.array(ends, index_dtype)]
    if axes is not None or steps is not None:
        inputs.append(np.array(range(len(starts)) if axes is None else axes, index_dtype))
    if steps is not None:
        inputs.append(np.array(steps, index_dtype))
    check_gradient("Slice", inputs)


# -- Pad -------------------------------------------------------------------------------------------------------
PADS = [
    # (shape, pads, axes)
    ((4,), (1, 2), None),
    ((5,), (3, 0), None),
    ((5,), (0, 4), None),
    ((3, 4), (1, 0, 2, 3), None),
    ((3, 4), (2, 1), (-1,)),
    ((3, 2, 4), (1, 2, 3, 0), (2, 0)),
    ((5,), (-1, 2), None),  # crop then pad
    ((6,), (2, -3), None),
    ((3, 5), (-1, 1, 1, -2), None),
    ((4, 3), (0, 0, 0, 0), None),
]
WRAP_EDGE_PADS = [
    ((2,), (5, 3), None),  # pads larger than the dim wrap / replicate several times
    ((3, 2), (4, 1, 0, 7), None),
    ((1, 3), (2, 0, 3, 0), None),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize(("shape", "pads", "axes"), PADS)
def test_pad(mode, shape, pads, axes):
    inputs = [x(*shape), i64(*pads)]
    if axes is not None:
        inputs += [None, i64(*axes)]
    check_gradient("Pad", inputs, {"mode": mode})


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap"])
@pytest.mark.parametrize(("shape", "pads", "axes"), WRAP_EDGE_PADS)
def test_pad_beyond_the_dim(mode, shape, pads, axes):
    check_gradient("Pad", [x(*shape), i64(*pads)], {"mode": mode})


@pytest.mark.parametrize(("pads", "axes", "value_shape"), [
    ((1, 0, 0, 2), None, ()), ((1, 0, -1, 2), None, (1,)), ((-1, -1, 0, 0), None, ()), ((2, 1), (1,), (1,)),
])
def test_pad_constant_value(pads, axes, value_shape):
    inputs = [x(3, 4), i64(*pads), x(*value_shape)]
    if axes is not None:
        inputs.append(np.array(axes, np.int32))
    check_gradient("Pad", inputs)


@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
def test_pad_constant_value_unused_by_other_modes(mode):
    data, value = Tensor(x(3), requires_grad=True), Tensor(np.array(2.0), requires_grad=True)
    y = execute("Pad", data, i64(1, 1), value, mode=mode)
    gx, gv = autograd.gradient(y, [data, value])
    assert gx is not None and gv is None


# -- DepthToSpace / SpaceToDepth / Trilu -----------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize(("shape", "blocksize"), [((1, 4, 2, 3), 2), ((2, 8, 1, 2), 2), ((1, 9, 2, 1), 3)])
def test_depth_to_space(mode, shape, blocksize):
    check_gradient("DepthToSpace", [x(*shape)], {"blocksize": blocksize, "mode": mode})


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize(("shape", "blocksize"), [((1, 1, 4, 2), 2), ((2, 2, 2, 4), 2), ((1, 1, 3, 6), 3)])
def test_space_to_depth(mode, shape, blocksize):
    check_gradient("SpaceToDepth", [x(*shape)], {"blocksize": blocksize, "mode": mode})


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize(("shape", "k"), [((3, 4), None), ((4, 3), (-1,)), ((2, 3, 3), (1,)), ((3, 5), (7,))])
def test_trilu(upper, shape, k):
    check_gradient("Trilu", [x(*shape)] + ([] if k is None else [i64(*k)]), {"upper": upper})


# -- dtypes and higher order -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(("op", "inputs", "attrs"), [
    ("Slice", [(2, 5), i64(4), i64(0), i64(1), i64(-2)], {}),
    ("Pad", [(2, 3), i64(1, 2, 0, 1)], {"mode": "reflect"}),
    ("Pad", [(2, 3), i64(4, -1, 0, 2)], {"mode": "wrap"}),
    ("Tile", [(2, 3), i64(2, 2)], {}),
    ("Split", [(4, 3), i64(1, 3)], {}),
])
def test_gradients_keep_the_input_dtype(dtype, op, inputs, attrs):
    values = x(*inputs[0])

    def grad_of_sum(dtype):
        data = Tensor(values.astype(dtype), requires_grad=True)
        y = execute(op, data, *inputs[1:], **attrs)
        (g,) = autograd.gradient(list(y) if isinstance(y, tuple) else [y], [data])
        return g

    g = grad_of_sum(dtype)
    assert g.dtype == dtype and g.shape == values.shape
    # These ops copy input elements, so the gradient of the sum counts the reads of each: exact in any float type.
    np.testing.assert_array_equal(g.array.astype(np.float64), grad_of_sum(np.float64).array)


@pytest.mark.parametrize(("op", "inputs", "attrs"), [
    ("Transpose", [x(2, 3, 2)], {"perm": (2, 0, 1)}),
    ("Slice", [x(4, 5), i64(3, 0), i64(0, 5), i64(0, 1), i64(-1, 2)], {}),
    ("Slice", [x(7), i64(6), i64(-100), i64(0), i64(-3)], {}),
    ("Pad", [x(3, 4), i64(2, 1, 1, -1)], {"mode": "reflect"}),
    ("Tile", [x(2, 2), i64(2, 1)], {}),
])
def test_second_order_of_linear_ops_is_zero(op, inputs, attrs):
    check_higher_order(op, inputs, attrs, order=2)


def test_second_order_through_slice_of_a_nonlinear_function():
    # d2/dx2 of sum(w * slice(x)^2): the Slice gradient must itself be differentiable (create_graph).
    data = Tensor(x(6), requires_grad=True)
    w = Tensor(x(3))
    y = execute("Slice", execute("Mul", data, data), i64(5), i64(0), i64(0), i64(-2))
    (g,) = autograd.gradient([y], [data], [w], create_graph=True)
    (h,) = autograd.gradient([g], [data], [Tensor(np.ones(6))])
    expected = np.zeros(6)
    expected[[5, 3, 1]] = 2 * w.array
    np.testing.assert_allclose(h.array, expected)
