"""``tf.image.sample_distorted_bounding_box`` and its stateless twin: a random crop window of an image that
covers enough of at least one object box.

The window search is TF's kernel's, draw for draw: each attempt takes an aspect ratio uniform in
``aspect_ratio_range``, a height uniform among the integers whose rounded area fits ``area_range``, then a
random offset, and keeps the first window covering at least ``min_object_covered`` of some box (none: the whole
image).  Its random numbers are 32-bit Philox words taken one at a time (floats from their low 23 bits,
integers below ``n`` as the word modulo ``n``): from the seed's key and counter for the stateless op, and from
the op's kernel stream (``max_attempts`` blocks per call) for the stateful one, so both replay TF's crops.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, _philox, _random_ops, _random_stateless
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error

_F32 = np.float32


class _Words:
    """TF's SimplePhilox: Philox words handed out one at a time."""

    def __init__(self, words):
        self.words, self.used = words, 0

    def next(self):
        self.used += 1
        return int(self.words[self.used - 1])

    def unit_float(self):
        return _F32(np.array((self.next() & 0x7FFFFF) | 0x3F800000, np.uint32).view(np.float32) - _F32(1))

    def below(self, n):
        return self.next() % n


def _rounded(value):
    return int(np.rint(_F32(value)))  # lrintf: to nearest, ties to even


def _random_window(width, height, min_area_fraction, max_area_fraction, aspect, words):
    """``(top, left, bottom, right)`` of a random window of area in the range and about ``aspect`` (width /
    height), or None when none fits."""
    if max_area_fraction <= 0 or aspect <= 0 or min_area_fraction > max_area_fraction:
        return None
    min_area = _F32(min_area_fraction) * _F32(width) * _F32(height)
    max_area = _F32(max_area_fraction) * _F32(width) * _F32(height)
    rows = _rounded(np.sqrt(min_area / aspect))
    max_rows = _rounded(np.sqrt(max_area / aspect))
    if _rounded(_F32(max_rows) * aspect) > width:  # the tallest window whose rounded width still fits
        max_rows = int((width + 0.5 - float(_F32(1e-7))) / float(aspect))
        if _rounded(_F32(max_rows) * aspect) > width:
            max_rows -= 1
    max_rows = min(max_rows, height)
    rows = min(rows, max_rows)
    if rows < max_rows:
        rows += words.below(max_rows - rows + 1)
    cols = _rounded(_F32(rows) * aspect)
    area = _F32(cols * rows)
    if area < min_area:
        rows += 1
        cols = _rounded(_F32(rows) * aspect)
        area = _F32(cols * rows)
    if area > max_area:
        rows -= 1
        cols = _rounded(_F32(rows) * aspect)
        area = _F32(cols * rows)
    if area < min_area or area > max_area or cols > width or rows > height or cols <= 0 or rows <= 0:
        return None
    top = words.below(height - rows) if rows < height else 0
    left = words.below(width - cols) if cols < width else 0
    return top, left, top + rows, left + cols


def _area(window):
    return max(window[2] - window[0], 0) * max(window[3] - window[1], 0)


def _covers(window, objects, min_covered):
    """Whether ``window`` covers at least ``min_covered`` of one of the ``objects`` (pixel rectangles)."""
    if _area(window) < 1:
        return False
    for box in objects:
        box_area = _area(box)
        if box_area < 1:
            continue
        overlap = (max(window[0], box[0]), max(window[1], box[1]), min(window[2], box[2]), min(window[3], box[3]))
        if _F32(_area(overlap)) / _F32(box_area) >= _F32(min_covered):
            return True
    return False


def _sample(size, boxes, min_covered, aspect_range, area_range, max_attempts, use_whole_image, words, tf_op):
    """``(begin, size, bboxes)`` arrays of one window search (``size``: the image's [h, w, c])."""
    if size.shape != (3,):
        raise op_error(f"image_size must be 1-dimensional with 3 elements, got shape {list(size.shape)}", tf_op)
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        raise op_error(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                       f"[{','.join(map(str, boxes.shape))}]", tf_op)
    height, width = int(size[0]), int(size[1])
    flat = boxes.reshape(-1, 4).astype(np.float32)
    if flat.size and ((flat < 0) | (flat > 1)).any():
        raise op_error("All bounding box coordinates must be in [0.0, 1.0]", tf_op)
    if flat.size and ((flat[:, 0] > flat[:, 2]) | (flat[:, 1] > flat[:, 3])).any():
        raise op_error("All bounding boxes must have y_min <= y_max and x_min <= x_max", tf_op)
    objects = [(int(y0 * _F32(height)), int(x0 * _F32(width)), int(y1 * _F32(height)), int(x1 * _F32(width)))
               for y0, x0, y1, x1 in flat]
    if not objects:
        if not use_whole_image:
            raise op_error("No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes "
                           "if you wish to not provide any bounding boxes.", tf_op)
        objects = [(0, 0, height, width)]
    low_aspect, high_aspect = _F32(aspect_range[0]), _F32(aspect_range[1])
    window = None
    for _ in range(max_attempts):
        aspect = words.unit_float() * (high_aspect - low_aspect) + low_aspect
        found = _random_window(width, height, _F32(area_range[0]), _F32(area_range[1]), aspect, words)
        if found is not None and _covers(found, objects, min_covered):
            window = found
            break
    top, left, bottom, right = window or (0, 0, height, width)
    begin = np.array([top, left, 0], size.dtype)
    extent = np.array([bottom - top, right - left, -1], size.dtype)
    bboxes = np.array([[[top / _F32(height), left / _F32(width), bottom / _F32(height), right / _F32(width)]]],
                      np.float32)
    return begin, extent, bboxes


def _checked_options(aspect_ratio_range, area_range, max_attempts, tf_op):
    aspect = [float(v) for v in (aspect_ratio_range or (0.75, 1.33))]
    area = [float(v) for v in (area_range or (0.05, 1.0))]
    attempts = 100 if max_attempts is None else int(max_attempts)
    if len(aspect) != 2:
        raise op_error("Aspect ratio range field must specify 2 dimensions", tf_op)
    if len(area) != 2:
        raise op_error("Area range field must specify 2 dimensions", tf_op)
    if area[0] <= 0 or area[1] > 1 or area[0] > area[1]:
        raise op_error("Area range must be in (0.0, 1.0] with min <= max", tf_op)
    if attempts <= 0:
        raise op_error(f"Max attempts must be non-zero and positive, got {attempts}", tf_op)
    return aspect, area, attempts


def _run(image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, max_attempts,
         use_image_if_no_bounding_boxes, words_of, tf_op, seed=None):
    """The op's three tensors; ``words_of(attempts, *seed_array)`` gives the Philox words of one call."""
    aspect, area, attempts = _checked_options(aspect_ratio_range, area_range, max_attempts, tf_op)
    image_size = convert_to_tensor(image_size)
    if image_size.dtype.name not in ("uint8", "int8", "int16", "int32", "int64"):
        raise TypeError(f"Value passed to parameter 'image_size' has DataType {image_size.dtype.name} not in list "
                        f"of allowed values: uint8, int8, int16, int32, int64")
    boxes = convert_to_tensor(bounding_boxes, dtype=_dtypes.float32)
    covered = convert_to_tensor(min_object_covered, dtype=_dtypes.float32)

    def run(size, box_array, covered_array, *seed_array):
        return _sample(size, box_array, float(covered_array), aspect, area, attempts,
                       bool(use_image_if_no_bounding_boxes), _Words(words_of(attempts, *seed_array)), tf_op)

    return host(run, image_size, boxes, covered, *([] if seed is None else [seed]))


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop window of an image covering at least ``min_object_covered`` of one of ``bounding_boxes``.

    Parameters
    ----------
    image_size : 1-D integer tensor ``[height, width, channels]``
    bounding_boxes : float32 ``[batch, N, 4]`` boxes ``[y_min, x_min, y_max, x_max]`` in [0, 1]
    seed : int
        Op seed (0: a random stream, as TF; else combined with the global seed).
    min_object_covered : float
    aspect_ratio_range, area_range : (float, float)
        Defaults (0.75, 1.33) and (0.05, 1.0).
    max_attempts : int
        Default 100; after that the whole image is returned.
    use_image_if_no_bounding_boxes : bool
        With no boxes, treat the whole image as the one box (else InvalidArgumentError).

    Returns
    -------
    (begin, size, bboxes)
        ``begin`` ``[offset_y, offset_x, 0]`` and ``size`` ``[height, width, -1]`` in ``image_size``'s dtype (for
        ``tf.slice``), ``bboxes`` float32 ``[1, 1, 4]`` the window as fractions.
    """
    seeds = _random_ops.get_seed(seed) if seed else (0, 0)
    tf_op = "SampleDistortedBoundingBoxV2"
    stream = _random_ops._kernel(seeds, tf_op, convert_to_tensor(image_size).dtype.name)

    def words_of(attempts):
        return _philox.words(stream.key, stream.reserve(attempts), 4 * attempts)

    return _run(image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, max_attempts,
                use_image_if_no_bounding_boxes, words_of, tf_op)


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered=0.1,
                                            aspect_ratio_range=None, area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """:func:`sample_distorted_bounding_box` drawn deterministically from ``seed`` (shape ``[2]`` int32/int64):
    TF's window for the same seed."""
    tf_op = "StatelessSampleDistortedBoundingBox"

    def words_of(attempts, seed_pair):
        return _philox.words(*_philox.key_counter_of_seed(int(seed_pair[0]), int(seed_pair[1])), 4 * attempts)

    return _run(image_size, bounding_boxes, min_object_covered, aspect_ratio_range, area_range, max_attempts,
                use_image_if_no_bounding_boxes, words_of, tf_op, _random_stateless.seed_tensor(seed, tf_op))


NAMESPACES = {"image": ["sample_distorted_bounding_box", "stateless_sample_distorted_bounding_box"]}
TENSOR_METHODS = {}
