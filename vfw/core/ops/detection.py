"""Object detection ops (ONNX): NonMaxSuppression and RoiAlign.

NonMaxSuppression is greedy by definition (a box survives only if no better-scored surviving box
overlaps it too much): the kernel runs the greedy steps for every (batch, class) row at once,
one step per selected box, each step a vectorized suppression over all candidates.  RoiAlign
samples every bin of every region at once (regions with fewer adaptive sampling points are
padded and masked), with bilinear interpolation as ONNX defines it, including the ``max`` mode
that takes the largest weighted corner value of each sampling point.  Neither is differentiable
here.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import require
from vfw.core.registry import Attr, TensorInfo, defop


def _scalar_input(op_type, value, default, cast, name):
    if value is None or value.size == 0:
        return default
    require(op_type, value.size == 1, f"{name} must hold one value, got shape {value.shape}")
    return cast(value.reshape(-1)[0])


def _corners(boxes, center_point_box):
    """``(y1, x1, y2, x2)`` with y1 <= y2 and x1 <= x2, from either box format."""
    if center_point_box:
        xc, yc, w, h = np.moveaxis(boxes, -1, 0)
        return yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2
    a, b, c, d = np.moveaxis(boxes, -1, 0)
    return np.minimum(a, c), np.minimum(b, d), np.maximum(a, c), np.maximum(b, d)


def _overlaps(boxes, center_point_box, threshold):
    """``(batch, n, n)`` bool: intersection over union of two boxes > threshold (degenerate boxes never)."""
    y1, x1, y2, x2 = _corners(boxes.astype(np.float64), center_point_box)
    area = (y2 - y1) * (x2 - x1)
    height = np.minimum(y2[:, :, None], y2[:, None, :]) - np.maximum(y1[:, :, None], y1[:, None, :])
    width = np.minimum(x2[:, :, None], x2[:, None, :]) - np.maximum(x1[:, :, None], x1[:, None, :])
    inter = np.where((height > 0) & (width > 0), height * width, 0.0)
    union = area[:, :, None] + area[:, None, :] - inter
    valid = (inter > 0) & (area[:, :, None] > 0) & (area[:, None, :] > 0) & (union > 0)
    iou = np.divide(inter, union, out=np.zeros_like(inter), where=valid)
    return valid & (iou > threshold)


@defop("NonMaxSuppression",
       inputs="boxes:float32 scores:float32 max_output_boxes_per_class?:int64 iou_threshold?:float32 "
              "score_threshold?:float32",
       outputs="selected_indices:int64", attrs={"center_point_box": Attr("int", 0, choices=(0, 1))},
       infer=lambda attrs, infos: [TensorInfo((None, 3), dt.int64)])
def non_max_suppression(center_point_box):
    """Greedy selection per batch and class of the best-scored boxes that overlap no selected box by more than
    ``iou_threshold`` (and score above ``score_threshold``); rows ``(batch, class, box)`` in selection order."""

    def kernel(boxes, scores, max_output=None, iou_threshold=None, score_threshold=None, out=None):
        require("NonMaxSuppression", boxes.ndim == 3 and boxes.shape[2] == 4,
                f"boxes must have shape (batches, boxes, 4), got {boxes.shape}")
        require("NonMaxSuppression", scores.ndim == 3 and scores.shape[0] == boxes.shape[0]
                and scores.shape[2] == boxes.shape[1],
                f"scores must have shape (batches, classes, boxes) = ({boxes.shape[0]}, C, {boxes.shape[1]}), "
                f"got {scores.shape}")
        limit = _scalar_input("NonMaxSuppression", max_output, 0, int, "max_output_boxes_per_class")
        iou = _scalar_input("NonMaxSuppression", iou_threshold, 0.0, float, "iou_threshold")
        threshold = _scalar_input("NonMaxSuppression", score_threshold, None, float, "score_threshold")
        batches, classes, n = scores.shape
        if limit <= 0 or n == 0 or classes == 0:
            return np.zeros((0, 3), np.int64)
        overlaps = _overlaps(boxes, center_point_box, iou)
        rows = scores.reshape(batches * classes, n)
        order = np.argsort(-rows.astype(np.float64), axis=1, kind="stable")  # ties: the lower index first
        alive = np.take_along_axis(rows, order, axis=1) > threshold if threshold is not None else \
            np.ones(order.shape, bool)
        batch_of = np.repeat(np.arange(batches), classes)
        picks = []  # (step, row, box) of each selection
        for step in range(min(limit, n)):  # one greedy step per selected box, for all rows at once
            first = np.argmax(alive, axis=1)
            active = np.nonzero(alive[np.arange(len(first)), first])[0]
            if not len(active):
                break
            chosen = order[active, first[active]]
            picks.append(np.stack([np.full(len(active), step), active, chosen], axis=1))
            suppressed = np.take_along_axis(overlaps[batch_of[active], chosen], order[active], axis=1)
            alive[active] &= ~suppressed
            alive[active, first[active]] = False
        if not picks:
            return np.zeros((0, 3), np.int64)
        found = np.concatenate(picks)
        found = found[np.lexsort((found[:, 0], found[:, 1]))]
        return np.stack([found[:, 1] // classes, found[:, 1] % classes, found[:, 2]], axis=1).astype(np.int64)

    return kernel


def _roi_infer(attrs, infos):
    x, rois = infos[0], infos[1]
    channels = x.shape[1] if x.shape is not None and len(x.shape) == 4 else None
    count = rois.shape[0] if rois.shape is not None else None
    return [TensorInfo((count, channels, attrs["output_height"], attrs["output_width"]), x.dtype)]


def _sample_axis(start, size, bins, grid, ratio, extent):
    """Sampling positions along one axis: ``(rois, bins, most_points)`` low/high indices, weights of the high
    index, whether each point lies inside the map (else it contributes 0), and which grid points exist."""
    bin_size = size / bins
    points = ratio if ratio > 0 else int(grid.max()) if len(grid) else 1
    k = np.arange(max(points, 1))
    pos = (start[:, None, None] + np.arange(bins)[None, :, None] * bin_size[:, None, None]
           + (k[None, None, :] + 0.5) * (bin_size / grid)[:, None, None])
    inside = (pos >= -1.0) & (pos <= extent)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_edge = low >= extent - 1
    low = np.where(at_edge, extent - 1, low)
    high = np.where(at_edge, extent - 1, low + 1)
    frac = np.where(at_edge, 0.0, pos - low)
    exists = np.broadcast_to(k[None, None, :] < grid[:, None, None], pos.shape)
    return low, high, frac, inside, exists


@defop("RoiAlign", inputs="X:T rois:T batch_indices:int64", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"coordinate_transformation_mode": Attr("string", "half_pixel", choices=("half_pixel",
                                                                                         "output_half_pixel")),
              "mode": Attr("string", "avg", choices=("avg", "max")), "output_height": Attr("int", 1),
              "output_width": Attr("int", 1), "sampling_ratio": Attr("int", 0), "spatial_scale": Attr("float", 1.0)},
       infer=_roi_infer)
def roi_align(coordinate_transformation_mode, mode, output_height, output_width, sampling_ratio, spatial_scale):
    """Average (or max) of bilinearly sampled points in each of output_height x output_width bins of each region
    ``(x1, y1, x2, y2)`` of image ``batch_indices[r]``."""
    require("RoiAlign", output_height > 0 and output_width > 0 and sampling_ratio >= 0,
            f"output sizes must be positive and sampling_ratio >= 0, got {output_height}, {output_width}, "
            f"{sampling_ratio}")
    offset = 0.5 if coordinate_transformation_mode == "half_pixel" else 0.0

    def kernel(x, rois, batch_indices, out=None):
        require("RoiAlign", x.ndim == 4, f"X must be 4-D (N, C, H, W), got shape {x.shape}")
        require("RoiAlign", rois.ndim == 2 and rois.shape[1] == 4, f"rois must have shape (R, 4), got {rois.shape}")
        require("RoiAlign", batch_indices.shape == (rois.shape[0],),
                f"batch_indices must have shape ({rois.shape[0]},), got {batch_indices.shape}")
        if len(batch_indices) and not (0 <= batch_indices.min() and batch_indices.max() < x.shape[0]):
            raise ShapeError(f"RoiAlign: batch_indices must lie in [0, {x.shape[0]}), got {batch_indices}")
        n, c, height, width = x.shape
        if not len(rois):
            return np.zeros((0, c, output_height, output_width), x.dtype)
        box = rois.astype(np.float64) * spatial_scale - offset
        w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
        if not offset:  # legacy mode: malformed regions become 1 x 1
            w, h = np.maximum(w, 1.0), np.maximum(h, 1.0)
        grid_h = np.full(len(box), sampling_ratio) if sampling_ratio else np.ceil(h / output_height).astype(np.int64)
        grid_w = np.full(len(box), sampling_ratio) if sampling_ratio else np.ceil(w / output_width).astype(np.int64)
        ylo, yhi, fy, yin, yok = _sample_axis(box[:, 1], h, output_height, grid_h, sampling_ratio, height)
        xlo, xhi, fx, xin, xok = _sample_axis(box[:, 0], w, output_width, grid_w, sampling_ratio, width)
        # Broadcast to (R, out_h, grid_h, out_w, grid_w); gathered values add C last.
        ey = (slice(None), slice(None), slice(None), None, None)
        ex = (slice(None), None, None, slice(None), slice(None))
        inside = yin[ey] & xin[ex]
        image = batch_indices[:, None, None, None, None]
        corners = [(ylo, xlo, (1 - fy)[ey] * (1 - fx)[ex]), (ylo, xhi, (1 - fy)[ey] * fx[ex]),
                   (yhi, xlo, fy[ey] * (1 - fx)[ex]), (yhi, xhi, fy[ey] * fx[ex])]
        data = x.astype(np.float64) if x.dtype != np.float64 else x
        terms = [np.where(inside, weight, 0.0)[..., None] * data[image, :, yi[ey], xi[ex]]
                 for yi, xi, weight in corners]
        exists = (yok[ey] & xok[ex])[..., None]
        if mode == "avg":
            total = np.where(exists, terms[0] + terms[1] + terms[2] + terms[3], 0.0).sum(axis=(2, 4))
            count = np.maximum(grid_h * grid_w, 1).astype(np.float64)
            pooled = total / count[:, None, None, None]
        else:
            best = np.maximum(np.maximum(terms[0], terms[1]), np.maximum(terms[2], terms[3]))
            pooled = np.where(exists, best, -np.inf).max(axis=(2, 4))
            pooled[~exists.any(axis=(2, 4)).repeat(c, axis=-1)] = 0.0  # a bin without sampling points
        return np.ascontiguousarray(np.moveaxis(pooled, -1, 1)).astype(x.dtype)

    return kernel


not_differentiable("NonMaxSuppression", "RoiAlign")
