"""Fixes found by a differential probe of everyday Keras 3 calls against real Keras 3.15.1: ``keras.ops.pad``'s
pad widths (an int, one flat pair, 1-entry pairs) and its and ``keras.ops.diff``'s errors reported with the call's
arguments as Keras' ``Pad``/``Diff`` operations do; Keras' "out of bounds" axis message; ``Lambda`` configs holding
the function's bytecode as MIME base64 text; ``keras.ops.image.affine_transform``/``perspective_transform`` of
images that are not float32 (interpolated in float32, returned in the images' dtype, as TF's kernel does);
``timeseries_dataset_from_array`` prefetching before batching."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, same

IMAGE = np.arange(16.0).reshape(4, 4, 1)
TRANSFORM = np.array([1, 0.3, 0.5, 0.2, 1, 0.7, 0, 0], "float32")


@pytest.mark.parametrize("x, pad_width, mode", [
    (np.arange(3), 1, "constant"),
    (np.arange(3), [1, 2], "constant"),
    (np.arange(3), (2, 0), "reflect"),
    (np.arange(3), (2, 1), "symmetric"),
    (np.arange(6).reshape(2, 3), [[1], [2]], "constant"),
    (np.arange(6).reshape(2, 3), [[1, 1], [2, 0]], "reflect"),
])
def test_pad_widths(x, pad_width, mode):
    same(lambda lib: lib.keras.ops.pad(x, pad_width, mode=mode))


def test_pad_single_pair_pads_every_axis_of_a_keras_tensor():
    same(lambda lib: tuple(lib.keras.ops.pad(lib.keras.Input((3, 2)), 1).shape))


@pytest.mark.parametrize("x, pad_width, kwargs", [
    (np.arange(6).reshape(2, 3), [[1, 1], [2, 0], [1, 1]], {}),  # more pairs than axes
    (np.arange(6).reshape(2, 3), [[1, 1], [2]], {}),  # pairs of different lengths
    (np.arange(6).reshape(2, 3), [[1, 1], [2, 0]], {"mode": "edge"}),
    (np.arange(6).reshape(2, 3), [[1, 1], [2, 0]], {"mode": "reflect", "constant_values": 1}),
    ([[1, 2]], [[1, 1], [2, 0]], {"mode": "reflect", "constant_values": 2}),  # Keras reads a list's .shape
])
def test_pad_errors(x, pad_width, kwargs):
    same(lambda lib: lib.keras.ops.pad(x, pad_width, **kwargs))


@pytest.mark.parametrize("a, kwargs", [
    (np.array([1, 3, 6]), {"n": -1}),
    (np.array(3), {}),
    ([1, 3, 6], {"axis": 3}),
])
def test_diff_errors(a, kwargs):
    same(lambda lib: lib.keras.ops.diff(a, **kwargs))


def test_diff_values():
    same(lambda lib: lib.keras.ops.diff(np.array([[1, 3, 6], [2, 2, 7]]), n=2, axis=-1))


@pytest.mark.parametrize("call", [
    lambda ops: ops.moveaxis(np.ones((2, 3)), 5, 0),
    lambda ops: ops.expand_dims(np.ones((2, 3)), (0, 7)),
    lambda ops: ops.flip(np.ones((2, 3)), 4),
    lambda ops: ops.swapaxes(np.ones((2, 3)), 0, 4),
    lambda ops: ops.median(np.ones((2, 3)), axis=4),
])
def test_axis_out_of_bounds_message(call):
    same(lambda lib: call(lib.keras.ops))


def test_lambda_config_code_is_mime_base64():
    def config(lib):
        return lib.keras.layers.Lambda(lambda x: x * 3).get_config()["function"]["config"]["code"]

    code = same(config)
    assert code.endswith("\n")


def test_lambda_config_round_trip():
    def round_trip(lib):
        layer = lib.keras.layers.Lambda(lambda x, scale=2.0: x * scale + 1)
        return lib.keras.layers.Lambda.from_config(layer.get_config())(np.arange(3.0))

    same(round_trip)


@pytest.mark.parametrize("image", [IMAGE, np.arange(16, dtype="uint8").reshape(4, 4, 1),
                                   np.arange(16, dtype="int32").reshape(4, 4, 1) - 5,
                                   (np.arange(16) / 7).astype("float16").reshape(4, 4, 1)])
@pytest.mark.parametrize("fill_mode", ["constant", "reflect"])
def test_affine_transform_of_images_not_float32(image, fill_mode):
    # a negative value cast to uint8 is undefined in TF's C++ kernel: unsigned images get a positive fill
    fill_value = 7 if image.dtype == np.uint8 else -3
    same(lambda lib: lib.keras.ops.image.affine_transform(image, TRANSFORM, fill_mode=fill_mode,
                                                          fill_value=fill_value))


def test_affine_transform_nearest_float64_transform():
    same(lambda lib: lib.keras.ops.image.affine_transform(IMAGE / 7, TRANSFORM.astype("float64"),
                                                          interpolation="nearest"))


def test_perspective_transform_of_float64_images():
    start = np.array([[0, 0], [3, 0], [3, 3], [0, 3]], "float32")
    end = np.array([[0, 0], [2, 0], [3, 3], [0, 3]], "float32")
    same(lambda lib: lib.keras.ops.image.perspective_transform(IMAGE, start, end))


def test_timeseries_unbatched_is_prefetched():
    def unbatched(lib):
        dataset = lib.keras.utils.timeseries_dataset_from_array(np.arange(10), None, sequence_length=3,
                                                                 batch_size=None)
        return type(dataset).__name__, [element.numpy() for element in dataset]

    real, ours = unbatched(REAL), unbatched(VFW)
    assert real[0] == ours[0]
    np.testing.assert_array_equal(np.stack(ours[1]), np.stack(real[1]))


# TF converts numpy and Python values to an op's default/fixed dtype (complex64 for the transforms, float32 for
# rfft and in_top_k's predictions); tensors keep theirs. keras.ops.rfft/in_top_k pass their arguments unconverted.
@pytest.mark.parametrize("call", [
    lambda tf: tf.signal.rfft(np.array([1, 2, 3, 4])),
    lambda tf: tf.signal.rfft(np.array([1.0, 2.0, 3.0, 4.0])),
    lambda tf: tf.signal.rfft(tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)),
    lambda tf: tf.signal.rfft2d(np.ones((2, 2))),
    lambda tf: tf.signal.fft([1.0, 2.0]),
    lambda tf: tf.signal.fft(np.array([1.0, 2.0], "complex128")),
    lambda tf: tf.signal.fft(tf.constant([1.0, 2.0], tf.complex128)),
    lambda tf: tf.signal.irfft(np.array([1.0, 2.0, 3.0], "complex128")),
    lambda tf: tf.signal.ifft2d(np.ones((2, 2), "complex128")),
    lambda tf: tf.math.in_top_k([1, 0], np.array([[1, 2], [3, 0]]), 1),
    lambda tf: tf.math.in_top_k(np.array([1, 0]), np.array([[0.1, 0.9], [0.8, 0.2]]), 1),
    lambda tf: tf.math.in_top_k(np.array([1, 0]), tf.constant([[0.1, 0.9], [0.8, 0.2]], tf.float64), 1),
    lambda tf: tf.keras.ops.in_top_k(np.array([1, 0]), np.array([[0.1, 0.9], [0.8, 0.2]]), 1),
    lambda tf: tf.keras.ops.rfft(np.array([1.0, 2.0, 3.0, 4.0])),
    lambda tf: tf.keras.ops.rfft(np.array([1.0, 2.0, 3.0, 4.0], "float32"), fft_length=6),
])
def test_numpy_inputs_take_the_op_dtype(call):
    same(lambda lib: call(lib.tf))


@pytest.mark.parametrize("x, key", [(np.arange(5), 2), (np.arange(6).reshape(2, 3), (1, slice(0, 2))), ([1, 2, 3], 1)])
def test_get_item_indexes_its_argument_as_it_is(x, key):
    real, ours = REAL.keras.ops.get_item(x, key), VFW.keras.ops.get_item(x, key)
    assert type(ours) is type(real)
    np.testing.assert_array_equal(ours, real)


# Keras variables' operators are keras.ops functions of the value (Keras' dtype promotion), not tf operators.
@pytest.mark.parametrize("call", [
    lambda keras: keras.Variable([1.0, 2.0]) * np.array([2.0, 3.0]),
    lambda keras: keras.Variable([1.0, 2.0]) + np.array([2.0, 3.0]),
    lambda keras: [2.0, 3.0] - keras.Variable([1.0, 2.0]),
    lambda keras: keras.Variable([1, 2]) / 2,
    lambda keras: keras.Variable([1, 2]) + 1.5,
    lambda keras: 3 // keras.Variable([1, 2]),
    lambda keras: keras.Variable([1, 2]) * np.array([1.0, 2.0], "float32"),
    lambda keras: keras.Variable([1.0, 2.0]) @ np.array([1.0, 2.0]),
    lambda keras: keras.Variable([1.0, 2.0], dtype="float16") + np.array([2.0, 3.0], "float32"),
    lambda keras: keras.Variable([1.0, 2.0]) + keras.Variable([1, 3]),
    lambda keras: keras.Variable([1, 2]) & np.array([1, 0]),
    lambda keras: keras.Variable([1.0, 2.0]) != keras.Variable([1.0, 3.0]),
    lambda keras: keras.Variable([1.0, 2.0]) % 2,
    lambda keras: 2 ** keras.Variable([1.0, 2.0]),
    lambda keras: round(keras.Variable([1.26, 2.5])),
    lambda keras: round(keras.Variable(1.26), 1),
])
def test_variable_operators(call):
    same(lambda lib: call(lib.keras))


def test_variable_times_float64_tensor():
    same(lambda lib: lib.keras.Variable([1.0, 2.0]) * lib.tf.constant([2.0, 3.0], lib.tf.float64))


@pytest.mark.parametrize("args, kwargs", [((np.int8(5),), {}), ((5,), {"dtype": "int8"}),
                                          ((1, 10, 3), {"dtype": "uint16"}), ((np.uint32(3),), {})])
def test_arange_of_dtypes_without_a_range_kernel(args, kwargs):
    same(lambda lib: lib.keras.ops.arange(*args, **kwargs))


@pytest.mark.parametrize("images, size, kwargs", [
    (IMAGE, (2,), {}),
    (IMAGE, (0, 2), {}),
    (IMAGE[..., 0], (2, 2), {"interpolation": "bad"}),  # the rank is checked before the interpolation
    (IMAGE, (2, 2), {"interpolation": "bad", "crop_to_aspect_ratio": True, "pad_to_aspect_ratio": True}),
    (IMAGE, (2, 2), {"interpolation": "bad", "fill_mode": "reflect"}),
])
def test_resize_argument_checks_in_keras_order(images, size, kwargs):
    same(lambda lib: lib.keras.ops.image.resize(images, size, **kwargs))


@pytest.mark.parametrize("make", [
    lambda keras: keras.layers.StringLookup(vocabulary=["b", "a", "b", "a", "c"]),
    lambda keras: keras.layers.IntegerLookup(vocabulary=[3, 1, 3]),
    lambda keras: keras.layers.TextVectorization(vocabulary=["x", "y", "x"]),
])
def test_repeated_vocabulary_terms_message(make):
    same(lambda lib: make(lib.keras))


@pytest.mark.parametrize("name", ["mse", "MAE", "kld", "msle"])
def test_deserializing_tf_keras_loss_aliases_fails_as_in_keras(name):
    # Keras 3 exports no `mse` alias itself (tf.keras adds it): deserializing the bare name fails. Keras names
    # the loss's keras.metrics export in the message, vfw its keras.losses one (both public names of it).
    errors = []
    for lib in (REAL, VFW):
        with pytest.raises(ValueError) as info:
            lib.keras.losses.deserialize(name)
        errors.append(str(info.value))
    for message in errors:
        assert message.startswith("Could not deserialize 'keras.")
        assert message.endswith(f".{name}' because it is not a KerasSaveable subclass")
    assert VFW.keras.losses.get(name) is VFW.keras.losses.get(REAL.keras.losses.get(name).__name__)


CTC_LOGITS = np.log(np.array([[[0.1, 0.6, 0.3], [0.1, 0.6, 0.3], [0.8, 0.1, 0.1], [0.2, 0.2, 0.6]]], "float32"))


@pytest.mark.parametrize("inputs, lengths, kwargs", [
    (CTC_LOGITS, np.array([4]), {"beam_width": 3, "top_paths": 2}),
    (CTC_LOGITS, np.array([4]), {}),
    (CTC_LOGITS, np.array([4]), {"mask_index": None, "top_paths": 3}),
    (CTC_LOGITS, np.array([4]), {"mask_index": 1, "top_paths": 2}),
    (np.random.default_rng(0).normal(size=(3, 6, 5)), np.array([6, 3, 2]), {"beam_width": 4, "top_paths": 3}),
    (np.random.default_rng(1).normal(size=(2, 6, 5)).astype("float16"), np.array([6, 4]),
     {"beam_width": 5, "top_paths": 2, "mask_index": 2}),
])
def test_ctc_decode_beam_search(inputs, lengths, kwargs):
    same(lambda lib: lib.keras.ops.ctc_decode(inputs, lengths, strategy="beam_search", **kwargs))


def test_ctc_decode_beam_search_output_spec():
    def specs(lib):
        keras = lib.keras
        decoded, scores = keras.ops.ctc_decode(keras.Input((6, 5), dtype="float16"), keras.Input((), dtype="int32"),
                                               strategy="beam_search", top_paths=3)
        return [(tuple(t.shape), t.dtype) for t in (decoded, scores)]

    same(specs)


def test_gelu_of_integers_message():
    same(lambda lib: lib.keras.ops.gelu(np.array([1, 2])))


def test_ops_shape_gives_dynamic_sizes_for_unknown_dims():
    # in a graph (tf.function with a None dim), Keras' ops.shape holds tf.shape(x)[i] for the unknown dims
    def fn(lib):
        tf = lib.tf
        traced = tf.function(lambda x: [lib.keras.ops.shape(x)[0] * 10, lib.keras.ops.shape(x)[1]],
                             input_signature=[tf.TensorSpec((None, 3))])
        first, second = traced(tf.ones((2, 3)))
        return int(first), type(second).__name__, int(second)
    same(fn)
