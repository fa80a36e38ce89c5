"""vfw.onnx_io.export of Keras image models whose inputs have ``None`` height and width: each model is built in real
Keras 3 (TF 2.21) and in vfw's keras, the real weights copied into vfw's, the vfw model exported once, and the file
run in onnxruntime at several image sizes (odd and even) against the real model's ``predict``.

``Resizing`` to a fixed size and strided ``padding="same"`` windows (whose TF padding depends on the size's parity)
must export as graphs valid at every size; what still cannot export names the Keras layer and why."""

import numpy as np
import onnx
import pytest

from compat_tests.keras.core_harness import ATOL, REAL, RTOL, VFW

ort = pytest.importorskip("onnxruntime")
import vfw.onnx_io as oi  # noqa: E402

SIZES = ((37, 29), (40, 52), (17, 64))
"""Image sizes (height, width) the exported file is run at: odd and even, smaller and larger than the target."""


def _onnx_run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def _twins(make):
    """``(vfw model, real model)`` made by ``make(tf)``, the real model's weights copied into vfw's."""
    ours, theirs = make(VFW.tf), make(REAL.tf)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _check_at_sizes(make, batch=2, scale=255.0):
    ours, theirs = _twins(make)
    model = oi.export(ours)
    onnx.checker.check_model(model, full_check=True)
    (image,) = model.graph.input
    assert _dims(image)[0] == "batch" and all(isinstance(d, str) for d in _dims(image)[1:3])
    rng = np.random.default_rng(0)
    for height, width in SIZES:
        images = (rng.random((batch, height, width, 3)) * scale).astype(np.float32)
        got = _onnx_run(model, {image.name: images})[0]
        np.testing.assert_allclose(got, theirs.predict(images, verbose=0), rtol=RTOL, atol=ATOL)
    return model


def _classifier(tf, interpolation="bilinear"):
    layers = tf.keras.layers
    image = tf.keras.Input((None, None, 3), name="image")
    x = layers.Rescaling(1 / 255.0)(image)
    x = layers.Resizing(32, 32, interpolation=interpolation, crop_to_aspect_ratio=False)(x)
    x = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    x = layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(image, layers.Dense(4, activation="softmax", name="probs")(x))


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_image_classifier_with_resizing_exports_for_any_image_size(interpolation):
    model = _check_at_sizes(lambda tf: _classifier(tf, interpolation))
    # the strided "same" windows take their padding from the size the file is run at
    windows = [n for n in model.graph.node if n.op_type in ("Conv", "MaxPool")]
    assert windows and all(onnx.helper.get_attribute_value(a) == b"SAME_UPPER"
                           for n in windows for a in n.attribute if a.name == "auto_pad")


def _strided_same(tf):
    """Strided "same" windows straight on the image (no Resizing): their inputs have every size."""
    layers = tf.keras.layers
    image = tf.keras.Input((None, None, 3), name="image")
    x = layers.Conv2D(6, 3, strides=2, padding="same")(image)
    x = layers.AveragePooling2D(3, strides=2, padding="same")(x)
    x = layers.Conv2D(5, 4, strides=3, padding="same", activation="relu")(x)
    x = layers.MaxPooling2D(2, padding="same")(x)
    x = layers.Conv2D(4, 3, strides=1, dilation_rate=2, padding="same")(x)
    return tf.keras.Model(image, layers.GlobalMaxPooling2D()(x))


def test_strided_same_convolutions_and_pools_export_for_any_image_size():
    _check_at_sizes(_strided_same, batch=3, scale=1.0)


def _cropping_resize(tf):
    image = tf.keras.Input((None, None, 3), name="image")
    x = tf.keras.layers.Resizing(16, 16, crop_to_aspect_ratio=True, name="square_crop")(image)
    return tf.keras.Model(image, tf.keras.layers.GlobalAveragePooling2D()(x))


def test_a_layer_that_cannot_export_with_dynamic_image_sizes_is_named():
    # the crop window of crop_to_aspect_ratio is min(height, width): Python control flow on the sizes
    with pytest.raises(oi.ExportError, match=r"Keras layer 'square_crop' \(Resizing\)"):
        oi.export(_cropping_resize(VFW.tf))


def _conv_bn(tf):
    layers = tf.keras.layers
    image = tf.keras.Input((None, None, 3), name="image")
    x = layers.Conv2D(6, 3, strides=2, padding="same", use_bias=False, name="stem")(image)
    x = layers.BatchNormalization(name="stem_bn")(x)
    x = layers.Activation("relu")(x)
    x = layers.DepthwiseConv2D(3, padding="same", name="dw")(x)
    x = layers.BatchNormalization(name="dw_bn", center=False)(x)
    return tf.keras.Model(image, layers.GlobalAveragePooling2D()(x))


def test_folded_batch_norm_constants_are_named_after_their_layers():
    ours, theirs = _twins(_conv_bn)
    rng = np.random.default_rng(1)  # statistics other than the initial ones, so that folding has work to do
    for bn_ours, bn_theirs in ((ours.get_layer(n), theirs.get_layer(n)) for n in ("stem_bn", "dw_bn")):
        values = [rng.random(w.shape).astype(np.float32) + 0.5 for w in bn_theirs.get_weights()]
        bn_theirs.set_weights(values)
        bn_ours.set_weights(values)
    model = _check_at_sizes(lambda tf: {VFW.tf: ours, REAL.tf: theirs}[tf], scale=1.0)
    names = {t.name for t in model.graph.initializer}
    assert {"stem_bn/scale", "stem_bn/offset", "dw_bn/scale"} <= names, sorted(names)
    assert not any(n.startswith("v") and n[1:].isdigit() for n in names), sorted(names)
    # the names carry over to the parameters of the imported module
    parameters = dict(oi.to_torch_module(model).named_parameters())
    assert any("stem_bn" in n and "scale" in n for n in parameters), sorted(parameters)
