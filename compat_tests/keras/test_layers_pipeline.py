"""Keras Pipeline, MaxNumBoundingBoxes, RandAugment and AugMix against real Keras 3.15.1.

Pipeline and MaxNumBoundingBoxes are deterministic (values, dtypes, configs, round trips compared with Keras).
RandAugment and AugMix draw their sub-layers' parameters from other streams than Keras (see the module doc), so
they are checked where Keras is deterministic: inference (the images cast to the compute dtype), configs, output
shapes/dtypes, the value range, and that training changes the images.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
import vfw.tensorflow as vtf  # noqa: E402
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(5)
FLOATS = RNG.uniform(0, 255, (2, 12, 10, 3)).astype(np.float32)
BYTES = RNG.integers(0, 256, (2, 12, 10, 3)).astype(np.uint8)


def _pipeline(lib, seed=3):
    # explicit names: automatic ones count the layers each library made before (other tests)
    return lib.layers.Pipeline([lib.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2),
                                                                                        name="clahe"),
                                lib.layers.RandomFlip(seed=seed, name="flip"), lib.layers.Rescaling(1 / 255.0,
                                                                                                     name="scale")],
                               name="augment")


@pytest.mark.parametrize("x", [FLOATS, BYTES, FLOATS[0]], ids=["floats", "bytes", "single"])
@pytest.mark.parametrize("training", [True, False, None])
def test_pipeline_matches_keras(x, training):
    ours, theirs = _pipeline(keras), _pipeline(real)
    kwargs = {} if training is None else {"training": training}
    for _ in range(2):  # the second call: the flip's seed generators advanced alike
        got, want = ours(x, **kwargs), theirs(x, **kwargs)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_pipeline_config_round_trip_and_dataset_map():
    ours, theirs = _pipeline(keras), _pipeline(real)
    config = ours.get_config()
    assert config == theirs.get_config()
    clone = keras.layers.Pipeline.from_config(config)
    assert [type(layer).__name__ for layer in clone.layers] == [type(layer).__name__ for layer in ours.layers]
    np.testing.assert_allclose(clone(FLOATS, training=False).numpy(),
                               np.asarray(theirs(FLOATS, training=False)), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="layers"):
        keras.layers.Pipeline.from_config({"name": "p"})
    with pytest.raises(ValueError, match="layers"):
        real.layers.Pipeline.from_config({"name": "p"})
    ds = vtf.data.Dataset.from_tensor_slices(FLOATS).batch(2).map(lambda x: clone(x, training=False))
    batch = next(iter(ds))
    np.testing.assert_allclose(batch.numpy(), np.asarray(theirs(FLOATS, training=False)), rtol=1e-6, atol=1e-6)


def _boxes_data(n_boxes, batched=True):
    boxes = RNG.uniform(0, 10, (2, n_boxes, 4)).astype(np.float32)
    labels = RNG.integers(0, 5, (2, n_boxes)).astype(np.int32)
    if not batched:
        return {"images": FLOATS[0], "bounding_boxes": {"boxes": boxes[0], "labels": labels[0]}}
    return {"images": BYTES, "labels": np.ones(2, np.float32), "bounding_boxes": {"boxes": boxes, "labels": labels}}


@pytest.mark.parametrize("max_number,n_boxes,batched", [(2, 4, True), (5, 3, True), (3, 3, True), (4, 2, False)])
def test_max_num_bounding_boxes_matches_keras(max_number, n_boxes, batched):
    data = _boxes_data(n_boxes, batched)
    kwargs = dict(max_number=max_number, fill_value=-2, bounding_box_format="xyxy")
    got = keras.layers.MaxNumBoundingBoxes(**kwargs)(data)
    want = real.layers.MaxNumBoundingBoxes(**kwargs)(data)
    assert sorted(got) == sorted(want)
    for key in ("boxes", "labels"):
        g, w = got["bounding_boxes"][key], want["bounding_boxes"][key]
        assert g.dtype.name == w.dtype.name
        np.testing.assert_array_equal(g.numpy(), np.asarray(w))
    assert got["images"].dtype.name == want["images"].dtype.name
    np.testing.assert_array_equal(got["images"].numpy(), np.asarray(want["images"]))


def test_max_num_bounding_boxes_config_and_errors_match_keras():
    for kwargs in [dict(max_number=3), dict(max_number=4.0, fill_value=0, bounding_box_format="xywh")]:
        assert keras.layers.MaxNumBoundingBoxes(**kwargs).get_config() == \
            real.layers.MaxNumBoundingBoxes(**kwargs).get_config()
    for lib in (keras, real):
        with pytest.raises(ValueError, match="bounding_box_format"):
            lib.layers.MaxNumBoundingBoxes(2)(_boxes_data(3))
        shape = {"images": (2, 12, 10, 3), "bounding_boxes": {"boxes": (2, 3, 4), "labels": (2, 3)}}
        assert lib.layers.MaxNumBoundingBoxes(5).compute_output_shape(shape)["bounding_boxes"] == \
            {"boxes": [2, 5, 4], "labels": [2, 5]}
        with pytest.raises(KeyError):
            lib.layers.MaxNumBoundingBoxes(5).compute_output_shape(
                {"bounding_boxes": {"boxes": (2, 3, 4), "labels": (2, 3), "scores": (2, 3)}})


AUGMENT_CASES = [
    ("RandAugment", dict(seed=4)),
    ("RandAugment", dict(num_ops=3, factor=(0.1, 0.9), interpolation="nearest", value_range=(0, 1), seed=2)),
    ("AugMix", dict(seed=4)),
    ("AugMix", dict(num_chains=2, chain_depth=2, factor=0.8, alpha=0.5, all_ops=False, value_range=(0, 1), seed=1)),
]
AUGMENT_IDS = [f"{name}-{i}" for i, (name, _) in enumerate(AUGMENT_CASES)]


@pytest.mark.parametrize("name,kwargs", AUGMENT_CASES, ids=AUGMENT_IDS)
def test_augment_config_and_inference_match_keras(name, kwargs):
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    assert ours.get_config() == theirs.get_config()
    clone = getattr(keras.layers, name).from_config(ours.get_config())
    assert clone.get_config() == theirs.get_config()
    for x in (FLOATS, BYTES, FLOATS[0]):
        got, want = ours(x, training=False), theirs(x, training=False)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), np.asarray(want))


@pytest.mark.parametrize("name,kwargs", AUGMENT_CASES, ids=AUGMENT_IDS)
def test_augment_training_changes_images_within_range_like_keras(name, kwargs):
    low, high = kwargs.get("value_range", (0, 255))
    x = FLOATS * ((high - low) / 255.0) + low
    for lib in (keras, real):
        layer = getattr(lib.layers, name)(**kwargs)
        outputs = [np.asarray(layer(x)) for _ in range(3)]
        for out in outputs:
            assert out.shape == x.shape and out.dtype == np.float32 and np.isfinite(out).all()
        assert any(not np.allclose(out, x) for out in outputs)
        if name == "AugMix":  # AugMix clips to value_range
            assert all(out.min() >= low and out.max() <= high for out in outputs)


def test_augmix_single_image_and_chain_weights_mix_within_range():
    layer = keras.layers.AugMix(seed=9, chain_depth=1)
    out = layer(FLOATS[0]).numpy()
    assert out.shape == FLOATS[0].shape and 0 <= out.min() and out.max() <= 255
