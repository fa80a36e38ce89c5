"""tf.keras.preprocessing.image's ``ImageDataGenerator.flow_from_directory`` over a tiny image folder, and
``model.fit`` on its flows, against real TF 2.21's tf.keras (Keras 3.15.1)."""

import random

import numpy as np
import pytest
from PIL import Image

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.training_harness import assert_close, history, twin


@pytest.fixture(scope="module")
def image_folder(tmp_path_factory):
    """Three class folders (one with a nested folder) of PNG/JPEG/BMP images of several sizes and modes, plus
    files the iterators must skip."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    layout = {"dogs": ["b.png", "a.jpg", "C.PNG", "nested/d.bmp"], "cats": ["x.png", "y.jpeg", "z.png"],
              "birds": ["one.png", "two.png", "three.png", "four.png", "five.png"]}
    modes = ["RGB", "L", "RGBA", "RGB"]
    for index, (folder, names) in enumerate(layout.items()):
        for position, name in enumerate(names):
            path = root / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = modes[(index + position) % len(modes)]
            if name.endswith((".jpg", ".jpeg", ".bmp")) and mode == "RGBA":
                mode = "RGB"
            channels = {"RGB": 3, "L": 1, "RGBA": 4}[mode]
            size = (5 + position, 7 + index)
            pixels = rng.integers(0, 256, (*size, channels), dtype=np.uint8)
            Image.fromarray(pixels[..., 0] if channels == 1 else pixels, mode).save(path)
        (root / folder / "notes.txt").write_text("not an image")
    (root / "readme.md").write_text("not a class")
    return root


def _generator(lib, **options):
    return lib.tf.keras.preprocessing.image.ImageDataGenerator(**options)


def _summary(iterator):
    """The iterator's bookkeeping and all its batches over two epochs and two ``next()`` calls."""
    batches = [iterator[i] for i in range(len(iterator))]
    iterator.on_epoch_end()
    batches += [iterator[i] for i in range(len(iterator))] + [next(iterator), next(iterator)]
    return (iterator.filenames, iterator.classes, iterator.class_indices, iterator.num_classes, iterator.samples,
            iterator.image_shape, len(iterator), batches)


@pytest.mark.parametrize("flow", [
    {"target_size": (6, 5), "batch_size": 4, "seed": 3},
    {"target_size": (4, 4), "batch_size": 5, "shuffle": False, "class_mode": "binary", "color_mode": "grayscale"},
    {"target_size": (3, 7), "batch_size": 3, "seed": 1, "class_mode": "sparse", "color_mode": "rgba",
     "interpolation": "bilinear"},
    {"target_size": (5, 5), "batch_size": 6, "seed": 2, "class_mode": "input", "interpolation": "bicubic",
     "keep_aspect_ratio": True},
    {"target_size": (2, 3), "batch_size": 4, "seed": 5, "class_mode": None, "interpolation": "lanczos"},
    {"target_size": (5, 6), "batch_size": 4, "seed": 4, "classes": ["dogs", "birds"], "follow_links": True},
    {"target_size": (4, 5), "batch_size": 2, "seed": 6, "subset": "training"},
    {"target_size": (4, 5), "batch_size": 2, "seed": 6, "subset": "validation", "interpolation": "box"},
])
@pytest.mark.parametrize("options", [{}, {"horizontal_flip": True, "rescale": 1 / 255, "validation_split": 0.4},
                                     {"data_format": "channels_first", "brightness_range": (0.5, 1.5),
                                      "validation_split": 0.25, "samplewise_center": True}])
def test_flow_from_directory(image_folder, flow, options, capsys):
    def fn(lib):
        np.random.seed(0)
        iterator = _generator(lib, **options).flow_from_directory(str(image_folder), **flow)
        return _summary(iterator), capsys.readouterr().out

    same(fn)


@pytest.mark.parametrize("flow", [{"color_mode": "cmyk"}, {"class_mode": "raw"}, {"subset": "test"},
                                  {"interpolation": "spline"}])
def test_flow_from_directory_errors(image_folder, flow):
    def fn(lib):
        try:
            return _generator(lib, validation_split=0.5).flow_from_directory(str(image_folder), target_size=(3, 3),
                                                                             **flow)[0]
        except ValueError as error:  # the class-mode message shows a set holding None: its order varies
            return str(error).split("; expected one of")[0]

    same(fn)


def test_flow_from_directory_save_to_dir(image_folder, tmp_path):
    def fn(lib):
        folder = tmp_path / lib.name
        folder.mkdir()
        iterator = _generator(lib, vertical_flip=True).flow_from_directory(
            str(image_folder), target_size=(4, 4), batch_size=5, seed=2, save_to_dir=str(folder), save_format="jpeg")
        batches = [iterator[i] for i in range(len(iterator))]
        saved = sorted(path.name for path in folder.iterdir())
        return batches, saved, [np.asarray(Image.open(folder / name)) for name in saved]

    same(fn)


def _classifier(lib, inputs_shape, classes):
    keras = lib.keras
    return keras.Sequential([keras.Input(inputs_shape), keras.layers.Conv2D(2, 3, activation="relu"),
                             keras.layers.Flatten(), keras.layers.Dense(classes, activation="softmax")])


def _fit(flow, epochs=3):
    def train(lib, model):
        model.compile(optimizer=lib.keras.optimizers.SGD(0.05), loss="categorical_crossentropy",
                      metrics=["accuracy"])
        random.seed(0)  # the batch order of fit(shuffle=True) over a PyDataset
        return history(model.fit(flow(lib), epochs=epochs, verbose=0))

    return train


def test_fit_on_numpy_flow():
    rng = np.random.default_rng(1)
    images = rng.random((14, 6, 6, 3), dtype=np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 14)]

    def flow(lib):
        return _generator(lib, horizontal_flip=True, channel_shift_range=0.1).flow(images, labels, batch_size=4,
                                                                                    seed=7)

    real, mine = twin(lambda lib: _classifier(lib, (6, 6, 3), 3), _fit(flow))
    assert_close(real, mine)


def test_fit_on_directory_flow(image_folder):
    def flow(lib):
        return _generator(lib, rescale=1 / 255, vertical_flip=True).flow_from_directory(
            str(image_folder), target_size=(5, 5), batch_size=4, seed=3)

    real, mine = twin(lambda lib: _classifier(lib, (5, 5, 3), 3), _fit(flow))
    assert_close(real, mine)
