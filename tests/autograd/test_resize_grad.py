"""Gradients of Resize (through its adjoint, the engine op ResizeGrad) for every mode."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute, run
from vfw.core.errors import ShapeError
from vfw.core.registry import TensorInfo, get_schema

RNG = np.random.default_rng(0)

COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")


def scales(*values):
    return np.array(values, np.float32)


def sizes(*values):
    return np.array(values, np.int64)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("coords", COORDS)
@pytest.mark.parametrize("factors", [(1, 1, 2.0, 1.5), (1, 1, 0.5, 0.75), (1, 1, 1.0, 2.5)])
def test_resize_by_scales(mode, coords, factors):
    attrs = {"mode": mode, "coordinate_transformation_mode": coords}
    check_gradient("Resize", [RNG.standard_normal((1, 2, 4, 3)), None, scales(*factors), None], attrs, wrt=[0])


@pytest.mark.parametrize("nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
def test_resize_nearest_modes(nearest_mode):
    attrs = {"mode": "nearest", "nearest_mode": nearest_mode, "coordinate_transformation_mode": "asymmetric"}
    check_gradient("Resize", [RNG.standard_normal((2, 5)), None, scales(1.0, 2.6), None], attrs, wrt=[0])


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("factors", [(1, 1, 0.5, 0.6), (1, 1, 1.5, 0.4)])
def test_resize_antialias_and_exclude_outside(mode, factors):
    attrs = {"mode": mode, "antialias": 1, "exclude_outside": 1, "cubic_coeff_a": -0.5}
    check_gradient("Resize", [RNG.standard_normal((1, 1, 6, 5)), None, scales(*factors), None], attrs, wrt=[0])


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_tf_crop_and_resize(mode):
    # outputs whose source falls outside the roi get extrapolation_value: no gradient flows to them
    roi = np.array([0, 0, -0.3, 0.2, 1, 1, 1.2, 0.9])
    attrs = {"mode": mode, "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": 3.0}
    check_gradient("Resize", [RNG.standard_normal((1, 2, 4, 3)), roi, None, sizes(1, 2, 5, 4)], attrs, wrt=[0])


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
def test_resize_sizes_axes_and_aspect_policy(policy):
    attrs = {"mode": "linear", "axes": [-1, 1], "keep_aspect_ratio_policy": policy}
    check_gradient("Resize", [RNG.standard_normal((2, 3, 2, 4)), None, None, sizes(7, 5)], attrs, wrt=[0])


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_3d_spatial(mode):
    x = RNG.standard_normal((1, 1, 3, 2, 3))
    check_gradient("Resize", [x, None, scales(1, 1, 1.5, 2, 0.7), None], {"mode": mode}, wrt=[0])


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_long_axis_scatters(mode):
    # an axis longer than the dense-matrix limit takes the scatter-add path
    check_gradient("Resize", [RNG.standard_normal((1, 300)), None, scales(1, 0.3), None], {"mode": mode}, wrt=[0])


def test_resize_grad_with_infinite_gradient_stays_local():
    x = Tensor(RNG.standard_normal((1, 1, 4)), requires_grad=True)
    y = execute("Resize", x, None, scales(1, 1, 2), None, mode="linear")
    v = np.ones(y.shape)
    v[0, 0, 0] = np.inf
    (g,) = autograd.gradient(y, [x], [Tensor(v)])
    assert np.isinf(g.array[0, 0, 0]) and np.isfinite(g.array[0, 0, 2:]).all()


@pytest.mark.parametrize("mode, coords", [("linear", "half_pixel"), ("cubic", "align_corners"),
                                          ("nearest", "tf_crop_and_resize")])
def test_resize_second_order(mode, coords):
    roi = np.array([0.1, -0.2, 0.8, 1.1]) if coords == "tf_crop_and_resize" else None
    attrs = {"mode": mode, "coordinate_transformation_mode": coords, "axes": [2, 3], "extrapolation_value": 2.0}
    check_higher_order("Resize", [RNG.standard_normal((1, 2, 3, 3)), roi, None, sizes(5, 4)], attrs, wrt=[0])


def test_resize_grad_is_the_adjoint_and_checks_shapes():
    attrs = {"mode": "cubic", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": 1.5}
    roi = np.array([-0.2, 0.1, 1.1, 0.7])
    x = RNG.standard_normal((2, 3, 4, 5))
    shape = np.array(x.shape, np.int64)
    y = run("Resize", x, roi, None, sizes(6, 3), axes=[2, 3], **attrs)
    v = RNG.standard_normal(y.shape)
    back = run("ResizeGrad", v, shape, roi, None, sizes(6, 3), axes=[2, 3], **attrs)
    linear = y - run("Resize", np.zeros_like(x), roi, None, sizes(6, 3), axes=[2, 3], **attrs)
    np.testing.assert_allclose(np.sum(linear * v), np.sum(x * back), rtol=1e-12)
    with pytest.raises(ShapeError, match="ResizeGrad"):
        run("ResizeGrad", v[:, :, :2], shape, roi, None, sizes(6, 3), axes=[2, 3], **attrs)
    schema = get_schema("ResizeGrad")
    infos = [TensorInfo(y.shape, np.float32), TensorInfo((4,), np.int64, shape), TensorInfo((4,), np.float64, roi),
             None, TensorInfo((2,), np.int64, sizes(6, 3))]
    (info,) = schema.infer(schema.bind_attrs(dict(attrs, axes=[2, 3])), infos)
    assert info == TensorInfo(x.shape, np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision_gradients_keep_dtype(dtype):
    x = RNG.standard_normal((1, 2, 3, 4))
    grads = {}
    for dt in (np.float64, dtype):
        xt = Tensor(x.astype(dt), requires_grad=True)
        y = execute("Resize", xt, None, scales(1, 1, 2, 1.5), None, mode="cubic")
        (grads[dt],) = autograd.gradient(y, [xt])
    assert grads[dtype].dtype == dtype
    np.testing.assert_allclose(grads[dtype].array.astype(np.float64), grads[np.float64].array, rtol=1e-2, atol=1e-2)
