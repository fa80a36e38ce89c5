"""keras.backend and keras.config against real Keras 3.15.1: settings, dtype names and promotion,
session state."""

import itertools

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same

NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "bfloat16", "float16",
         "float32", "float64", "complex64", "complex128"]
WEAK = [int, float, bool, None]


def test_result_type_of_every_pair():
    def fn(lib):
        out = {}
        for a, b in itertools.product(NAMES + WEAK, repeat=2):
            try:
                out[f"{a}|{b}"] = lib.keras.backend.result_type(a, b)
            except ValueError as e:
                out[f"{a}|{b}"] = ("raised", str(e))
        return out

    same(fn)


@pytest.mark.parametrize("dtypes", [(), ("int8",), (int,), (float,), ("int8", "int16", "float16"), (int, float),
                                    (bool, int), ("uint8", int), ("float8_e4m3fn", "float32"), ("string",),
                                    ("int32", "float8_e5m2")])
def test_result_type_others(dtypes):
    same(lambda lib: lib.keras.backend.result_type(*dtypes))


def test_result_type_follows_floatx():
    def fn(lib):
        lib.keras.config.set_floatx("float16")
        try:
            return [lib.keras.backend.result_type(*d) for d in [(int,), (float,), (int, float), ("int8", float), ()]]
        finally:
            lib.keras.config.set_floatx("float32")

    same(fn)


@pytest.mark.parametrize("dtype", ["float32", "int", float, int, bool, str, complex, None, np.float16, np.int8,
                                   np.dtype("uint16"), "bfloat16", "float", "foo", "float8_e4m3fn", 3])
def test_standardize_dtype(dtype):
    def fn(lib):
        b = lib.keras.backend
        name = b.standardize_dtype(dtype)
        return name, b.is_float_dtype(name), b.is_int_dtype(name)

    same(fn)


def test_standardize_tf_dtypes():
    same(lambda lib: [lib.keras.backend.standardize_dtype(d) for d in (lib.tf.int8, lib.tf.float64, lib.tf.bool,
                                                                       lib.tf.bfloat16)])


def test_settings():
    def fn(lib):
        b, c = lib.keras.backend, lib.keras.config
        out = [b.floatx(), b.epsilon(), b.image_data_format(), b.backend(), c.backend(), c.max_epochs(),
               c.max_steps_per_epoch(), c.is_interactive_logging_enabled(), c.is_traceback_filtering_enabled(),
               c.is_flash_attention_enabled(), c.is_nnx_enabled()]
        try:
            b.set_floatx("float64")
            b.set_epsilon(1e-5)
            b.set_image_data_format("Channels_First")
            c.set_max_epochs(3)
            c.set_max_steps_per_epoch(4)
            c.disable_flash_attention()
            c.disable_traceback_filtering()
            out += [c.floatx(), c.epsilon(), c.image_data_format(), c.max_epochs(), c.max_steps_per_epoch(),
                    c.is_flash_attention_enabled(), c.is_traceback_filtering_enabled()]
            c.enable_flash_attention()
            c.enable_traceback_filtering()
            out += [c.is_flash_attention_enabled(), c.is_traceback_filtering_enabled()]
        finally:
            b.set_floatx("float32")
            b.set_epsilon(1e-7)
            b.set_image_data_format("channels_last")
            c.set_max_epochs(None)
            c.set_max_steps_per_epoch(None)
        return out

    same(fn)


@pytest.mark.parametrize("call", [
    lambda k: k.backend.set_floatx("float8"), lambda k: k.backend.set_floatx("int32"),
    lambda k: k.backend.set_image_data_format("nhwc"),
])
def test_setting_errors(call):
    same(lambda lib: call(lib.keras))


def test_clear_session_resets_names_logging_and_global_generator():
    def fn(lib):
        keras = lib.keras
        keras.config.disable_interactive_logging()
        keras.utils.set_random_seed(3)
        first = keras.random.uniform((2,))
        names = [keras.random.SeedGenerator().name, keras.backend.get_uid("dense"), keras.backend.get_uid("dense")]
        keras.backend.clear_session(free_memory=False)
        after = [keras.config.is_interactive_logging_enabled(), keras.random.SeedGenerator(1).name,
                 keras.backend.get_uid("dense"), keras.backend.get_uid()]
        keras.utils.set_random_seed(3)
        return first, names, after, keras.random.uniform((2,))

    same(fn, rtol=0, atol=0)


def test_get_uid_counts_layer_names():
    def fn(lib):
        lib.keras.layers.Dense(2)
        lib.keras.layers.Dense(2)
        return lib.keras.backend.get_uid("dense"), lib.keras.layers.Dense(1).name

    same(fn)


def test_is_keras_tensor():
    same(lambda lib: [lib.keras.backend.is_keras_tensor(lib.keras.Input((2,))),
                      lib.keras.backend.is_keras_tensor(np.ones(2)), lib.keras.utils.is_keras_tensor(3)])


def test_unsafe_deserialization_switch():
    def fn(lib):
        lambda_config = {"class_name": "__lambda__", "config": {"value": None}}
        try:
            lib.keras.saving.deserialize_keras_object(lambda_config)
        except ValueError as e:
            refused = str(e)
        lib.keras.config.enable_unsafe_deserialization()
        return refused

    same(fn)


def test_set_backend_only_tensorflow():
    from vfw.tensorflow import keras

    keras.config.set_backend("tensorflow")
    with pytest.raises(ValueError, match="jax"):
        keras.config.set_backend("jax")


def test_public_names():
    import keras
    from vfw.tensorflow import keras as ours
    assert {n for n in dir(keras.backend) if not n.startswith("_")} <= set(dir(ours.backend))
    assert {n for n in dir(keras.config) if not n.startswith("_")} <= set(dir(ours.config))
