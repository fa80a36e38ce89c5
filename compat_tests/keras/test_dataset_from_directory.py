"""keras.utils.image_dataset_from_directory / text_dataset_from_directory of vfw vs real Keras 3.15.1: the same
file order, labels, class names and pixels (after decoding and resizing) batch by batch, on a small temporary
directory of PNG, JPEG, BMP and GIF files written by TF and Pillow."""

import io
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")
Image = pytest.importorskip("PIL.Image")

import vfw.tensorflow as vtf  # noqa: E402


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(3)
    for index, name in enumerate(["cats", "dogs", "zebra"]):
        os.makedirs(root / name / "nested")
        for i in range(4 + index):
            height, width = 10 + 3 * i, 14 + 2 * index
            pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
            if i % 4 == 0:
                data = rtf.io.encode_png(pixels).numpy()
                suffix = ".png"
            elif i % 4 == 1:
                data = rtf.io.encode_jpeg(pixels, quality=85).numpy()
                suffix = ".JPG"
            elif i % 4 == 2 and name == "zebra":  # BMPs and GIFs only here: TF decodes them for 3 or 4 channels
                buffer = io.BytesIO()
                Image.fromarray(pixels).save(buffer, "BMP")
                data, suffix = buffer.getvalue(), ".bmp"
            elif i % 4 == 3 and name == "zebra":
                buffer = io.BytesIO()
                Image.fromarray(pixels).convert("P").save(buffer, "GIF")
                data, suffix = buffer.getvalue(), ".gif"
            else:
                buffer = io.BytesIO()
                Image.fromarray(pixels).save(buffer, "PNG")
                data, suffix = buffer.getvalue(), ".png"
            folder = root / name / ("nested" if i == 2 else "")
            (folder / f"img_{i:02d}{suffix}").write_bytes(data)
        (root / name / "notes.txt").write_text("not an image")
    return str(root)


def _batches(dataset):
    out = []
    for element in dataset:
        parts = element if isinstance(element, tuple) else (element,)
        out.append([np.asarray(part) for part in parts])
    return out


def _compare(real, ours):
    assert getattr(ours, "class_names", None) == getattr(real, "class_names", None)
    assert getattr(ours, "file_paths", None) == getattr(real, "file_paths", None)
    want, got = _batches(real), _batches(ours)
    assert len(got) == len(want)
    for want_batch, got_batch in zip(want, got):
        for w, g in zip(want_batch, got_batch, strict=True):
            assert g.dtype == w.dtype and g.shape == w.shape
            if w.dtype == object:  # text
                assert g.tolist() == w.tolist()
            else:  # float32 pixels from the same decoded bytes, resized by two float32 implementations
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("kwargs", [
    {"shuffle": False},
    {"seed": 5, "batch_size": 4},
    {"shuffle": False, "label_mode": "categorical", "color_mode": "grayscale", "image_size": 9,
     "class_names": ["dogs", "cats"]},
    {"shuffle": False, "class_names": ["zebra", "cats"], "label_mode": "binary", "interpolation": "nearest"},
    {"seed": 2, "validation_split": 0.3, "subset": "training", "crop_to_aspect_ratio": True, "batch_size": 3},
    {"seed": 2, "validation_split": 0.3, "subset": "validation", "pad_to_aspect_ratio": True},
    {"shuffle": False, "labels": None, "batch_size": None, "image_size": (7, 11)},
    {"seed": 8, "class_names": ["dogs", "cats"], "batch_size": 2},
    {"shuffle": False, "labels": [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1], "batch_size": 5},
])
def test_image_dataset_matches_keras(image_dir, kwargs):
    options = {"image_size": (12, 16), "verbose": False, **kwargs}
    _compare(keras.utils.image_dataset_from_directory(image_dir, **options),
             vtf.keras.utils.image_dataset_from_directory(image_dir, **options))


def test_image_dataset_both_subsets(image_dir):
    options = {"image_size": (8, 8), "seed": 11, "validation_split": 0.25, "subset": "both", "batch_size": 4,
               "verbose": False}
    for real, ours in zip(keras.utils.image_dataset_from_directory(image_dir, **options),
                          vtf.keras.utils.image_dataset_from_directory(image_dir, **options), strict=True):
        _compare(real, ours)


@pytest.mark.parametrize("kwargs", [
    {"labels": "bad"}, {"label_mode": "sparse"}, {"color_mode": "cmyk"}, {"image_size": (1, 2, 3)},
    {"interpolation": "cubic"}, {"validation_split": 0.2}, {"validation_split": 0.2, "subset": "training"},
    {"label_mode": "binary"}, {"class_names": ["lions"]}, {"labels": [0, 1]},
    {"crop_to_aspect_ratio": True, "pad_to_aspect_ratio": True},
])
def test_image_dataset_argument_errors(image_dir, kwargs):
    with pytest.raises(ValueError) as want:
        keras.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)
    with pytest.raises(ValueError) as got:
        vtf.keras.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)
    assert str(got.value) == str(want.value)


def test_text_dataset_matches_keras(tmp_path):
    for label in ("neg", "pos"):
        os.makedirs(tmp_path / label)
        for i in range(5):
            (tmp_path / label / f"t{i}.txt").write_text(f"{label} review number {i} " * (i + 1))
    for kwargs in ({"shuffle": False}, {"seed": 4, "batch_size": 3, "max_length": 12},
                   {"seed": 1, "validation_split": 0.4, "subset": "validation", "label_mode": "binary"}):
        options = {"verbose": False, **kwargs}
        _compare(keras.utils.text_dataset_from_directory(str(tmp_path), **options),
                 vtf.keras.utils.text_dataset_from_directory(str(tmp_path), **options))
