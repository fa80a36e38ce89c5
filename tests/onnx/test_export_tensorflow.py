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


CASES = {
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
