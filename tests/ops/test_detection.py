"""NonMaxSuppression and RoiAlign against ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core import ShapeError, run

F32 = np.dtype(np.float32)


def _boxes(n_batches, n, seed, center):
    rng = np.random.default_rng(seed)
    corner = rng.uniform(0, 10, (n_batches, n, 2))
    size = rng.uniform(0.5, 4, (n_batches, n, 2))
    if center:
        return np.concatenate([corner, size], axis=-1).astype(F32)
    boxes = np.concatenate([corner, corner + size], axis=-1)
    flip = rng.random((n_batches, n)) < 0.5  # either diagonal pair of corners
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes.astype(F32)


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("iou,score", [(0.3, None), (0.5, 0.2), (0.0, 0.5), (0.9, None)])
def test_non_max_suppression(center, iou, score):
    boxes = _boxes(2, 12, seed=1, center=center)
    scores = np.random.default_rng(2).random((2, 3, 12)).astype(F32)
    scores[0, 0, 3] = scores[0, 0, 5]  # a tie: the lower index first
    inputs = [boxes, scores, np.array([4], np.int64), np.array([iou], F32)]
    if score is not None:
        inputs.append(np.array([score], F32))
    check_op("NonMaxSuppression", inputs, {"center_point_box": center})


def test_non_max_suppression_limits():
    boxes, scores = _boxes(1, 5, seed=3, center=0), rand((1, 2, 5), low=0, high=1, seed=4)
    empty = run("NonMaxSuppression", boxes, scores)  # no max_output_boxes_per_class: nothing selected
    assert empty.shape == (0, 3) and empty.dtype == np.int64
    # (ONNX's reference needs iou_threshold given; vfw defaults it to 0 as the spec says.)
    check_op("NonMaxSuppression", [boxes, scores, np.array([10], np.int64), np.array([0.0], F32)])
    assert_same(run("NonMaxSuppression", boxes, scores, np.array([10], np.int64)),
                run("NonMaxSuppression", boxes, scores, np.array([10], np.int64), np.array([0.0], F32)))
    with pytest.raises(ShapeError, match="scores must have shape"):
        run("NonMaxSuppression", boxes, rand((1, 2, 4)), np.array([1], np.int64))


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("transform", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("ratio", [0, 2])
def test_roi_align(mode, transform, ratio):
    x = rand((2, 3, 8, 9), seed=5)
    rois = np.array([[0, 0, 7, 7], [1.5, 2.2, 6.1, 5.3], [-2, -1, 3, 4], [5, 5, 12, 10], [3, 3, 3.2, 3.1]], F32)
    batch = np.array([0, 1, 1, 0, 1], np.int64)
    attrs = {"mode": mode, "coordinate_transformation_mode": transform, "sampling_ratio": ratio,
             "output_height": 3, "output_width": 2, "spatial_scale": 0.9}
    ours, theirs = vfw_run("RoiAlign", [x, rois, batch], attrs)[0], onnx_run("RoiAlign", [x, rois, batch], attrs)[0]
    assert_same(ours, theirs, rtol=1e-5, atol=1e-5)


def test_roi_align_errors():
    with pytest.raises(ShapeError, match="batch_indices"):
        run("RoiAlign", rand((1, 1, 4, 4)), np.zeros((1, 4), F32), np.array([1], np.int64))
