"""keras.utils against real Keras 3.15.1: seeding, array helpers, the progress bar's console output,
PyDataset, data packing, serialization and the custom-object registry."""

import io
import random
import sys

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same


def test_set_random_seed_seeds_python_numpy_and_tf():
    def fn(lib):
        lib.keras.utils.set_random_seed(321)
        return random.random(), np.random.rand(3), lib.tf.random.uniform((3,)), lib.tf.random.normal((2,), seed=4)

    same(fn, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("args", [([0, 2, 1],), ([0, 2, 1], 5), ([[1], [0]],), (np.array([[0, 1], [2, 0]]), 3),
                                  ([3],)])
def test_to_categorical(args):
    same(lambda lib: lib.keras.utils.to_categorical(*args))


def test_to_categorical_of_tensors():
    same(lambda lib: [lib.keras.utils.to_categorical(lib.tf.constant([0, 2]), 3),
                      lib.keras.utils.to_categorical(lib.tf.constant([[1], [0]]), 2)])


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"order": 1}, {"axis": 1, "order": 3}])
def test_normalize(kwargs):
    x = data(3, 4)
    x[1] = 0
    same(lambda lib: [lib.keras.utils.normalize(x, **kwargs), lib.keras.utils.normalize(lib.tf.constant(x), **kwargs)])


SEQUENCES = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10]]


@pytest.mark.parametrize("kwargs", [{}, {"maxlen": 3}, {"padding": "post"}, {"truncating": "post", "maxlen": 2},
                                    {"dtype": "float32", "value": -1.5}, {"padding": "middle"},
                                    {"truncating": "middle", "maxlen": 2}, {"value": "x"},
                                    {"dtype": object, "value": "x"}])
def test_pad_sequences(kwargs):
    same(lambda lib: lib.keras.utils.pad_sequences(SEQUENCES, **kwargs))


def test_pad_sequences_of_vectors_and_errors():
    same(lambda lib: [lib.keras.utils.pad_sequences([np.ones((2, 3)), np.ones((1, 3))], maxlen=3)])
    same(lambda lib: lib.keras.utils.pad_sequences([[1], 5]))
    same(lambda lib: lib.keras.utils.pad_sequences([np.ones((2, 3)), np.ones((1, 2))]))


def _progbar_output(lib, monkeypatch, steps):
    """What a Progbar prints for ``steps`` (``(current, values, finalize)``), time frozen to a fake clock."""
    import keras.src.utils.progbar as real_module

    import vfw.frontends.tensorflow.keras.src.utils.progbar as our_module
    module = real_module if lib.name == "real" else our_module
    clock = iter(np.arange(100.0, 1000.0, 0.75))
    monkeypatch.setattr(module.time, "time", lambda: next(clock))
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stdout", captured)
    try:
        for verbose, target, kwargs in steps:
            bar = lib.keras.utils.Progbar(target, verbose=verbose, **kwargs)
            for current, values, finalize in [(1, [("loss", 0.5), ("acc", 0.25)], None),
                                              (2, [("loss", 0.4), ("acc", 0.5)], None),
                                              (3, [("loss", 1e-5), ("acc", 0.75)], None)]:
                bar.update(current, values, finalize=finalize)
            bar.add(1, [("loss", 0.3), ("acc", -0.0001)])
    finally:
        monkeypatch.undo()
    return captured.getvalue()


@pytest.mark.parametrize("verbose,target,kwargs", [
    (1, 4, {}), (1, 40, {"width": 10}), (2, 4, {}), (1, None, {}), (1, 4, {"stateful_metrics": ["acc"]}),
    (1, 4, {"stateless_metrics": ["loss"], "unit_name": "sample"}), (0, 4, {}), (1, 4, {"interval": 10.0}),
    (2, 1000, {}),
])
def test_progbar_output(monkeypatch, verbose, target, kwargs):
    from compat_tests.keras.building_blocks_harness import REAL, VFW

    real = _progbar_output(REAL, monkeypatch, [(verbose, target, kwargs)])
    ours = _progbar_output(VFW, monkeypatch, [(verbose, target, kwargs)])
    assert ours == real


def test_progbar_argument_error():
    same(lambda lib: lib.keras.utils.Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"]))


def test_interactive_logging_off_sends_progbar_to_logging(capsys, caplog):
    from vfw.tensorflow import keras

    keras.config.disable_interactive_logging()
    try:
        with caplog.at_level("INFO"):
            keras.utils.Progbar(1).update(1, [("loss", 1.0)])
    finally:
        keras.config.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    assert "loss: 1.0000" in caplog.text


def test_py_dataset():
    def fn(lib):
        class Batches(lib.keras.utils.PyDataset):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)

            def __len__(self):
                return 3

            def __getitem__(self, index):
                return np.full((2,), index), np.full((2,), -index)

        class Unsized(lib.keras.utils.Sequence):
            def __getitem__(self, index):
                return index

        batches = Batches(workers=2, max_queue_size=4)
        unsized = Unsized()
        first = [next(iter(unsized))]
        return (list(batches), batches.num_batches, batches.workers, batches.use_multiprocessing,
                batches.max_queue_size, first, lib.keras.utils.Sequence is lib.keras.utils.PyDataset)

    same(fn)


def test_py_dataset_without_super_init_warns():
    from vfw.tensorflow import keras

    class Forgetful(keras.utils.PyDataset):
        def __init__(self):
            pass

    with pytest.warns(UserWarning, match="super"):
        assert Forgetful().workers == 1


@pytest.mark.parametrize("value", [1, (1,), (1, 2), [1, 2, 3], (1, 2, 3, 4), "x"])
def test_pack_and_unpack(value):
    def fn(lib):
        u = lib.keras.utils
        return u.unpack_x_y_sample_weight(value), u.pack_x_y_sample_weight(value), u.pack_x_y_sample_weight(1, 2), \
            u.pack_x_y_sample_weight(1, 2, 3), u.pack_x_y_sample_weight([1, 2])

    same(fn)


@pytest.mark.parametrize("value", [
    None, 3, 2.5, "s", True, [1, (2, 3)], (1, [2]), {"a": (1, 2)}, np.float32(1.5), np.int64(3),
    np.arange(3.0), np.array([[1, 2]], "int8"), b"bytes", slice(1, None, 2), Ellipsis,
])
def test_serialize_plain_values(value):
    def fn(lib):
        s = lib.keras.saving
        config = s.serialize_keras_object(value)
        return config, s.deserialize_keras_object(config)

    same(fn)


def test_serialize_tensors_shapes_and_dtypes():
    def fn(lib):
        s = lib.keras.saving
        config = s.serialize_keras_object(lib.tf.constant([[1.0, 2.0]]))
        return (config, s.deserialize_keras_object(config), s.serialize_keras_object(lib.tf.TensorShape([None, 3])),
                s.serialize_keras_object(lib.tf.float16))

    same(fn)


def test_lambdas_need_unsafe_mode():
    from vfw.tensorflow import keras

    with pytest.warns(UserWarning, match="lambda"):
        config = keras.saving.serialize_keras_object(lambda x: x * 3)
    assert config["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.saving.deserialize_keras_object(config)
    assert keras.saving.deserialize_keras_object(config, safe_mode=False)(2) == 6


def test_custom_objects_registry_and_scopes():
    def fn(lib):
        s = lib.keras.saving

        class Thing:
            def __init__(self, size=1):
                self.size = size

            def get_config(self):
                return {"size": self.size}

            @classmethod
            def from_config(cls, config):
                return cls(**config)

        registered = s.register_keras_serializable(package="Tests", name="Thing")(Thing)
        config = s.serialize_keras_object(Thing(4))
        rebuilt = s.deserialize_keras_object(config)
        with lib.keras.utils.custom_object_scope({"Other": Thing}) as scope:
            in_scope = s.get_registered_object("Other")
        del s.get_custom_objects()["Tests>Thing"]
        return (registered is Thing, config, rebuilt.size, s.get_registered_name(Thing), in_scope is Thing,
                s.get_registered_object("Other"), isinstance(scope, lib.keras.utils.CustomObjectScope),
                s.get_registered_object("Tests>Thing"))

    same(fn)


def test_register_class_without_get_config():
    same(lambda lib: lib.keras.saving.register_keras_serializable()(type("Bare", (), {})))


@pytest.mark.parametrize("config", [
    {"class_name": "Nope", "config": {}, "module": "keras.layers", "registered_name": None},
    {"class_name": "Nope", "config": {}, "module": "my.module", "registered_name": "Nope"},
    {"class_name": "function", "config": "clear_session", "module": "keras.backend",
     "registered_name": "clear_session"},
    {"class_name": "L2", "config": 3, "module": "keras.regularizers", "registered_name": None},
    {"class_name": "function", "config": 5, "module": "keras.activations", "registered_name": None},
    7j,
])
def test_deserialize_errors(config):
    same(lambda lib: lib.keras.saving.deserialize_keras_object(config))


def test_deserialize_public_objects():
    def fn(lib):
        d = lib.keras.saving.deserialize_keras_object
        return [type(d({"class_name": "L2", "config": {"l2": 0.5}, "module": "keras.regularizers",
                        "registered_name": None})).__name__,
                d({"class_name": "function", "config": "relu", "module": "keras.activations",
                   "registered_name": "relu"}).__name__,
                d({"class_name": "function", "config": "tanh", "module": "builtins",
                   "registered_name": "tanh"}).__name__,
                d({"a": {"class_name": "__tuple__", "config": {"value": [1]}}}),
                type(d({"class_name": "SeedGenerator", "config": {"seed": 3, "name": "g"}, "module": "keras.random",
                        "registered_name": None})).__name__]

    same(fn)


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    expected = {"Progbar", "PyDataset", "Sequence", "set_random_seed", "to_categorical", "normalize", "pad_sequences",
                "custom_object_scope", "CustomObjectScope", "get_custom_objects", "register_keras_serializable",
                "serialize_keras_object", "deserialize_keras_object", "get_registered_name", "get_registered_object",
                "pack_x_y_sample_weight", "unpack_x_y_sample_weight", "get_file", "clear_session", "is_keras_tensor",
                "standardize_dtype", "enable_interactive_logging", "disable_interactive_logging",
                "is_interactive_logging_enabled"}
    assert expected <= set(dir(keras.utils)) and expected <= set(dir(ours.utils))


SERIES = np.arange(40, dtype="float32").reshape(20, 2)


@pytest.mark.parametrize("kwargs", [
    {"targets": None, "sequence_length": 4}, {"targets": np.arange(20), "sequence_length": 3, "batch_size": 5},
    {"targets": None, "sequence_length": 3, "sequence_stride": 2, "sampling_rate": 2, "batch_size": 4},
    {"targets": np.arange(20) * 10, "sequence_length": 2, "start_index": 3, "end_index": 15, "batch_size": None},
    {"targets": np.arange(20), "sequence_length": 3, "shuffle": True, "seed": 7, "batch_size": 4},
    {"targets": None, "sequence_length": 3, "shuffle": True, "seed": 3, "batch_size": None},
    {"targets": None, "sequence_length": 3, "start_index": -1}, {"targets": None, "sequence_length": 3,
                                                                  "sampling_rate": 0},
    {"targets": None, "sequence_length": 3, "end_index": 2, "start_index": 5},
    {"targets": None, "sequence_length": 3, "format": "numpy"},
])
def test_timeseries_dataset_from_array(kwargs):
    def fn(lib):
        dataset = lib.keras.utils.timeseries_dataset_from_array(SERIES, **kwargs)
        return [lib.tf.nest.map_structure(np.asarray, element) for element in dataset]

    same(fn)
