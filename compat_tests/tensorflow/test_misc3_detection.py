"""tf.image NMS family, draw_bounding_boxes and resize_with_pad against TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

pytest.importorskip("tensorflow")


def _boxes(rng, n, batch=()):
    corners = rng.uniform(0, 1, (*batch, n, 2, 2)).astype(np.float32)
    size = rng.uniform(0.05, 0.5, (*batch, n, 1, 2)).astype(np.float32)
    return np.concatenate([corners[..., 0, :], corners[..., 0, :] + size[..., 0, :]], axis=-1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_non_max_suppression(seed):
    rng = np.random.default_rng(seed)
    boxes, scores = _boxes(rng, 30), rng.uniform(0, 1, 30).astype(np.float32)
    scores[5] = scores[9]  # a tie: the lower index goes first
    boxes[3] = boxes[3, [2, 3, 0, 1]]  # flipped corners
    boxes[4, 2] = boxes[4, 0]  # zero area
    check(lambda tf, b, s: tf.image.non_max_suppression(b, s, 10), boxes, scores)
    check(lambda tf, b, s: tf.image.non_max_suppression(b, s, 30, iou_threshold=0.1, score_threshold=0.3),
          boxes, scores)
    check(lambda tf, b, s: tf.image.non_max_suppression_with_scores(b, s, 7, iou_threshold=0.2), boxes, scores)
    overlaps = rng.uniform(0, 1, (30, 30)).astype(np.float32)
    check(lambda tf, o, s: tf.image.non_max_suppression_overlaps(o, s, 8, overlap_threshold=0.6), overlaps, scores)


@pytest.mark.parametrize("pad", [False, True])
def test_non_max_suppression_padded(pad):
    rng = np.random.default_rng(3)
    boxes, scores = _boxes(rng, 20), rng.uniform(0, 1, 20).astype(np.float32)
    check(lambda tf, b, s: tf.image.non_max_suppression_padded(b, s, 12, iou_threshold=0.3, score_threshold=0.2,
                                                               pad_to_max_output_size=pad), boxes, scores)
    boxes, scores = _boxes(rng, 20, (2,)), rng.uniform(0, 1, (2, 20)).astype(np.float32)
    check(lambda tf, b, s: tf.image.non_max_suppression_padded(b, s, 6, iou_threshold=0.3,
                                                               pad_to_max_output_size=True), boxes, scores)


@pytest.mark.parametrize("q, pad_per_class, clip", [(1, False, True), (3, True, False), (3, False, True)])
def test_combined_non_max_suppression(q, pad_per_class, clip):
    rng = np.random.default_rng(4)
    boxes = _boxes(rng, 15, (2,))[:, :, None, :].repeat(q, axis=2) * 1.3
    boxes += rng.uniform(-0.02, 0.02, boxes.shape).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 15, 3)).astype(np.float32)
    check(lambda tf, b, s: tuple(tf.image.combined_non_max_suppression(
        b, s, 4, 9, iou_threshold=0.4, score_threshold=0.1, pad_per_class=pad_per_class, clip_boxes=clip)),
        boxes, scores)


def test_nms_errors():
    rng = np.random.default_rng(5)
    check(lambda tf, b, s: tf.image.non_max_suppression(b, s, 3), _boxes(rng, 4)[:, :3], np.ones(4, np.float32))
    check(lambda tf, b, s: tf.image.non_max_suppression(b, s, 3), _boxes(rng, 4), np.ones(5, np.float32))


@pytest.mark.parametrize("depth", [1, 3, 4])
def test_draw_bounding_boxes(depth):
    rng = np.random.default_rng(6)
    images = rng.uniform(0, 1, (2, 9, 11, depth)).astype(np.float32)
    boxes = np.array([[[0.1, 0.2, 0.6, 0.9], [-0.2, 0.5, 0.5, 1.4], [0.3, 0.3, 0.2, 0.4]],
                      [[0.0, 0.0, 1.0, 1.0], [1.2, 0.1, 1.5, 0.3], [0.45, 0.45, 0.55, 0.55]]], np.float32)
    colors = np.array([[1, 0, 0, 1], [0, 1, 0.5, 1]], np.float32)
    check(lambda tf, i, b, c: tf.image.draw_bounding_boxes(i, b, c), images, boxes, colors)
    check(lambda tf, i, b: tf.image.draw_bounding_boxes(i, b, None), images, boxes)


def test_draw_bounding_boxes_errors():
    images = np.zeros((1, 4, 4, 2), np.float32)
    check(lambda tf, i: tf.image.draw_bounding_boxes(i, np.zeros((1, 1, 4), np.float32), None), images)


@pytest.mark.parametrize("shape, target", [((5, 8, 3), (6, 6)), ((7, 3, 1), (4, 9)), ((2, 6, 4, 2), (5, 5)),
                                           ((3, 3, 3), (3, 3))])
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_resize_with_pad(shape, target, method):
    image = np.random.default_rng(7).uniform(0, 255, shape).astype(np.float32)
    check(lambda tf, x: tf.image.resize_with_pad(x, *target, method=method), image, atol=1e-4)
    check(lambda tf, x: tf.image.resize_with_pad(x, *target, method=method), image.astype(np.uint8), atol=1e-4)


def test_resize_with_pad_errors():
    check(lambda tf, x: tf.image.resize_with_pad(x, 0, 3), np.zeros((2, 2, 1), np.float32))
    check(lambda tf, x: tf.image.resize_with_pad(x, 3, 3), np.zeros((2, 2), np.float32))
