"""vfw.onnx_io.export of TensorFlow-style code: exported by vfw, run by onnxruntime at several batch sizes, compared
with real TensorFlow 2.21 running the same function."""

import numpy as np
import onnx
import pytest
import vfw.tensorflow as vtf

import vfw.onnx_io as oi
from tests.onnx.export_helpers import op_types, run_model

real_tf = pytest.importorskip("tensorflow")
RNG = np.random.default_rng(0)
W_CONV = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
W_DENSE = RNG.standard_normal((4, 3)).astype(np.float32)
W_T = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)  # conv2d_transpose: (h, w, out, in)
BIAS = RNG.standard_normal(4).astype(np.float32)


def conv_net(tf, x):
    y = tf.nn.conv2d(x, W_CONV, strides=[1, 2, 1, 1], padding="SAME")
    y = tf.nn.relu(tf.nn.bias_add(y, BIAS))
    y = tf.nn.max_pool2d(y, ksize=2, strides=1, padding="VALID")
    return tf.nn.avg_pool2d(y, ksize=[2, 2], strides=2, padding="SAME")


def dense_activations(tf, x):
    h = tf.matmul(tf.reshape(x, [-1, 4]), W_DENSE)
    return (tf.nn.sigmoid(h), tf.nn.gelu(h), tf.nn.softmax(h, axis=-1), tf.nn.elu(h), tf.nn.selu(h),
            tf.nn.softplus(h), tf.nn.leaky_relu(h, 0.1), tf.nn.log_softmax(h), tf.math.reduce_std(h, axis=0),
            tf.nn.silu(h))


def transposed_conv(tf, x):
    batch = tf.shape(x)[0]
    return tf.nn.conv2d_transpose(x, W_T, output_shape=tf.stack([batch, 9, 8, 2]), strides=2, padding="SAME")


def depthwise(tf, x):
    return tf.nn.depthwise_conv2d(x, W_CONV[:, :, :, :2], strides=[1, 1, 1, 1], padding="VALID")


def control_flow(tf, x, n):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: tf.abs(x) - 1.0)

    def body(i, v):
        v = tf.cond(i % 2 == 0, lambda: v * 0.5, lambda: v + 1.0)
        return i + 1, v

    _, z = tf.while_loop(lambda i, v: i < n, body, (tf.constant(0), y))
    return z


def positions(tf, x):  # keras.io's position embedding: tf.range over a dynamic length
    n = tf.shape(x)[0]
    return x + tf.cast(tf.range(n), tf.float32)[:, None] * tf.cast(tf.range(1, 2 * n, 2), tf.float32)[:, None]


def encodings(tf, x, i):  # one_hot (negative and too large indices give all-off rows) and sequence_mask
    return (tf.one_hot(i, 4), tf.one_hot(i - 2, 3, on_value=5.0, off_value=-1.0, axis=0),
            tf.one_hot(i, tf.shape(x)[0] + 1, dtype=tf.int32), tf.keras.ops.one_hot(i[:, 0], 5),
            tf.one_hot(i, 3, on_value=False, off_value=True, axis=1),
            tf.sequence_mask(i, 4), tf.sequence_mask(i[:, 1]), tf.sequence_mask(i, tf.shape(x)[0], dtype=tf.float32),
            tf.where(tf.sequence_mask(i[:, 2] + 1, 3), x, -1e9))


def float_range(tf, x):  # (and linspace over a dynamic count)
    n = tf.shape(x)[0]
    return (tf.range(0.5, tf.cast(n, tf.float32) + 0.1, 0.3) * 2.0, tf.linspace(0.0, 1.0, n),
            tf.linspace(x[0], x[0] * 3.0, n + 1, axis=1))


def repeats(tf, x):  # one count for every slice
    return (tf.repeat(x, 2, axis=0), tf.repeat(x, [3], axis=1), tf.repeat(x, 0, axis=-1), tf.repeat(x, 2),
            tf.keras.ops.repeat(x[:, None], 2, axis=1))


def search_and_reverse(tf, x, i):  # searchsorted (ties and NaN values), unique, reverse_sequence
    rows = tf.sort(tf.round(x * 2.0), axis=-1)
    values = tf.concat([rows[:, :2], tf.round(x[:, ::-1] * 2.0) + 0.5, [[float("nan")]] * tf.ones_like(x[:, :1])], 1)
    lengths = i[:, 0] % 4
    unique, index, counts = tf.unique_with_counts(tf.reshape(i, [-1]), out_idx=tf.int64)
    return (tf.searchsorted(rows, values), tf.searchsorted(rows, values, side="right", out_type=tf.int64),
            tf.keras.ops.searchsorted(tf.sort(tf.round(x[:, 0] * 2.0)), tf.round(x[:, 1] * 2.0)),
            unique, index, counts, tf.unique(tf.reshape(i, [-1]))[1],
            tf.reverse_sequence(x, lengths, seq_axis=1), tf.reverse_sequence(tf.transpose(x)[None], lengths, 1, 2))


def bands(tf, x):  # band_part, eye and keras.ops.tril/triu over a dynamic size
    square = tf.matmul(x, x, transpose_b=True)
    n = tf.shape(x)[0]
    return (tf.linalg.band_part(square, -1, 0), tf.linalg.band_part(square, 1, 1), tf.linalg.band_part(square, 0, -1),
            tf.linalg.band_part(square, -1, -1), tf.eye(n) + square, tf.eye(n, 3, batch_shape=[2], dtype=tf.int32),
            tf.keras.ops.tril(square, -1), tf.keras.ops.triu(square, 1), tf.linalg.band_part(square > 0.5, 0, 1),
            tf.keras.ops.tril(square > 0.5))


CASES = {
    "bands": (bands, [((None, 3), "float32")]),
    "encodings": (encodings, [((None, 3), "float32"), ((None, 3), "int32")]),
    "float_range": (float_range, [((None, 3), "float32")]),
    "repeats": (repeats, [((None, 3), "float32")]),
    "search_and_reverse": (search_and_reverse, [((None, 3), "float32"), ((None, 3), "int32")]),
    "positions": (positions, [((None, 3), "float32")]),
    "conv_net": (conv_net, [((None, 8, 7, 2), "float32")]),
    "dense_activations": (dense_activations, [((None, 2, 2), "float32")]),
    "transposed_conv": (transposed_conv, [((None, 5, 4, 4), "float32")]),
    "depthwise": (depthwise, [((None, 6, 5, 2), "float32")]),
    "control_flow": (control_flow, [((None, 3), "float32"), ((), "int32")]),
}


def _draw(shape, dtype, batch):
    shape = [batch if d is None else d for d in shape]
    if dtype == "int32":
        return np.asarray(RNG.integers(0, 5, shape), np.int32)
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensorflow_function(name):
    fn, specs = CASES[name]
    signature = [vtf.TensorSpec(shape, dtype) for shape, dtype in specs]
    model = oi.export(lambda *a: fn(vtf, *a), signature)
    onnx.checker.check_model(model, full_check=True)
    for batch in (2, 5, 1):
        arrays = [_draw(shape, dtype, batch) for shape, dtype in specs]
        want = fn(real_tf, *[real_tf.constant(a) for a in arrays])
        want = want if isinstance(want, tuple) else (want,)
        got = run_model(model, arrays)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_cond_and_while_loop_become_if_and_loop():
    model = oi.export(lambda x, n: control_flow(vtf, x, n), [vtf.TensorSpec([None, 3]), vtf.TensorSpec([], "int32")])
    assert {"If", "Loop"} <= set(op_types(model))
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    body = onnx.helper.get_attribute_value(loop.attribute[0])
    assert "If" in [n.op_type for n in body.node]  # the cond inside the loop's body


def test_tf_function_signature_names_and_variables(tmp_path):
    kernel = vtf.Variable(W_DENSE, name="dense_kernel")

    @vtf.function(input_signature=[vtf.TensorSpec([None, 4], vtf.float32, name="features")])
    def predict(features):
        return vtf.nn.relu(vtf.matmul(features, kernel))

    path = tmp_path / "f.onnx"
    model = oi.export(predict, path=path, output_names=["scores"])
    assert [i.name for i in model.graph.input] == ["features"] and model.graph.output[0].name == "scores"
    assert [t.name for t in model.graph.initializer] == ["dense_kernel"]
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", 4]
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    np.testing.assert_allclose(run_model(onnx.load(path), [x])[0], np.maximum(x @ W_DENSE, 0), rtol=1e-5, atol=1e-6)


def test_signature_errors():
    with pytest.raises(ValueError, match="input_signature"):
        oi.export(lambda x: x)
    with pytest.raises(TypeError, match="tf.TensorSpec"):
        oi.export(lambda x: x, [np.ones(2)])


def _keras_sequential(keras):
    return keras.Sequential([keras.layers.Input((6,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])


def _keras_functional(keras):
    a = keras.Input((5,), name="a")
    b = keras.Input((3,), name="b")
    h = keras.layers.Dense(4, activation="tanh")(a)
    joined = keras.ops.concatenate([h, b], axis=-1)
    return keras.Model([a, b], keras.layers.Dense(2)(joined))


def _keras_token_classifier(keras):  # keras.io's text models feed a float keras.Input of token ids to Embedding
    return keras.Sequential([keras.Input((7,)), keras.layers.Embedding(5, 4), keras.layers.GlobalAveragePooling1D(),
                             keras.layers.Dense(2)])


@pytest.mark.parametrize("make", [_keras_sequential, _keras_functional, _keras_token_classifier])
def test_keras_models(make):
    ours, theirs = make(vtf.keras), make(real_tf.keras)
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours)
    onnx.checker.check_model(model, full_check=True)
    tokens = make is _keras_token_classifier
    names, paths = {t.name for t in model.graph.initializer}, {w.path for w in ours.weights}
    assert paths <= names if tokens else paths == names  # (the token model also holds constants of its cast)
    for batch in (1, 4):
        arrays = [(RNG.integers(0, 5, (batch,) + tuple(i.shape[1:])) if tokens else
                   RNG.standard_normal((batch,) + tuple(i.shape[1:]))).astype(np.float32) for i in ours.inputs]
        want = theirs([real_tf.constant(a) for a in arrays] if len(arrays) > 1 else arrays[0]).numpy()
        np.testing.assert_allclose(run_model(model, arrays)[0], want, rtol=1e-5, atol=1e-6)


def _keras_subclassed(keras):
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(5, activation="relu")
            self.out = keras.layers.Dense(2)

        def call(self, x, training=False):
            return self.out(self.hidden(x) * 2.0)
    return Net()


def test_keras_subclassed_model_with_a_signature():
    ours, theirs = _keras_subclassed(vtf.keras), _keras_subclassed(real_tf.keras)
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    ours(x), theirs(x)  # build
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours, [vtf.TensorSpec([None, 4])])
    for batch in (1, 6):
        xs = RNG.standard_normal((batch, 4)).astype(np.float32)
        np.testing.assert_allclose(run_model(model, [xs])[0], theirs(xs).numpy(), rtol=1e-5, atol=1e-6)


def test_keras_model_with_several_outputs_names_them_after_its_output_layers():
    def make(keras):
        a = keras.Input((8,), name="a")
        h = keras.layers.Dense(6)(a)
        return keras.Model(a, [keras.layers.Dense(1, name="reg")(h), keras.layers.Dense(3, name="cls")(h)])

    ours, theirs = make(vtf.keras), make(real_tf.keras)
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours)
    assert [o.name for o in model.graph.output] == list(theirs.output_names) == ["reg", "cls"]
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    for got, want in zip(run_model(model, [x]), theirs(x)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def _dict_results(tf, x):
    return {"y": x * 2.0, "s": tf.reduce_sum(x, 1), "x": tf.nn.relu(x), "pair": [x - 1.0, x + 1.0]}


def test_dict_results_name_the_outputs_by_their_keys():  # as tf2onnx names them (a key naming an input: <key>_out)
    f = vtf.function(lambda x: _dict_results(vtf, x), input_signature=[vtf.TensorSpec([None, 4], name="x")])
    model = oi.export(f)
    assert [o.name for o in model.graph.output] == ["y", "s", "x_out", "pair_0", "pair_1"]
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    want = _dict_results(real_tf, real_tf.constant(x))
    want = {"y": want["y"], "s": want["s"], "x_out": want["x"], "pair_0": want["pair"][0], "pair_1": want["pair"][1]}
    for output, got in zip(model.graph.output, run_model(model, [x])):
        np.testing.assert_allclose(got, want[output.name].numpy(), rtol=1e-6)


def test_keras_model_with_dict_outputs_names_them_by_their_keys():
    def make(keras):
        a = keras.Input((8,), name="a")
        h = keras.layers.Dense(6)(a)
        return keras.Model(a, {"score": keras.layers.Dense(1, name="reg")(h), "cls": keras.layers.Dense(3)(h)})

    ours, theirs = make(vtf.keras), make(real_tf.keras)
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours)
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    want = theirs(x)
    assert sorted(o.name for o in model.graph.output) == sorted(want) == ["cls", "score"]
    for output, got in zip(model.graph.output, run_model(model, [x])):
        np.testing.assert_allclose(got, want[output.name].numpy(), rtol=1e-5, atol=1e-6)


def _masked_recurrent(keras, kind):  # keras.io's text classifiers: token ids with padding zeros, a masking Embedding
    layers = keras.layers
    tokens = keras.Input((None,), dtype="int32")
    x = layers.Embedding(9, 4, mask_zero=True)(tokens)
    if kind == "lstm":
        x = layers.LSTM(5)(x)
    elif kind == "gru":
        x = layers.GRU(5, return_sequences=True, go_backwards=True)(x)
        x = layers.GlobalAveragePooling1D()(x)
    elif kind == "simple_rnn":
        x = layers.SimpleRNN(5, return_sequences=True, zero_output_for_mask=True)(x)
        x = x[:, -1] + x[:, 0]
    else:
        x = layers.Bidirectional(layers.LSTM(3, return_sequences=True))(x)
        x = layers.Bidirectional(layers.GRU(3))(x)
    return keras.Model(tokens, layers.Dense(2)(x))


@pytest.mark.parametrize("kind", ["lstm", "gru", "simple_rnn", "bidirectional"])
def test_keras_masked_recurrent_model_with_a_dynamic_time_axis(kind):
    ours, theirs = _masked_recurrent(vtf.keras, kind), _masked_recurrent(real_tf.keras, kind)
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours)
    onnx.checker.check_model(model, full_check=True)
    for time in (3, 7):  # padding at the end, at the start, inside, and a row of padding only
        tokens = RNG.integers(1, 9, (4, time)).astype(np.int32)
        tokens[0, 2:] = 0
        tokens[1, :2] = 0
        tokens[2, 1] = 0
        tokens[3] = 0
        np.testing.assert_allclose(run_model(model, [tokens])[0], theirs(tokens).numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours(tokens).numpy(), theirs(tokens).numpy(), rtol=1e-5, atol=1e-6)


def _keras_text_transformer(tf):  # keras.io's text classification with a Transformer (here causal attention)
    layers = tf.keras.layers

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = layers.Embedding(20, 8), layers.Embedding(64, 8)

        def call(self, x):
            return self.tokens(x) + self.positions(tf.range(start=0, limit=tf.shape(x)[-1], delta=1))

    tokens = tf.keras.Input((None,), dtype="int32")
    x = TokenAndPositionEmbedding()(tokens)
    attention = layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x, use_causal_mask=True)
    x = layers.LayerNormalization(epsilon=1e-6)(x + attention)
    return tf.keras.Model(tokens, layers.Dense(2)(layers.GlobalAveragePooling1D()(x)))


def test_keras_text_transformer_with_a_dynamic_sequence_length():
    ours, theirs = _keras_text_transformer(vtf), _keras_text_transformer(real_tf)
    theirs.set_weights([w.numpy() for w in ours.weights])
    model = oi.export(ours)
    for time in (4, 11):
        tokens = RNG.integers(0, 20, (3, time)).astype(np.int32)
        np.testing.assert_allclose(run_model(model, [tokens])[0], theirs(tokens).numpy(), rtol=1e-5, atol=1e-6)
