"""tf.image crops and pads (crop_to_bounding_box, pad_to_bounding_box, resize_with_crop_or_pad), the seeded
stateless_random_flip_left_right / flip_up_down / crop, and total_variation against real TF 2.21: values (the
same random flips and crop offsets from the same seeds), dtypes, shapes, error kinds and gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(3)
IMAGE = RNG.uniform(0, 1, (5, 7, 3)).astype(np.float32)
BATCH = RNG.uniform(0, 1, (6, 4, 5, 2)).astype(np.float32)
SEEDS = [(1, 2), (7, 3), (0, 0), (123, -5), (42, 9)]


@pytest.mark.parametrize("target", [(3, 4), (8, 11), (5, 7), (2, 10), (9, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("image", [IMAGE, BATCH, (IMAGE * 255).astype(np.uint8)], ids=["3d", "4d", "uint8"])
def test_resize_with_crop_or_pad(image, target):
    check(lambda tf: tf.image.resize_with_crop_or_pad(image, *target))


@pytest.mark.parametrize("box", [(1, 2, 3, 4), (0, 0, 5, 7), (4, 6, 1, 1), (-1, 0, 2, 2), (0, 0, 0, 2), (2, 2, 4, 4)],
                         ids=str)
def test_crop_to_bounding_box(box):
    check(lambda tf: tf.image.crop_to_bounding_box(IMAGE, *box))
    check(lambda tf: tf.image.crop_to_bounding_box(BATCH, *box))


@pytest.mark.parametrize("box", [(1, 2, 8, 10), (0, 0, 5, 7), (0, 3, 5, 10), (-1, 0, 8, 8), (2, 2, 6, 8)], ids=str)
def test_pad_to_bounding_box(box):
    check(lambda tf: tf.image.pad_to_bounding_box(IMAGE, *box))


def test_crop_and_pad_gradients():
    check_grad(lambda tf, x: tf.image.resize_with_crop_or_pad(x, 3, 9) * tf.range(9.0)[:, None], IMAGE)
    check_grad(lambda tf, x: tf.image.total_variation(x * x), BATCH)


@pytest.mark.parametrize("seed", SEEDS, ids=str)
@pytest.mark.parametrize("op", ["stateless_random_flip_left_right", "stateless_random_flip_up_down"])
def test_stateless_random_flips(op, seed):
    check(lambda tf: getattr(tf.image, op)(IMAGE, seed=seed))
    check(lambda tf: getattr(tf.image, op)(BATCH, seed=seed))
    check(lambda tf: getattr(tf.image, op)((BATCH * 255).astype(np.uint8), seed=np.array(seed, np.int64)))


@pytest.mark.parametrize("seed", SEEDS, ids=str)
@pytest.mark.parametrize("size", [(3, 4, 3), (5, 7, 3), (1, 1, 1), (2, 6, 2)], ids=str)
def test_stateless_random_crop(seed, size):
    check(lambda tf: tf.image.stateless_random_crop(IMAGE, size, seed=seed))


def test_stateless_random_crop_too_large():
    check(lambda tf: tf.image.stateless_random_crop(IMAGE, (6, 7, 3), seed=(1, 2)))


def test_stateless_ops_in_dataset_map():
    def run(tf):
        ds = tf.data.Dataset.from_tensor_slices(BATCH).map(
            lambda x: tf.image.stateless_random_flip_left_right(tf.image.stateless_random_crop(x, (3, 3, 2), (4, 5)),
                                                                (6, 7)))
        return [x for x in ds]

    check(run)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_total_variation(dtype):
    check(lambda tf, x: tf.image.total_variation(x), (IMAGE * 50).astype(dtype))
    check(lambda tf, x: tf.image.total_variation(x), (BATCH * 50).astype(dtype))


def test_rank_errors():
    check(lambda tf, x: tf.image.total_variation(x), np.ones((3, 3), np.float32))
    check(lambda tf: tf.image.resize_with_crop_or_pad(np.ones((3, 3), np.float32), 2, 2))
