"""vfw.onnx_io.export of realistic Keras models: each model is built in real Keras 3 (TF 2.21) and in vfw's keras,
the real weights copied into vfw's (get_weights / set_weights), the vfw model exported, and the file run in
onnxruntime at two batch sizes (and two sequence lengths where the time axis is None) against the real model's
``model(x, training=False)``."""

import numpy as np
import onnx
import pytest

from compat_tests.keras.core_harness import ATOL, REAL, RTOL, VFW

ort = pytest.importorskip("onnxruntime")
import vfw.onnx_io as oi  # noqa: E402


def _onnx_run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def _twins(make, build=None):
    """``(vfw model, real model)`` made by ``make(tf)``, the real model's weights copied into vfw's."""
    ours, theirs = make(VFW.tf), make(REAL.tf)
    if build is not None:  # a subclassed model makes its weights at its first call
        build(ours)
        build(theirs)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


def _exported(ours, signature=None):
    model = oi.export(ours, signature)
    onnx.checker.check_model(model, full_check=True)
    return model


def _same(got, want):
    np.testing.assert_allclose(got, np.asarray(want), rtol=RTOL, atol=ATOL)


# -- 1. text CNN ------------------------------------------------------------------------------------------------------
def _text_cnn(tf, deep):
    layers = tf.keras.layers
    tokens = tf.keras.Input((None,), dtype="int32", name="tokens")
    x = layers.Embedding(50, 8)(tokens)
    if deep:  # a length (n // 2 - 1) // 2 after the strided convolution: not what sizes 8 to 10 suggest
        x = layers.SpatialDropout1D(0.2)(layers.Conv1D(6, 5, padding="same", activation="relu")(x))
        x = layers.Conv1D(6, 3, strides=2, activation="relu")(layers.MaxPooling1D(2)(x))
        x = layers.Dropout(0.5)(x)
        x = layers.Concatenate()([layers.GlobalMaxPooling1D()(x), layers.GlobalAveragePooling1D()(x)])
    else:
        x = layers.Conv1D(6, 3, activation="relu")(x)  # "valid": the traced example must be longer than 2 steps
        x = layers.GlobalMaxPooling1D()(x)
    return tf.keras.Model(tokens, layers.Dense(3, activation="softmax", name="probs")(x))


@pytest.mark.parametrize("deep", [False, True])
def test_text_cnn_with_a_dynamic_sequence_length(deep):
    ours, theirs = _twins(lambda tf: _text_cnn(tf, deep))
    model = _exported(ours)
    assert [(i.name, _dims(i)) for i in model.graph.input] == [("tokens", ["batch", "tokens_dim1"])]
    rng = np.random.default_rng(1)
    for batch, time in ((2, 9), (5, 20)):
        tokens = rng.integers(0, 50, (batch, time)).astype(np.int32)
        _same(_onnx_run(model, {"tokens": tokens})[0], theirs(tokens, training=False))


# -- 2. masked bidirectional tagger -----------------------------------------------------------------------------------
def _tagger(tf, kind):
    layers = tf.keras.layers
    tokens = tf.keras.Input((None,), dtype="int32", name="tokens")
    x = layers.Embedding(30, 6, mask_zero=True)(tokens)
    cell = layers.LSTM if kind == "lstm" else layers.GRU
    x = layers.Bidirectional(cell(5, return_sequences=True))(x)
    return tf.keras.Model(tokens, layers.TimeDistributed(layers.Dense(3), name="tags")(x))


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_masked_bidirectional_tagger_with_time_distributed_dense(kind):
    ours, theirs = _twins(lambda tf: _tagger(tf, kind))
    model = _exported(ours)
    assert _dims(model.graph.output[0]) == ["batch", "tokens_dim1", 3]
    rng = np.random.default_rng(2)
    for batch, time in ((3, 4), (5, 9)):  # padding at the end, at the start, inside, and a row of padding only
        tokens = rng.integers(1, 30, (batch, time)).astype(np.int32)
        tokens[0, 2:] = 0
        tokens[1, :1] = 0
        tokens[2, 1] = 0
        tokens[-1] = 0
        want = theirs(tokens, training=False)
        _same(_onnx_run(model, {"tokens": tokens})[0], want)
        _same(ours(tokens, training=False).numpy(), want)


def _video_classifier(tf):
    layers = tf.keras.layers
    frames = tf.keras.Input((None, 8, 8, 3), name="frames")
    x = layers.TimeDistributed(layers.Conv2D(4, 3, activation="relu"))(frames)
    x = layers.LSTM(5)(layers.TimeDistributed(layers.GlobalAveragePooling2D())(x))
    return tf.keras.Model(frames, layers.Dense(2)(x))


def test_time_distributed_convolution_over_a_dynamic_number_of_frames():
    ours, theirs = _twins(_video_classifier)
    model = _exported(ours)
    rng = np.random.default_rng(8)
    for batch, time in ((2, 3), (4, 7)):
        frames = rng.random((batch, time, 8, 8, 3)).astype(np.float32)
        _same(_onnx_run(model, {"frames": frames})[0], theirs(frames, training=False))


# -- 3. transformer block ---------------------------------------------------------------------------------------------
def _transformer(tf, mask):
    layers = tf.keras.layers

    class TokenAndPosition(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.tokens = layers.Embedding(40, 8, mask_zero=mask == "padding")
            self.positions = layers.Embedding(64, 8)

        def call(self, x):
            return self.tokens(x) + self.positions(tf.range(tf.shape(x)[1]))

        def compute_mask(self, x, mask=None):
            return self.tokens.compute_mask(x)

    tokens = tf.keras.Input((None,), dtype="int32", name="tokens")
    inputs = [tokens]
    x = TokenAndPosition()(tokens)
    attention = layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.1)
    if mask == "input":
        inputs.append(tf.keras.Input((None, None), dtype="bool", name="attention_mask"))
        a = attention(x, x, attention_mask=inputs[1])
    else:
        a = attention(x, x, use_causal_mask=mask in ("causal", "padding"))
    x = layers.LayerNormalization(epsilon=1e-6)(x + layers.Dropout(0.1)(a))
    h = layers.Dense(8)(layers.Dense(16, activation="relu")(x))
    x = layers.LayerNormalization(epsilon=1e-6)(x + layers.Dropout(0.1)(h))
    return tf.keras.Model(inputs if len(inputs) > 1 else tokens, layers.Dense(3, name="logits")(x))


@pytest.mark.parametrize("mask", ["none", "causal", "padding", "input"])
def test_transformer_block_with_a_dynamic_sequence_length(mask):
    ours, theirs = _twins(lambda tf: _transformer(tf, mask))
    model = _exported(ours)
    if mask == "input":  # the mask's two None dims are the tokens' length: one symbol
        assert [(i.name, _dims(i)) for i in model.graph.input] == [
            ("tokens", ["batch", "tokens_dim1"]), ("attention_mask", ["batch", "tokens_dim1", "tokens_dim1"])]
    rng = np.random.default_rng(3)
    for batch, time in ((2, 5), (4, 9)):
        tokens = rng.integers(1, 40, (batch, time)).astype(np.int32)
        tokens[0, 3:] = 0
        feeds = {"tokens": tokens}
        if mask == "input":
            feeds["attention_mask"] = rng.random((batch, time, time)) < 0.7
            feeds["attention_mask"][:, :, 0] = True
        want = theirs(list(feeds.values()) if mask == "input" else tokens, training=False)
        _same(_onnx_run(model, feeds)[0], want)


# -- 4. functional model: dict inputs, two named outputs --------------------------------------------------------------
def _two_headed(tf):
    layers = tf.keras.layers
    numeric = tf.keras.Input((6,), name="numeric")
    extra = tf.keras.Input((4,), name="extra")
    h = layers.Concatenate()([layers.Dense(8, activation="relu")(numeric), extra])
    h = layers.Dropout(0.3)(layers.BatchNormalization()(h))
    return tf.keras.Model({"numeric": numeric, "extra": extra},
                          {"price": layers.Dense(1, name="price")(h),
                           "label": layers.Dense(3, activation="softmax", name="label")(h)})


def test_functional_model_with_dict_inputs_and_two_named_outputs():
    ours, theirs = _twins(_two_headed)
    rng = np.random.default_rng(4)
    weights = [w + rng.random(w.shape).astype(np.float32) for w in theirs.get_weights()]  # BN statistics not 0 / 1
    theirs.set_weights(weights)
    ours.set_weights(weights)
    model = _exported(ours)
    assert sorted(i.name for i in model.graph.input) == ["extra", "numeric"]
    assert sorted(o.name for o in model.graph.output) == ["label", "price"]
    for batch in (1, 5):
        feeds = {"numeric": rng.standard_normal((batch, 6)).astype(np.float32),
                 "extra": rng.standard_normal((batch, 4)).astype(np.float32)}
        want = theirs(feeds, training=False)
        for output, got in zip(model.graph.output, _onnx_run(model, feeds)):
            _same(got, want[output.name])


# -- 5. preprocessing layers and an image model -----------------------------------------------------------------------
_ADAPT = np.random.default_rng(5).random((20, 3)).astype(np.float32) * 5.0


def _preprocessing(tf):
    layers = tf.keras.layers
    image = tf.keras.Input((30, 40, 3), name="image")
    normalization = layers.Normalization()
    normalization.adapt(_ADAPT)
    x = layers.CenterCrop(16, 16)(layers.Resizing(20, 24)(image))
    x = normalization(layers.Rescaling(1 / 255.0, offset=-0.5)(x))
    x = layers.GlobalAveragePooling2D()(layers.Conv2D(4, 3, activation="relu")(x))
    return tf.keras.Model(image, layers.Dense(2, name="cls")(x))


def _convnet(tf, size=32):
    layers = tf.keras.layers
    image = tf.keras.Input((size, size, 3), name="image")
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(image)
    x = layers.MaxPooling2D()(x)
    x = layers.DepthwiseConv2D(3, padding="same", depth_multiplier=2)(x)
    x = layers.SeparableConv2D(6, 3, padding="same", activation="relu")(x)
    x = layers.AveragePooling2D(pool_size=2, strides=2, padding="same")(x)
    x = layers.Conv2D(5, 3, strides=2)(x)
    return tf.keras.Model(image, layers.Dense(3, name="cls")(layers.GlobalAveragePooling2D()(x)))


@pytest.mark.parametrize("make, shape, scale", [(_preprocessing, (30, 40, 3), 255.0), (_convnet, (32, 32, 3), 1.0)])
def test_image_models_with_a_dynamic_batch(make, shape, scale):
    ours, theirs = _twins(make)
    model = _exported(ours)
    assert [(i.name, _dims(i)) for i in model.graph.input] == [("image", ["batch", *shape])]
    rng = np.random.default_rng(6)
    for batch in (2, 3):
        images = (rng.random((batch, *shape)) * scale).astype(np.float32)
        _same(_onnx_run(model, {"image": images})[0], theirs(images, training=False))


def _resizing_any_size(tf):
    image = tf.keras.Input((None, None, 3), name="image")
    return tf.keras.Model(image, tf.keras.layers.Resizing(8, 8)(image))


@pytest.mark.parametrize("make", [_resizing_any_size, lambda tf: _convnet(tf, size=None)])
def test_image_models_with_dynamic_image_sizes(make):
    # Resizing's taps and a strided "same" pool's padding follow the image size the file is run at
    ours, theirs = _twins(make)
    model = _exported(ours)
    rng = np.random.default_rng(8)
    for shape in ((2, 13, 21, 3), (3, 32, 18, 3)):
        images = rng.random(shape).astype(np.float32)
        _same(_onnx_run(model, {"image": images})[0], theirs(images, training=False))


# -- 6. subclassed model with tf ops ----------------------------------------------------------------------------------
def _subclassed(tf):
    layers = tf.keras.layers

    class Scorer(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.project = layers.Dense(6)
            self.table = self.add_weight(shape=(10, 6), initializer="random_normal", name="table")
            self.head = layers.Dense(3)

        def call(self, inputs, training=False):
            x, ids = inputs
            h = self.project(x)
            scores = tf.einsum("btd,bsd->bts", h, h) / 3.0
            scores = tf.where(scores > 0.5, scores, tf.zeros_like(scores) - 1.0)
            pooled = tf.reduce_logsumexp(scores, axis=-1)
            embedded = tf.gather(self.table, ids)
            z = tf.nn.gelu(h + embedded, approximate=True) + tf.nn.gelu(h - embedded, approximate=False)
            return self.head(tf.reduce_mean(z * pooled[..., None], axis=1))

    return Scorer()


def test_subclassed_model_with_tf_ops_and_a_dynamic_time_axis():
    def build(model):
        model((np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), np.int32)))

    ours, theirs = _twins(_subclassed, build)
    signature = [VFW.tf.TensorSpec([None, None, 4], VFW.tf.float32, name="x"),
                 VFW.tf.TensorSpec([None, None], VFW.tf.int32, name="ids")]
    model = _exported(ours, signature)
    assert [i.name for i in model.graph.input] == ["x", "ids"]
    rng = np.random.default_rng(7)
    for batch, time in ((2, 5), (3, 8)):
        x = rng.standard_normal((batch, time, 4)).astype(np.float32)
        ids = rng.integers(0, 10, (batch, time)).astype(np.int32)
        _same(_onnx_run(model, {"x": x, "ids": ids})[0], theirs((x, ids), training=False))
