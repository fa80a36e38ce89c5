"""tf.image.(stateless_)sample_distorted_bounding_box against TF 2.21: the same windows draw for draw."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

_BOXES = np.array([[[0.1, 0.2, 0.5, 0.7], [0.3, 0.3, 0.9, 0.8]]], np.float32)


@pytest.mark.parametrize("seed", [(1, 2), (3, 4), (0, 0), (-5, 7), (2**40, 9)])
@pytest.mark.parametrize("options", [{"min_object_covered": 0.3}, {"min_object_covered": 0.9, "max_attempts": 5},
                                     {"aspect_ratio_range": (0.5, 2.0), "area_range": (0.1, 0.5)}])
def test_stateless_windows_equal_tf(seed, options):
    seed = np.array(seed, np.int64)
    check(lambda tf, b: tf.image.stateless_sample_distorted_bounding_box([100, 80, 3], b, seed, **options), _BOXES)
    check(lambda tf, b: tf.image.stateless_sample_distorted_bounding_box(
        np.array([37, 51, 1], np.int64), b, seed, use_image_if_no_bounding_boxes=True, **options),
        np.zeros((1, 0, 4), np.float32))


def test_stateful_stream_equals_tf():
    def draws(tf):
        tf.random.set_seed(3)
        return [[t.numpy() for t in tf.image.sample_distorted_bounding_box([60, 90, 3], _BOXES, seed=7,
                                                                            min_object_covered=0.2)]
                for _ in range(4)]
    for want, got in zip(draws(real_tf), draws(vtf)):
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
            assert g.dtype == w.dtype


def test_stateful_unseeded_windows_are_valid():
    begin, size, bboxes = vtf.image.sample_distorted_bounding_box([50, 40, 3], _BOXES, min_object_covered=0.5)
    top, left, _ = begin.numpy()
    rows, cols, channels = size.numpy()
    assert channels == -1 and 0 <= top and top + rows <= 50 and 0 <= left and left + cols <= 40
    np.testing.assert_allclose(bboxes.numpy()[0, 0], [top / 50, left / 40, (top + rows) / 50, (left + cols) / 40],
                               rtol=1e-6)


def test_errors():
    seed = np.array([1, 2], np.int32)
    check(lambda tf: tf.image.stateless_sample_distorted_bounding_box([10, 10, 3], np.zeros((1, 0, 4), np.float32),
                                                                      seed))
    check(lambda tf: tf.image.stateless_sample_distorted_bounding_box([10, 10, 3], _BOXES * 2, seed))
    check(lambda tf: tf.image.stateless_sample_distorted_bounding_box([10, 10, 3], _BOXES, [1, 2, 3]))
    check(lambda tf: tf.image.stateless_sample_distorted_bounding_box([10, 10, 3], _BOXES, seed,
                                                                      min_object_covered=1.5))
