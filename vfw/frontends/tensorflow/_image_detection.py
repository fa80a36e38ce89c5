"""tf.image detection helpers: non-max suppression (plain, with scores, over overlaps, padded, combined),
``draw_bounding_boxes`` and ``resize_with_pad``.

NMS is TF's greedy selection: candidates above ``score_threshold`` in decreasing score (ties: lower index first);
a candidate survives unless its IoU with an already selected box exceeds ``iou_threshold`` (boxes of non-positive
area overlap nothing); with ``soft_nms_sigma > 0`` overlaps decay the candidates' scores instead (soft-NMS).
Each greedy step is one vectorised suppression over all candidates; the selection runs
on the host (a ``tf.function`` graph reruns it per call) and is not differentiable, as in TF.
"""

import collections
import heapq

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _dtypes, _image_geometry, _image_ops
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error

CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression", ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


def _iou(boxes):
    """``[..., n, n]`` float32 intersection over union of the ``[..., n, 4]`` corner boxes (either corner order)."""
    y1, x1, y2, x2 = np.moveaxis(boxes.astype(np.float32), -1, 0)
    top, bottom = np.minimum(y1, y2), np.maximum(y1, y2)
    left, right = np.minimum(x1, x2), np.maximum(x1, x2)
    area = (bottom - top) * (right - left)
    height = np.minimum(bottom[..., :, None], bottom[..., None, :]) - np.maximum(top[..., :, None], top[..., None, :])
    width = np.minimum(right[..., :, None], right[..., None, :]) - np.maximum(left[..., :, None], left[..., None, :])
    inter = np.maximum(height, 0) * np.maximum(width, 0)
    union = area[..., :, None] + area[..., None, :] - inter
    valid = (area[..., :, None] > 0) & (area[..., None, :] > 0)
    return np.where(valid, inter / np.where(valid, union, 1), np.float32(0))


def _greedy(overlaps, scores, max_output, overlap_threshold, score_threshold):
    """Indices (int32, selection order) of TF's greedy NMS over the ``[n, n]`` ``overlaps`` matrix."""
    order = np.argsort(-scores, kind="stable")
    order = order[scores[order] > score_threshold]
    alive = np.ones(len(order), bool)
    selected = []
    for position in range(len(order)):
        if len(selected) >= max_output:
            break
        if not alive[position]:
            continue
        box = order[position]
        selected.append(box)
        alive[position + 1:] &= ~(overlaps[order[position + 1:], box] > overlap_threshold)
    return np.array(selected, np.int32)


def _soft_greedy(overlaps, scores, max_output, sigma, score_threshold):
    """``(indices int32, scores float32)`` of soft-NMS (Bodla et al.) as TF's NonMaxSuppressionV5 runs it.

    The best candidate is rescored by ``exp(-0.5 * iou**2 / sigma)`` for each box selected since it was last
    scored; it is selected when no such box changed its score, otherwise it goes back among the candidates while
    its score stays above ``score_threshold`` (the IoU threshold plays no part, as in TF).  float32 throughout.
    """
    scale = np.float32(-0.5 / sigma)
    candidates = [(-score, int(box), 0) for box, score in enumerate(scores) if score > score_threshold]
    heapq.heapify(candidates)
    selected, selected_scores = [], []
    while candidates and len(selected) < max_output:
        negated, box, scored_up_to = heapq.heappop(candidates)
        original = np.float32(-negated)
        weights = np.exp(scale * np.square(overlaps[box, selected[scored_up_to:]]))
        score = np.float32(original * np.prod(weights, dtype=np.float32)) if len(weights) else original
        if score == original:
            selected.append(box)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(candidates, (-score, box, len(selected)))
    return np.array(selected, np.int32), np.array(selected_scores, np.float32)


def _check_inputs(boxes, scores, max_output_size, tf_op):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise op_error(f"boxes must be 2-D and have 4 columns: [{','.join(map(str, boxes.shape))}]", tf_op)
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise op_error(f"scores has incompatible shape [{','.join(map(str, scores.shape))}]", tf_op)
    if max_output_size < 0:
        raise op_error("max_output_size must be non-negative", tf_op)


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, tf_op):
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype=boxes.dtype)
    limit, iou_limit, score_limit = int(max_output_size), float(iou_threshold), float(score_threshold)
    if not 0 <= iou_limit <= 1:
        raise op_error("iou_threshold must be in [0, 1]", tf_op)

    def run(box_array, score_array):
        _check_inputs(box_array, score_array, limit, tf_op)
        return _greedy(_iou(box_array), score_array.astype(np.float32), limit, iou_limit, score_limit)

    return host(run, boxes, scores)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Greedy NMS.

    Parameters
    ----------
    boxes : ``[num_boxes, 4]`` float (``y1, x1, y2, x2``, any corner order)
    scores : ``[num_boxes]`` float
    max_output_size : int
        Most boxes selected.
    iou_threshold : float
        A box overlapping a selected box by more than this IoU is dropped.
    score_threshold : float
        Boxes scoring at most this are dropped.

    Returns
    -------
    Tensor
        ``[M]`` int32 indices into ``boxes``, by decreasing score, ``M <= max_output_size``.
    """
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, "NonMaxSuppressionV3")


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """``(selected_indices, selected_scores)`` of greedy NMS, or of soft-NMS when ``soft_nms_sigma > 0`` (scores
    decayed by the overlaps with the boxes selected before, see :func:`_soft_greedy`)."""
    sigma = float(soft_nms_sigma)
    if sigma < 0:
        raise op_error("soft_nms_sigma_val must be >= 0", "NonMaxSuppressionV5")
    if sigma > 0:
        boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
        scores = convert_to_tensor(scores, dtype=boxes.dtype)
        limit, score_limit = int(max_output_size), float(score_threshold)

        def run(box_array, score_array):
            _check_inputs(box_array, score_array, limit, "NonMaxSuppressionV5")
            return _soft_greedy(_iou(box_array), score_array.astype(np.float32), limit, sigma, score_limit)

        indices, decayed = host(run, boxes, scores)
        return indices, tf.cast(decayed, scores.dtype)
    selected = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, "NonMaxSuppressionV5")
    return selected, tf.gather(convert_to_tensor(scores, dtype_hint=_dtypes.float32), selected)


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS over a precomputed ``[num_boxes, num_boxes]`` ``overlaps`` matrix: ``[M]`` int32 indices."""
    overlaps = convert_to_tensor(overlaps, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype=overlaps.dtype)
    limit, overlap_limit, score_limit = int(max_output_size), float(overlap_threshold), float(score_threshold)

    def run(overlap_array, score_array):
        if overlap_array.ndim != 2 or overlap_array.shape[0] != overlap_array.shape[1]:
            raise op_error(f"overlaps must be square, got [{','.join(map(str, overlap_array.shape))}]",
                           "NonMaxSuppressionWithOverlaps")
        return _greedy(overlap_array, score_array, limit, overlap_limit, score_limit)

    return host(run, overlaps, scores)


def _padded_rows(boxes, scores, limit, iou_limit, score_limit):
    """``([batch, limit] int32 indices zero-padded, [batch] int32 counts)`` of greedy NMS per batch row."""
    indices = np.zeros((len(boxes), limit), np.int32)
    counts = np.zeros(len(boxes), np.int32)
    for row, (row_boxes, row_scores) in enumerate(zip(boxes, scores)):
        chosen = _greedy(_iou(row_boxes), row_scores.astype(np.float32), limit, iou_limit, score_limit)
        indices[row, :len(chosen)], counts[row] = chosen, len(chosen)
    return indices, counts


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """Greedy NMS with the indices zero-padded to ``max_output_size`` when ``pad_to_max_output_size``.

    ``boxes`` ``[..., num_boxes, 4]`` and ``scores`` ``[..., num_boxes]`` may have batch dimensions.  Returns
    ``(selected_indices, valid_outputs)``: int32 ``[..., max_output_size]`` (unpadded: ``[..., M]``, M the most
    selected in any row) and int32 ``[...]``.  ``sorted_input``, ``canonicalized_coordinates`` and
    ``tile_size`` are speed hints of TF's kernel; the selection does not depend on them.
    """
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype=boxes.dtype)
    limit, iou_limit, score_limit = int(max_output_size), float(iou_threshold), float(score_threshold)

    def run(box_array, score_array):
        batch_shape = score_array.shape[:-1]
        indices, counts = _padded_rows(box_array.reshape(-1, *box_array.shape[-2:]),
                                       score_array.reshape(-1, score_array.shape[-1]), limit, iou_limit, score_limit)
        if not pad_to_max_output_size:
            indices = indices[:, :max(counts.max(initial=0), 0)]
        return indices.reshape(*batch_shape, -1), counts.reshape(batch_shape)

    return host(run, boxes, scores)


def _combined(boxes, scores, per_class, total, iou_limit, score_limit, pad_per_class, clip_boxes):
    batch, num_boxes, num_classes = scores.shape
    size = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for row in range(batch):
        picked = []  # (score, class, box index) of every class's survivors
        for cls in range(num_classes):
            class_boxes = boxes[row, :, cls if boxes.shape[2] > 1 else 0]
            chosen = _greedy(_iou(class_boxes), scores[row, :, cls], per_class, iou_limit, score_limit)
            picked.extend((scores[row, box, cls], cls, box) for box in chosen)
        # across classes: by decreasing score; equal scores keep class order, then selection order
        picked.sort(key=lambda item: -item[0])
        picked = picked[:size]
        valid[row] = len(picked)
        for slot, (score, cls, box) in enumerate(picked):
            out_boxes[row, slot] = boxes[row, box, cls if boxes.shape[2] > 1 else 0]
            out_scores[row, slot], out_classes[row, slot] = score, cls
    if clip_boxes:
        out_boxes = np.clip(out_boxes, 0, 1)
    return out_boxes, out_scores, out_classes, valid


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, merged across classes by score.

    Parameters
    ----------
    boxes : ``[batch, num_boxes, q, 4]`` float32 (q is 1: shared by all classes, or num_classes)
    scores : ``[batch, num_boxes, num_classes]`` float32
    max_output_size_per_class, max_total_size : int
    pad_per_class : bool
        Output ``min(max_total_size, max_output_size_per_class * num_classes)`` slots instead of
        ``max_total_size``.
    clip_boxes : bool
        Clip the output boxes to [0, 1].

    Returns
    -------
    CombinedNonMaxSuppression
        ``nmsed_boxes`` ``[batch, size, 4]``, ``nmsed_scores`` and ``nmsed_classes`` ``[batch, size]`` float32
        (zero past each row's ``valid_detections``, ``[batch]`` int32).
    """
    boxes = convert_to_tensor(boxes, dtype=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype=_dtypes.float32)
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    iou_limit, score_limit = float(iou_threshold), float(score_threshold)
    tf_op = "CombinedNonMaxSuppression"

    def run(box_array, score_array):
        if box_array.ndim != 4 or box_array.shape[3] != 4:
            raise op_error(f"boxes must be 4-D[{','.join(map(str, box_array.shape))}]", tf_op)
        if score_array.ndim != 3 or score_array.shape[:2] != box_array.shape[:2]:
            raise op_error(f"scores must be 3-D and match boxes' batch and box dimensions, got "
                           f"[{','.join(map(str, score_array.shape))}]", tf_op)
        if box_array.shape[2] not in (1, score_array.shape[2]):
            raise op_error(f"third dimension of boxes must be either 1 or {score_array.shape[2]}", tf_op)
        if per_class <= 0 or total <= 0:
            raise op_error("max_size_per_class and max_total_size must be positive", tf_op)
        return _combined(box_array, score_array, per_class, total, iou_limit, score_limit, pad_per_class,
                         clip_boxes)

    return CombinedNonMaxSuppression(*host(run, boxes, scores))


# TF's colour table when ``colors`` is None: RGBA, cycled over the boxes (grayscale images: white only)
_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                            [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw(canvas, boxes, colors):
    """Outline every box of ``boxes`` ``[batch, n, 4]`` (fractions of the image) on ``canvas`` in place, box ``i``
    in ``colors[i % len(colors)]``; corners scale by (size - 1) and truncate toward zero, as TF's kernel."""
    height, width = canvas.shape[1:3]
    for image, image_boxes in zip(canvas, boxes):
        for number, box in enumerate(image_boxes):
            color = colors[number % len(colors)][:canvas.shape[3]].astype(canvas.dtype)
            top, bottom = np.trunc(box[[0, 2]].astype(np.float32) * np.float32(height - 1)).astype(np.int64)
            left, right = np.trunc(box[[1, 3]].astype(np.float32) * np.float32(width - 1)).astype(np.int64)
            if top > bottom or left > right or top >= height or bottom < 0 or left >= width or right < 0:
                continue
            rows = slice(max(top, 0), min(bottom, height - 1) + 1)
            cols = slice(max(left, 0), min(right, width - 1) + 1)
            if top >= 0:
                image[top, cols] = color
            if bottom < height:
                image[bottom, cols] = color
            if left >= 0:
                image[rows, left] = color
            if right < width:
                image[rows, right] = color
    return canvas


def draw_bounding_boxes(images, boxes, colors, name=None):
    """``images`` ``[batch, height, width, depth]`` (depth 1, 3 or 4) with the ``boxes`` ``[batch, n, 4]``
    (``y_min, x_min, y_max, x_max`` as fractions) outlined one pixel wide in ``colors`` ``[k, >= depth]``
    (box ``i`` takes row ``i % k``; None: TF's table of 10 colours)."""
    images = convert_to_tensor(images, dtype_hint=_dtypes.float32)
    boxes = convert_to_tensor(boxes, dtype=_dtypes.float32)
    color_table = _DEFAULT_COLORS if colors is None else convert_to_tensor(colors, dtype=_dtypes.float32).array
    tf_op = "DrawBoundingBoxesV2"

    def run(image_array, box_array):
        if image_array.ndim != 4:
            raise op_error(f"The rank of the images should be 4[{','.join(map(str, image_array.shape))}]", tf_op)
        if image_array.shape[3] not in (1, 3, 4):
            raise op_error("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)", tf_op)
        if box_array.ndim != 3 or box_array.shape[2] != 4 or box_array.shape[0] != image_array.shape[0]:
            raise op_error(f"boxes must be [batch, num_boxes, 4], got [{','.join(map(str, box_array.shape))}]",
                           tf_op)
        table = color_table.reshape(-1, color_table.shape[-1]) if color_table.ndim else color_table
        if colors is None and image_array.shape[3] == 1:
            table = np.ones((1, 1), np.float32)
        if table.ndim != 2 or table.shape[1] < image_array.shape[3] or len(table) == 0:
            raise op_error(f"Color table must have at least depth channels, got {list(color_table.shape)}", tf_op)
        return _draw(image_array.copy(), box_array, table)

    return host(run, images, boxes)


def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """``image`` (3-D or 4-D) resized to fit ``target_height x target_width`` keeping its aspect ratio, then
    zero-padded evenly (the extra row/column at the bottom/right) to that size; float32 except for "nearest"."""
    image = _image_ops._image_rank(image, "resize_image_with_pad")
    rows = image.shape.rank - 3
    height, width = image.shape[rows], image.shape[rows + 1]
    if target_height <= 0:
        raise ValueError("target_height must be > 0.")
    if target_width <= 0:
        raise ValueError("target_width must be > 0.")
    f_height, f_width = np.float32(height), np.float32(width)
    ratio = max(f_width / np.float32(target_width), f_height / np.float32(target_height))
    resized_height, resized_width = int(np.floor(f_height / ratio)), int(np.floor(f_width / ratio))
    top = max(0, int(np.floor((np.float32(target_height) - f_height / ratio) / np.float32(2))))
    left = max(0, int(np.floor((np.float32(target_width) - f_width / ratio) / np.float32(2))))
    resized = _image_ops.resize(image, [resized_height, resized_width], method=method, antialias=antialias)
    return _image_geometry.pad_to_bounding_box(resized, top, left, target_height, target_width)


NAMESPACES = {"image": ["combined_non_max_suppression", "draw_bounding_boxes", "non_max_suppression",
                        "non_max_suppression_overlaps", "non_max_suppression_padded",
                        "non_max_suppression_with_scores", "resize_with_pad"]}
TENSOR_METHODS = {}
