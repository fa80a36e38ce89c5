"""Reshaping layers (Flatten, Reshape, Permute, RepeatVector, ZeroPadding/Cropping/UpSampling 1D/2D/3D) against real
Keras 3.15.1: outputs, gradients, symbolic shapes (None batch and sizes), dtypes, configs and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_harness import config_round_trip, error_text, outputs_and_gradients, symbolic

CASES = {
    "flatten": ("Flatten", dict(), (2, 3, 4)),
    "flatten_first": ("Flatten", dict(data_format="channels_first"), (2, 3, 4, 2)),
    "flatten_rank1": ("Flatten", dict(), (3,)),
    "reshape": ("Reshape", dict(target_shape=(-1, 2)), (2, 3, 4)),
    "reshape_full": ("Reshape", dict(target_shape=[4, 3, 1]), (2, 3, 4)),
    "permute": ("Permute", dict(dims=(2, 1)), (2, 3, 4)),
    "permute_3": ("Permute", dict(dims=[3, 1, 2]), (2, 3, 4, 5)),
    "repeat_vector": ("RepeatVector", dict(n=3), (2, 4)),
    "zero_padding1d": ("ZeroPadding1D", dict(padding=(1, 2)), (2, 3, 2)),
    "zero_padding1d_first": ("ZeroPadding1D", dict(padding=2, data_format="channels_first"), (2, 2, 3)),
    "zero_padding2d": ("ZeroPadding2D", dict(padding=((1, 2), (0, 1))), (2, 3, 3, 2)),
    "zero_padding2d_first": ("ZeroPadding2D", dict(padding=(2, 1), data_format="channels_first"), (1, 2, 3, 3)),
    "zero_padding3d": ("ZeroPadding3D", dict(padding=1), (1, 2, 2, 3, 2)),
    "cropping1d": ("Cropping1D", dict(cropping=(1, 0)), (2, 5, 2)),
    "cropping2d": ("Cropping2D", dict(cropping=((1, 0), (1, 2))), (2, 5, 6, 2)),
    "cropping2d_first": ("Cropping2D", dict(cropping=1, data_format="channels_first"), (1, 2, 5, 4)),
    "cropping2d_default": ("Cropping2D", dict(), (1, 3, 3, 2)),
    "cropping3d": ("Cropping3D", dict(cropping=(1, (0, 1), 0)), (1, 4, 4, 3, 2)),
    "cropping3d_first": ("Cropping3D", dict(data_format="channels_first"), (1, 2, 4, 4, 3)),
    "upsampling1d": ("UpSampling1D", dict(size=3), (2, 3, 2)),
    "upsampling2d": ("UpSampling2D", dict(size=(2, 3)), (2, 3, 4, 2)),
    "upsampling2d_first": ("UpSampling2D", dict(data_format="channels_first"), (1, 2, 3, 3)),
    "upsampling2d_bilinear": ("UpSampling2D", dict(size=(2, 3), interpolation="bilinear"), (2, 3, 4, 2)),
    "upsampling2d_bilinear_first": ("UpSampling2D", dict(size=3, interpolation="Bilinear",
                                                         data_format="channels_first"), (1, 2, 4, 3)),
    "upsampling2d_bicubic": ("UpSampling2D", dict(interpolation="bicubic"), (2, 4, 5, 2)),
    "upsampling2d_lanczos3": ("UpSampling2D", dict(size=(3, 2), interpolation="lanczos3"), (1, 5, 4, 2)),
    "upsampling2d_lanczos5": ("UpSampling2D", dict(interpolation="lanczos5"), (1, 6, 4, 1)),
    "upsampling3d": ("UpSampling3D", dict(size=(1, 2, 3)), (1, 2, 2, 2, 2)),
    "upsampling3d_first": ("UpSampling3D", dict(data_format="channels_first"), (1, 2, 2, 3, 2)),
}


def _maker(name, kwargs):
    return lambda lib: getattr(lib.keras.layers, name)(**kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients(case):
    name, kwargs, shape = CASES[case]
    same(lambda lib: outputs_and_gradients(lib, _maker(name, kwargs), data(*shape)))


def _unknown_dims(kwargs, shape):
    """``shape`` without its batch dim, the spatial sizes unknown (None)."""
    if len(shape) < 3:
        return shape[1:]
    if kwargs.get("data_format") == "channels_first":
        return (shape[1],) + (None,) * (len(shape) - 2)
    return (None,) * (len(shape) - 2) + (shape[-1],)


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_shapes_and_configs(case):
    name, kwargs, shape = CASES[case]

    def fn(lib):
        make = _maker(name, kwargs)
        return [symbolic(lib, make, shape[1:]), symbolic(lib, make, _unknown_dims(kwargs, shape)),
                config_round_trip(lib, make)]
    same(fn)


@pytest.mark.parametrize("name, kwargs", [("Flatten", {}), ("Reshape", {"target_shape": (6,)}),
                                          ("Permute", {"dims": (2, 1)}), ("ZeroPadding1D", {}),
                                          ("RepeatVector", {"n": 2})])
def test_integer_inputs_keep_their_dtype(name, kwargs):
    x = np.arange(12, dtype="int32").reshape(2, 6) if name == "RepeatVector" else \
        np.arange(12, dtype="int32").reshape(2, 3, 2)

    def fn(lib):
        make = _maker(name, kwargs)
        return [make(lib)(x), symbolic(lib, make, x.shape[1:], dtype="int32")]
    same(fn)


def test_upsampling2d_resize_of_other_dtypes():
    x = data(1, 3, 2, 2)

    def fn(lib):
        keras = lib.keras
        wide = keras.layers.UpSampling2D(interpolation="bilinear", dtype="float64")(x.astype("float64"))
        ints = keras.layers.UpSampling2D(interpolation="bicubic")(lib.tf.constant(np.round(x * 50).astype("int32")))
        return [wide, ints]
    same(fn)


def test_area_upsampling_values():
    x = data(1, 3, 2, 2)
    same(lambda lib: lib.keras.layers.UpSampling2D((2, 3), interpolation="area")(x))


def test_flatten_reshape_in_tf_function_with_unknown_batch():
    x = data(3, 2, 4)

    def fn(lib):
        flatten, reshape = lib.keras.layers.Flatten(), lib.keras.layers.Reshape((4, -1))
        traced = lib.tf.function(lambda t: reshape(flatten(t)),
                                 input_signature=[lib.tf.TensorSpec((None, 2, 4), "float32")])
        return [traced(x), traced(x[:1])]
    same(fn)


ERRORS = {
    "reshape_size": lambda lib: lib.keras.layers.Reshape((5,))(np.zeros((2, 3, 2), "float32")),
    "reshape_two_unknown": lambda lib: lib.keras.layers.Reshape((-1, -1)),
    "reshape_negative": lambda lib: lib.keras.layers.Reshape((2, -3)),
    "reshape_not_divisible": lambda lib: lib.keras.layers.Reshape((4, -1))(lib.keras.Input((3, 2))),
    "permute_dims": lambda lib: lib.keras.layers.Permute((0, 1)),
    "permute_rank": lambda lib: lib.keras.layers.Permute((2, 1))(np.zeros((2, 3), "float32")),
    "repeat_type": lambda lib: lib.keras.layers.RepeatVector(2.0),
    "repeat_value": lambda lib: lib.keras.layers.RepeatVector(0),
    "repeat_rank": lambda lib: lib.keras.layers.RepeatVector(2)(np.zeros((2, 3, 1), "float32")),
    "padding1d_negative": lambda lib: lib.keras.layers.ZeroPadding1D(-1),
    "padding2d_length": lambda lib: lib.keras.layers.ZeroPadding2D((1, 2, 3)),
    "padding2d_type": lambda lib: lib.keras.layers.ZeroPadding2D(1.5),
    "padding2d_entry": lambda lib: lib.keras.layers.ZeroPadding2D(((1, 2), (1, 2, 3))),
    "padding3d_length": lambda lib: lib.keras.layers.ZeroPadding3D((1, 2)),
    "padding3d_type": lambda lib: lib.keras.layers.ZeroPadding3D("a"),
    "cropping1d_call": lambda lib: lib.keras.layers.Cropping1D((2, 2))(np.zeros((1, 4, 1), "float32")),
    "cropping1d_symbolic": lambda lib: lib.keras.layers.Cropping1D((2, 2))(lib.keras.Input((3, 1))),
    "cropping2d_negative": lambda lib: lib.keras.layers.Cropping2D(-1),
    "cropping2d_call": lambda lib: lib.keras.layers.Cropping2D(2)(np.zeros((1, 4, 5, 1), "float32")),
    "cropping2d_symbolic": lambda lib: lib.keras.layers.Cropping2D((1, 3))(lib.keras.Input((4, 5, 1))),
    "cropping2d_length": lambda lib: lib.keras.layers.Cropping2D((1, 2, 3)),
    "cropping3d_call": lambda lib: lib.keras.layers.Cropping3D(2)(np.zeros((1, 5, 4, 5, 1), "float32")),
    "cropping3d_length": lambda lib: lib.keras.layers.Cropping3D((1, 2)),
    "cropping3d_type": lambda lib: lib.keras.layers.Cropping3D(None),
    "upsampling1d_type": lambda lib: lib.keras.layers.UpSampling1D((2,)),
    "upsampling1d_value": lambda lib: lib.keras.layers.UpSampling1D(-2),
    "upsampling2d_size": lambda lib: lib.keras.layers.UpSampling2D((2, 0)),
    "upsampling2d_interpolation": lambda lib: lib.keras.layers.UpSampling2D(interpolation="gaussian")(
        np.zeros((1, 2, 2, 1), "float32")),
    "upsampling3d_rank": lambda lib: lib.keras.layers.UpSampling3D()(np.zeros((1, 2, 2, 1), "float32")),
    "data_format_checked_first": lambda lib: lib.keras.layers.ZeroPadding2D((1, 2, 3), data_format="x"),
    "cropping_data_format_first": lambda lib: lib.keras.layers.Cropping3D(-1, data_format="x"),
    "upsampling_data_format_first": lambda lib: lib.keras.layers.UpSampling2D(0, data_format="x"),
    "flatten_data_format": lambda lib: lib.keras.layers.Flatten(data_format="channels_middle"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    real, ours = error_text(REAL, ERRORS[case]), error_text(VFW, ERRORS[case])
    assert real is not None and ours == real


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic", "lanczos3", "lanczos5", "area"])
@pytest.mark.parametrize("new_size", [(6, 12), (3, 2), (5, 7)])
def test_resize_images_matches_tf_image_resize(interpolation, new_size):
    """The resize UpSampling2D uses, for any sizes, against real ``tf.image.resize`` (values and gradients)."""
    from vfw.frontends.tensorflow.keras.src.layers.upsampling import resize_images

    x = data(2, 3, 4, 2)
    x16 = x.astype("float16")
    real_tf = REAL.tf
    xt = real_tf.constant(x)
    with real_tf.GradientTape() as tape:
        tape.watch(xt)
        real = real_tf.image.resize(xt, new_size, method=interpolation)
        loss = real_tf.reduce_sum(real * real)
    real_gradient = tape.gradient(loss, xt) if interpolation != "area" else None  # TF: no gradient of ResizeArea
    ours_x = VFW.tf.constant(x)
    with VFW.tf.GradientTape() as tape:
        tape.watch(ours_x)
        ours = resize_images(ours_x, new_size, interpolation)
        loss = VFW.tf.reduce_sum(ours * ours)
    np.testing.assert_allclose(ours.numpy(), real.numpy(), rtol=1e-5, atol=1e-5)
    if real_gradient is not None:
        np.testing.assert_allclose(tape.gradient(loss, ours_x).numpy(), real_gradient.numpy(), rtol=1e-4, atol=1e-4)
    half = resize_images(VFW.tf.constant(x16), new_size, interpolation)
    assert half.dtype == VFW.tf.float16
    expected = real_tf.cast(real_tf.image.resize(x16, new_size, method=interpolation), "float16")
    np.testing.assert_allclose(half.numpy().astype("float32"), expected.numpy().astype("float32"), rtol=1e-3,
                               atol=1e-3)


def test_area_resize_gradient_is_the_transposed_resize():
    """TF has no gradient for 'area' resizing; vfw's is the adjoint of TF's (linear) area resize."""
    from vfw.frontends.tensorflow.keras.src.layers.upsampling import resize_images

    x = data(1, 3, 4, 1)
    basis = np.eye(12, dtype="float32").reshape(12, 3, 4, 1)
    jacobian = REAL.tf.image.resize(basis, (5, 7), method="area").numpy().reshape(12, -1).T  # (35, 12)
    xt = VFW.tf.constant(x)
    with VFW.tf.GradientTape() as tape:
        tape.watch(xt)
        y = resize_images(xt, (5, 7), "area")
        loss = VFW.tf.reduce_sum(y * y)
    expected = 2 * jacobian.T @ (jacobian @ x.reshape(-1))
    np.testing.assert_allclose(tape.gradient(loss, xt).numpy().reshape(-1), expected, rtol=1e-5, atol=1e-6)
