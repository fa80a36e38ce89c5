import math

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand
from vfw.core import DTypeError, OpAttributeError, OpInputError, ShapeError, TensorInfo, get_schema, run
from vfw.core import dtypes as dt

TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12), np.float16: (1e-3, 1e-2)}
X_SHAPE = (2, 3, 5, 7)


def _scales(*s):
    return np.array(s, np.float32)


def _sizes(*s):
    return np.array(s, np.int64)


# ---------------------------------------------------------------------------------- numpy reference


def _ref_coord(ctm, i, n_in, n_out, scale, start, end):
    """Source coordinate of output position ``i``, written out from the ONNX operator text."""
    if ctm == "half_pixel":
        return (i + 0.5) / scale - 0.5
    if ctm == "half_pixel_symmetric":
        adjustment = n_out / (n_in * scale)
        return n_in / 2 * (1 - adjustment) + (i + 0.5) / scale - 0.5
    if ctm == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if n_out > 1 else 0.0
    if ctm == "align_corners":
        return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if ctm == "asymmetric":
        return i / scale
    if n_out > 1:
        return start * (n_in - 1) + i * (end - start) * (n_in - 1) / (n_out - 1)
    return 0.5 * (start + end) * (n_in - 1)


def _ref_weights(mode, c, n_in, a, exclude_outside, nearest_mode):
    """{source index: weight} for one output position at source coordinate ``c``."""
    if mode == "nearest":
        if nearest_mode == "round_prefer_floor":
            j = math.floor(c) if c - math.floor(c) <= 0.5 else math.ceil(c)
        elif nearest_mode == "round_prefer_ceil":
            j = math.floor(c) if c - math.floor(c) < 0.5 else math.ceil(c)
        else:
            j = math.floor(c) if nearest_mode == "floor" else math.ceil(c)
        return {min(max(j, 0), n_in - 1): 1.0}
    base = math.floor(c)
    taps = {}
    for j in (range(base, base + 2) if mode == "linear" else range(base - 1, base + 3)):
        t = abs(j - c)
        if mode == "linear":
            w = max(0.0, 1 - t)
        elif t <= 1:
            w = (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
        else:
            w = a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a if t < 2 else 0.0
        if exclude_outside and not 0 <= j < n_in:
            w = 0.0
        k = min(max(j, 0), n_in - 1)  # outside taps read the edge value
        taps[k] = taps.get(k, 0.0) + w
    total = sum(taps.values())
    return {k: w / total for k, w in taps.items()} if exclude_outside else taps


def _ref_resize(x, out_sizes, scales, mode="nearest", ctm="half_pixel", nearest_mode="round_prefer_floor",
                a=-0.75, exclude_outside=0, roi=None, extrapolation_value=0.0):
    """Separable resize, one output position at a time (``out_sizes``/``scales``/``roi`` cover every axis)."""
    y = x.astype(np.float64)
    for ax, (n_out, scale) in enumerate(zip(out_sizes, scales)):
        n_in = y.shape[ax]
        if n_in == n_out and scale == 1 and ctm != "tf_crop_and_resize":
            continue
        start, end = (roi[ax], roi[ax + x.ndim]) if roi is not None else (0.0, 1.0)
        moved = np.moveaxis(y, ax, 0)
        out = np.zeros((n_out,) + moved.shape[1:])
        for i in range(n_out):
            c = _ref_coord(ctm, i, n_in, n_out, float(scale), float(start), float(end))
            if ctm == "tf_crop_and_resize" and not 0 <= c <= n_in - 1:
                out[i] = extrapolation_value
                continue
            for j, w in _ref_weights(mode, c, n_in, a, exclude_outside, nearest_mode).items():
                out[i] += w * moved[j]
        y = np.moveaxis(out, 0, ax)
    if x.dtype.kind in "iu":
        y = np.rint(y)
    return y.astype(x.dtype)


# ------------------------------------------------------------------------------------- vs the oracle


SCALE_INPUTS = [
    (_scales(1, 1, 2.0, 1.5), None),  # upsampling
    (_scales(1, 1, 0.6, 0.5), None),  # downsampling
    (_scales(1, 1, 1.7, 0.3), None),  # mixed
    (None, _sizes(2, 3, 9, 3)),
    (None, _sizes(2, 3, 3, 11)),
]
MODE_OPTIONS = {
    "nearest": [{}, {"nearest_mode": "round_prefer_ceil"}, {"nearest_mode": "floor"}, {"nearest_mode": "ceil"}],
    "linear": [{}],
    "cubic": [{}, {"cubic_coeff_a": -0.5}, {"exclude_outside": 1}],
}


@pytest.mark.parametrize("scales, sizes", SCALE_INPUTS)
@pytest.mark.parametrize("ctm", ["half_pixel", "pytorch_half_pixel", "asymmetric"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_matches_onnx(mode, ctm, scales, sizes):
    x = rand(X_SHAPE)
    for options in MODE_OPTIONS[mode]:
        attrs = dict(options, mode=mode, coordinate_transformation_mode=ctm)
        # ReferenceEvaluator computes cubic weights in float32: about 1e-6 off on values of magnitude 3
        check_op("Resize", [x, None, scales, sizes], attrs, atol=1e-5 if mode == "cubic" else 1e-6)


@pytest.mark.parametrize("sizes", [_sizes(2, 3, 10, 11), _sizes(2, 3, 3, 4), _sizes(2, 3, 8, 2)])
@pytest.mark.parametrize("ctm", ["align_corners", "tf_crop_and_resize"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_sizes_align_corners_and_crop_match_onnx(mode, ctm, sizes):
    roi = np.array([0, 0, 0.12, 0.21, 1, 1, 0.83, 0.94], np.float32) if ctm == "tf_crop_and_resize" else None
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm, "extrapolation_value": -7.0}
    check_op("Resize", [rand(X_SHAPE), roi, None, sizes], attrs, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_half_pixel_symmetric_upsampling_matches_onnx(mode):
    attrs = {"mode": mode, "coordinate_transformation_mode": "half_pixel_symmetric"}
    check_op("Resize", [rand(X_SHAPE), None, _scales(1, 1, 2.0, 1.5)], attrs)
    check_op("Resize", [rand(X_SHAPE), None, _scales(1, 1, 1.7, 1.3)], attrs)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.uint8, np.int32, np.int64])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_dtypes_match_onnx(mode, dtype):
    x = rand((1, 2, 5, 7), dtype, low=0 if dtype == np.uint8 else -100, high=100)
    for scales in (_scales(1, 1, 2.0, 1.5), _scales(1, 1, 0.6, 0.5)):
        # float64 cubic: ReferenceEvaluator computes the weights in float32, about 6e-5 off on values near
        # 100; the numpy reference below shows ours are exact
        tol = (0, 2e-4) if dtype == np.float64 and mode == "cubic" else TOL.get(dtype, (0, 0))
        check_op("Resize", [x, None, scales], {"mode": mode}, rtol=tol[0], atol=tol[1])
        if dtype == np.float64:
            assert_same(run("Resize", x, None, scales, mode=mode),
                        _ref_resize(x, [1, 2, math.floor(5 * scales[2]), math.floor(7 * scales[3])], scales,
                                    mode), 1e-12, 1e-12)


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_keep_aspect_ratio_and_axes_match_onnx(mode, policy):
    x = rand(X_SHAPE)
    for sizes, axes in [(_sizes(10, 11), [2, 3]), (_sizes(3, 9), [2, 3]), (_sizes(8), [3]), (_sizes(4, 8), [3, 1])]:
        attrs = {"mode": mode, "keep_aspect_ratio_policy": policy, "axes": axes}
        check_op("Resize", [x, None, None, sizes], attrs, atol=1e-5)
    check_op("Resize", [x, None, _scales(2.0, 0.5)], {"mode": mode, "axes": [3, 2]}, atol=1e-5)


@pytest.mark.parametrize("exclude_outside", [0, 1])
@pytest.mark.parametrize("ctm", ["half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners",
                                 "half_pixel_symmetric"])
@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_antialias_matches_onnx(mode, ctm, exclude_outside):
    x = rand((2, 3, 11, 13))
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm, "antialias": 1, "exclude_outside": exclude_outside}
    for sizes in (_sizes(2, 3, 2, 3), _sizes(2, 3, 8, 2), _sizes(2, 3, 15, 5)):  # down, mixed, up+down
        check_op("Resize", [x, None, None, sizes], attrs, atol=1e-5)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_long_axis_matches_onnx(mode):
    # axes longer than 256 inputs interpolate by gathers instead of a dense matrix product
    x = rand((1, 2, 300, 3))
    for scales in (_scales(1, 1, 0.7, 1.5), _scales(1, 1, 1.3, 2.0)):
        check_op("Resize", [x, None, scales], {"mode": mode}, atol=1e-5)
    check_op("Resize", [x, None, None, _sizes(1, 2, 97, 2)], {"mode": mode, "antialias": 1}, atol=1e-5)


def test_resize_inf_stays_local():
    # a non-finite input falls back to gathers: an inf reaches only the outputs that interpolate it
    # (a dense product would turn a whole row into NaN); ReferenceEvaluator saturates inf to the
    # float maximum, so the numpy reference is used
    x = np.arange(20, dtype=np.float64).reshape(1, 1, 4, 5)
    x[0, 0, 1, 2] = np.inf
    for mode in ("linear", "cubic"):
        y = run("Resize", x, None, _scales(1, 1, 2, 2), mode=mode)
        assert_same(y, _ref_resize(x, [1, 1, 8, 10], [1, 1, 2, 2], mode), 1e-12, 1e-12)
        assert np.isfinite(y[0, 0, :, 0]).all() and np.isinf(y).any()


# ------------------------------------------------------------------------ where the oracle is wrong


@pytest.mark.parametrize("scales", [_scales(1, 1, 2.0, 1.5), _scales(1, 1, 0.6, 0.5), _scales(1, 1, 1.7, 0.3)])
@pytest.mark.parametrize("ctm", ["align_corners", "tf_crop_and_resize", "half_pixel_symmetric"])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_against_numpy(mode, ctm, scales):
    # ReferenceEvaluator uses the fractional in * scale as length_resized for align_corners and
    # tf_crop_and_resize when scales are given, and its half_pixel_symmetric is off for cubic and for
    # downsampling; onnxruntime agrees with this numpy reference of the ONNX text.
    x = rand(X_SHAPE, np.float64)
    roi = np.array([0, 0, 0.12, 0.21, 1, 1, 0.83, 0.94], np.float32) if ctm == "tf_crop_and_resize" else None
    out = [2, 3, math.floor(5 * float(scales[2])), math.floor(7 * float(scales[3]))]
    for options in MODE_OPTIONS[mode][:3]:
        attrs = dict(options, mode=mode, coordinate_transformation_mode=ctm, extrapolation_value=-7.0)
        expected = _ref_resize(x, out, scales, mode, ctm, options.get("nearest_mode", "round_prefer_floor"),
                               options.get("cubic_coeff_a", -0.75), options.get("exclude_outside", 0),
                               None if roi is None else roi.astype(np.float64), -7.0)
        assert_same(run("Resize", x, roi, scales, **attrs), expected, 1e-12, 1e-12)


def test_resize_single_output_row_and_extrapolation():
    x = rand(X_SHAPE, np.float64)
    # pytorch_half_pixel maps a length-1 output to coordinate 0 (ReferenceEvaluator does not)
    for mode in ("linear", "cubic"):
        y = run("Resize", x, None, None, _sizes(2, 3, 1, 3), mode=mode,
                coordinate_transformation_mode="pytorch_half_pixel")
        assert_same(y, _ref_resize(x, [2, 3, 1, 3], [1, 1, 1 / 5, 3 / 7], mode, "pytorch_half_pixel"), 1e-12, 1e-12)
    # a roi reaching outside the image: those outputs take extrapolation_value
    roi = np.array([-0.5, 0.25, 1.25, 0.75], np.float64)
    y = run("Resize", x, roi, None, _sizes(6, 4), axes=[2, 3], mode="linear",
            coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=9.5)
    full_roi = np.array([0, 0, -0.5, 0.25, 1, 1, 1.25, 0.75])
    assert_same(y, _ref_resize(x, [2, 3, 6, 4], [1, 1, 6 / 5, 4 / 7], "linear", "tf_crop_and_resize", roi=full_roi,
                               extrapolation_value=9.5), 1e-12, 1e-12)
    assert (y[:, :, 0] == 9.5).all() and (y[:, :, -1] == 9.5).all()


def test_resize_negative_axes_and_bool():
    # ReferenceEvaluator rejects negative axes: they must equal their positive spelling
    x = rand(X_SHAPE)
    for mode in ("nearest", "linear"):
        for policy in ("stretch", "not_larger"):
            a = run("Resize", x, None, None, _sizes(3, 9), axes=[-2, -1], mode=mode, keep_aspect_ratio_policy=policy)
            b = run("Resize", x, None, None, _sizes(3, 9), axes=[2, 3], mode=mode, keep_aspect_ratio_policy=policy)
            assert_same(a, b)
    # ReferenceEvaluator cannot resize bool tensors; nearest gathers them exactly
    flags = rand((1, 2, 3, 4), np.bool_)
    y = run("Resize", flags, None, _scales(1, 1, 2.0, 1.5))
    assert y.dtype == np.bool_
    assert_same(y, run("Resize", flags.astype(np.uint8), None, _scales(1, 1, 2.0, 1.5)).astype(bool))


def test_resize_identity_empty_and_bfloat16():
    x = rand(X_SHAPE)
    y = run("Resize", x, None, _scales(1, 1, 1, 1), mode="cubic")
    assert y is not x and np.array_equal(y, x)
    assert run("Resize", np.zeros((0, 3, 4, 4), np.float32), None, _scales(1, 1, 2, 2)).shape == (0, 3, 8, 8)
    assert run("Resize", x, None, _scales(1, 1, 0.1, 1)).shape == (2, 3, 0, 7)
    xb = x.astype(dt.bfloat16)
    yb = run("Resize", xb, None, _scales(1, 1, 2, 2), mode="linear")
    assert yb.dtype == dt.bfloat16
    ref = run("Resize", xb.astype(np.float32), None, _scales(1, 1, 2, 2), mode="linear").astype(dt.bfloat16)
    assert_same(yb.astype(np.float32), ref.astype(np.float32))


# ----------------------------------------------------------------------------------- errors, inference


def test_resize_errors():
    x = rand(X_SHAPE)
    with pytest.raises(OpInputError, match=r"Resize: exactly one of 'scales' and 'sizes'"):
        run("Resize", x, None, _scales(1, 1, 2, 2), _sizes(2, 3, 10, 14))
    with pytest.raises(OpInputError, match=r"Resize: exactly one of 'scales' and 'sizes'"):
        run("Resize", x)
    with pytest.raises(ShapeError, match=r"Resize: input 'scales' of shape \(3,\) needs 4 values"):
        run("Resize", x, None, _scales(1, 2, 2))
    with pytest.raises(ShapeError, match=r"Resize: input 'sizes' of shape \(4,\) needs 2 values"):
        run("Resize", x, None, None, _sizes(2, 3, 4, 4), axes=[2, 3])
    with pytest.raises(ShapeError, match=r"Resize: input 'roi' of shape \(4,\) needs 8 values"):
        run("Resize", x, np.zeros(4, np.float32), _scales(1, 1, 2, 2),
            coordinate_transformation_mode="tf_crop_and_resize")
    with pytest.raises(OpInputError, match=r"Resize: scales .* must all be positive"):
        run("Resize", x, None, _scales(1, 1, 0, 2))
    with pytest.raises(ShapeError, match=r"Resize: axes=4 is out of range"):
        run("Resize", x, None, _scales(2.0), axes=[4])
    with pytest.raises(DTypeError, match=r"Resize: mode 'linear' needs a numeric X, got bool"):
        run("Resize", rand((1, 1, 2, 2), np.bool_), None, _scales(1, 1, 2, 2), mode="linear")
    with pytest.raises(OpAttributeError, match=r"Resize: attribute 'mode'"):
        run("Resize", x, None, _scales(1, 1, 2, 2), mode="bilinear")
    with pytest.raises(DTypeError, match=r"Resize: input 'scales' has dtype float64"):
        run("Resize", x, None, np.ones(4))


def test_resize_infer_uses_values():
    schema = get_schema("Resize")
    attrs = schema.bind_attrs({"mode": "linear"})
    x = TensorInfo(X_SHAPE, np.float32)
    scales = TensorInfo((4,), np.float32, value=_scales(1, 1, 2.0, 0.5))
    assert schema.infer(attrs, [x, None, scales]) == [TensorInfo((2, 3, 10, 3), np.float32)]
    # without the values only the dtype is known
    assert schema.infer(attrs, [x, None, TensorInfo((4,), np.float32)]) == [TensorInfo(None, np.float32)]
