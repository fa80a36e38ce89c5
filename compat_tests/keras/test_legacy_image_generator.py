"""tf.keras.preprocessing.image's ImageDataGenerator over numpy arrays, its per-image transforms and
``smart_resize``, and tf.keras.preprocessing.sequence's TimeseriesGenerator, against real TF 2.21's tf.keras
(Keras 3.15.1). Seeded flows must give Keras' batches; transforms that resample need scipy in both."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same

IMAGES = np.random.default_rng(0).random((10, 6, 5, 3), dtype=np.float32) * 255
LABELS = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])


def _image(lib):
    return lib.tf.keras.preprocessing.image


def _drain(iterator):
    """Every indexed batch of an epoch, one after ``on_epoch_end``, and five ``next()`` batches (wrapping)."""
    batches = [iterator[i] for i in range(len(iterator))]
    iterator.on_epoch_end()
    batches.append(iterator[len(iterator) - 1])
    batches += [next(iterator) for _ in range(5)]
    return batches, iterator.total_batches_seen


def test_namespaces():
    same(lambda lib: (sorted(n for n in dir(_image(lib)) if not n.startswith("_")),
                      sorted(n for n in dir(lib.tf.keras.preprocessing.sequence) if not n.startswith("_"))))


GENERATOR_OPTIONS = [
    {}, {"horizontal_flip": True, "vertical_flip": True}, {"channel_shift_range": 30.0, "rescale": 1 / 255},
    {"brightness_range": (0.4, 1.6)}, {"brightness_range": [0.8, 1.2], "rescale": 1 / 127.5},
    {"samplewise_center": True, "samplewise_std_normalization": True},
    {"samplewise_std_normalization": True, "preprocessing_function": lambda x: x - 100.0},
    {"zoom_range": [1, 1], "horizontal_flip": True, "dtype": "float64"},
    {"data_format": "channels_first", "vertical_flip": True, "channel_shift_range": 5.0},
]


@pytest.mark.parametrize("options", GENERATOR_OPTIONS)
@pytest.mark.parametrize("flow", [{"batch_size": 4, "seed": 3}, {"batch_size": 3, "shuffle": False},
                                  {"batch_size": 4, "seed": 11, "sample_weight": np.linspace(0, 1, 10)}])
def test_flow_batches(options, flow):
    def fn(lib):
        np.random.seed(5)
        generator = _image(lib).ImageDataGenerator(**options)
        images = IMAGES.transpose(0, 3, 1, 2) if options.get("data_format") == "channels_first" else IMAGES
        return _drain(generator.flow(images, LABELS, **flow))

    same(fn)


@pytest.mark.parametrize("case", ["no_y", "misc", "misc_list", "validation", "training", "ignore_split",
                                  "bad_split", "bad_subset", "bad_rank", "bad_y", "bad_weights", "bad_misc"])
def test_flow_inputs_and_subsets(case):
    def fn(lib):
        np.random.seed(0)
        generator = _image(lib).ImageDataGenerator(validation_split=0.3, horizontal_flip=True)
        extra = np.arange(20.0).reshape(10, 2)
        flows = {
            "no_y": lambda: generator.flow(IMAGES, batch_size=4, seed=1),
            "misc": lambda: generator.flow((IMAGES, extra), LABELS, batch_size=4, seed=2),
            "misc_list": lambda: generator.flow([IMAGES, [extra, extra[:, :1]]], LABELS, batch_size=3, seed=2),
            "validation": lambda: generator.flow(IMAGES, LABELS, batch_size=2, seed=4, subset="validation"),
            "training": lambda: generator.flow(IMAGES, LABELS, batch_size=3, seed=4, subset="training"),
            "ignore_split": lambda: generator.flow(IMAGES, np.sort(LABELS), batch_size=3, subset="training",
                                                   ignore_class_split=True),
            "bad_split": lambda: generator.flow(IMAGES, np.sort(LABELS), subset="training"),
            "bad_subset": lambda: generator.flow(IMAGES, LABELS, subset="test"),
            "bad_rank": lambda: generator.flow(IMAGES[0], None),
            "bad_y": lambda: generator.flow(IMAGES, LABELS[:4]),
            "bad_weights": lambda: generator.flow(IMAGES, LABELS, sample_weight=np.ones(3)),
            "bad_misc": lambda: generator.flow((IMAGES, extra[:5]), LABELS),
        }
        iterator = flows[case]()
        return _drain(iterator) + (iterator.n, len(iterator))

    same(fn)


def test_index_out_of_range():
    same(lambda lib: _image(lib).ImageDataGenerator().flow(IMAGES, batch_size=4)[3])


def test_flow_save_to_dir(tmp_path):
    def fn(lib):
        folder = tmp_path / lib.name
        folder.mkdir()
        iterator = _image(lib).ImageDataGenerator(horizontal_flip=True).flow(
            IMAGES, LABELS, batch_size=4, seed=7, save_to_dir=str(folder), save_prefix="aug")
        batches = [iterator[i] for i in range(len(iterator))]
        saved = sorted(path.name for path in folder.iterdir())
        return batches, saved, [np.asarray(_image(lib).load_img(str(folder / name))) for name in saved]

    same(fn)


@pytest.mark.parametrize("options", [
    {"featurewise_center": True}, {"featurewise_std_normalization": True, "rescale": 0.5},
    {"zca_whitening": True}, {"zca_whitening": True, "featurewise_std_normalization": True, "zca_epsilon": 0.1},
    {"featurewise_center": True, "featurewise_std_normalization": True, "data_format": "channels_first"},
])
@pytest.mark.parametrize("augment", [False, True])
def test_fit_and_standardize(options, augment):
    def fn(lib):
        generator = _image(lib).ImageDataGenerator(horizontal_flip=True, channel_shift_range=10.0, **options)
        images = IMAGES[:6, :4, :4]
        if options.get("data_format") == "channels_first":
            images = images.transpose(0, 3, 1, 2)
        generator.fit(images, augment=augment, rounds=2, seed=9)
        standardized = generator.standardize(images.copy())
        flowed = [batch for batch in generator.flow(images, batch_size=4, seed=1)[0]]
        return generator.mean, generator.std, generator.zca_whitening_matrix, standardized, flowed

    same(fn, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("options", [
    {"featurewise_center": True}, {"featurewise_std_normalization": True}, {"zca_whitening": True},
    {"samplewise_std_normalization": True},
])
def test_standardize_unfit_warns(options):
    def fn(lib):
        with pytest.warns(UserWarning) as record:
            generator = _image(lib).ImageDataGenerator(**options)
            result = generator.standardize(IMAGES[:2].copy())
        return result, sorted(str(w.message) for w in record)

    same(fn)


def test_fit_errors():
    same(lambda lib: _image(lib).ImageDataGenerator(featurewise_center=True).fit(IMAGES[0]))


@pytest.mark.parametrize("options", [
    {"validation_split": 1.5}, {"data_format": "channels_middle"}, {"zoom_range": (0.5, 1.0, 2.0)},
    {"zoom_range": "big"}, {"brightness_range": 0.5}, {"brightness_range": (0.5,)},
])
def test_constructor_errors(options):
    same(lambda lib: _image(lib).ImageDataGenerator(**options))


@pytest.mark.parametrize("options", [
    {"rotation_range": 30}, {"width_shift_range": 0.2, "height_shift_range": 0.3},
    {"width_shift_range": 2, "height_shift_range": [1, 3, -2]}, {"width_shift_range": [0.1, 0.5]},
    {"height_shift_range": 2.0}, {"shear_range": 15.0}, {"zoom_range": 0.3}, {"zoom_range": [0.8, 1.4]},
    {"horizontal_flip": True, "vertical_flip": True, "channel_shift_range": 0.5, "brightness_range": (0.1, 2.0)},
    {"rotation_range": 5, "width_shift_range": 0.1, "shear_range": 3, "zoom_range": 0.1,
     "data_format": "channels_first"},
])
def test_get_random_transform(options):
    def fn(lib):
        generator = _image(lib).ImageDataGenerator(**options)
        seeded = [generator.get_random_transform((7, 9, 3), seed=seed) for seed in (0, 1, 2)]
        np.random.seed(4)
        drawn = [generator.get_random_transform((7, 9, 3)) for _ in range(3)]
        return seeded, drawn, generator.random_transform(IMAGES[0], seed=5)  # resampling: ImportError w/o scipy

    same(fn)


@pytest.mark.parametrize("parameters", [
    {}, {"flip_horizontal": True}, {"flip_vertical": 1, "channel_shift_intensity": -40.0},
    {"brightness": 0.5}, {"brightness": 1.5, "flip_horizontal": True}, {"theta": 0, "zx": 1, "zy": 1, "tx": 0},
    {"theta": 10}, {"zx": 0.5, "zy": 2.0},
])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_apply_transform(parameters, data_format):
    def fn(lib):
        generator = _image(lib).ImageDataGenerator(data_format=data_format)
        image = IMAGES[1] if data_format == "channels_last" else IMAGES[1].transpose(2, 0, 1)
        return generator.apply_transform(image.copy(), parameters)

    same(fn)


@pytest.mark.parametrize("call", [
    lambda m: m.apply_affine_transform(IMAGES[0]),
    lambda m: m.apply_affine_transform(IMAGES[0], theta=20, channel_axis=2, row_axis=0, col_axis=1),
    lambda m: m.apply_affine_transform(IMAGES[0], tx=1.0, order=0, fill_mode="constant"),
    lambda m: m.apply_affine_transform(IMAGES[0], row_axis=0, col_axis=0),
    lambda m: m.apply_affine_transform(IMAGES[0], row_axis=0, col_axis=1, channel_axis=3),
    lambda m: m.apply_affine_transform(IMAGES[0], row_axis=0, col_axis=2, channel_axis=1),
    lambda m: m.apply_affine_transform(IMAGES, theta=3),
    lambda m: m.random_rotation(IMAGES[0], 30),
    lambda m: m.random_shift(IMAGES[0], 0.1, 0.2),
    lambda m: m.random_shear(IMAGES[0], 10),
    lambda m: m.random_zoom(IMAGES[0], (0.9, 1.1)),
    lambda m: m.random_zoom(IMAGES[0], (1, 1), row_axis=0, col_axis=1, channel_axis=2),
    lambda m: m.random_zoom(IMAGES[0], (1, 2, 3)),
    lambda m: m.apply_channel_shift(IMAGES[0], 25.0, channel_axis=2),
    lambda m: m.apply_channel_shift(IMAGES[0], -300.0),
    lambda m: [m.random_channel_shift(IMAGES[0], 50.0, channel_axis=2) for _ in range(3)],
    lambda m: m.apply_brightness_shift(IMAGES[0], 0.7),
    lambda m: m.apply_brightness_shift(IMAGES[0] / 255, 1.3, scale=False),
    lambda m: m.apply_brightness_shift(IMAGES[0] * 2 - 100, 1.3, scale=False),
    lambda m: m.apply_brightness_shift(IMAGES[0] * 2 - 100, 0.3),
    lambda m: [m.random_brightness(IMAGES[0], (0.5, 1.5)) for _ in range(3)],
    lambda m: m.random_brightness(IMAGES[0], (0.5,)),
])
def test_transform_functions(call):
    def fn(lib):
        np.random.seed(2)
        result = call(_image(lib))
        return result, np.random.random()  # the generator's state after the draws

    same(fn)


@pytest.mark.parametrize("call", [
    lambda m, tf: m.smart_resize(IMAGES[0], (4, 4)),
    lambda m, tf: m.smart_resize(IMAGES[0], (3, 9), interpolation="nearest"),
    lambda m, tf: m.smart_resize(IMAGES[:3], (8, 2), interpolation="bicubic"),
    lambda m, tf: m.smart_resize(tf.constant(IMAGES[:2]), (5, 5)),
    lambda m, tf: m.smart_resize(IMAGES[:2].transpose(0, 3, 1, 2), (2, 7), data_format="channels_first"),
    lambda m, tf: m.smart_resize(IMAGES[0].astype("uint8"), (3, 3)),
    lambda m, tf: m.smart_resize(IMAGES[0, 0], (3, 3)),
    lambda m, tf: m.smart_resize(IMAGES[0], (3, 3, 3)),
    lambda m, tf: m.smart_resize(IMAGES[0], (3, 3), antialias=True),
    lambda m, tf: m.smart_resize(IMAGES[0], (3, 3), interpolation="spline"),
])
def test_smart_resize(call):
    same(lambda lib: call(_image(lib), lib.tf), rtol=1e-5, atol=1e-3)


SERIES = np.arange(50, dtype="float32").reshape(25, 2)
TARGETS = np.arange(25) * 10


@pytest.mark.parametrize("settings", [
    {"length": 3}, {"length": 5, "batch_size": 4}, {"length": 6, "sampling_rate": 2, "stride": 3, "batch_size": 3},
    {"length": 4, "reverse": True, "batch_size": 5}, {"length": 2, "start_index": 5, "end_index": 17,
                                                     "batch_size": 4, "stride": 2},
    {"length": 4, "shuffle": True, "batch_size": 6}, {"length": 3, "shuffle": True, "reverse": True,
                                                      "sampling_rate": 3, "end_index": 20},
    {"length": 24, "batch_size": 2}, {"length": 25}, {"length": 3, "start_index": 10, "end_index": 12},
])
@pytest.mark.parametrize("as_lists", [False, True])
def test_timeseries_generator(settings, as_lists):
    def fn(lib):
        np.random.seed(8)
        data, targets = (SERIES.tolist(), TARGETS.tolist()) if as_lists else (SERIES, TARGETS)
        generator = lib.tf.keras.preprocessing.sequence.TimeseriesGenerator(data, targets, **settings)
        return len(generator), [generator[i] for i in range(len(generator))], generator.start_index

    same(fn)


def test_timeseries_generator_errors():
    same(lambda lib: lib.tf.keras.preprocessing.sequence.TimeseriesGenerator(SERIES, TARGETS[:3], length=2))
