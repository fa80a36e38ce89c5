"""Functional models against real Keras 3.15.1: graphs of layer calls, layer order, outputs with copied
weights, shared layers, nested models, symbolic operators, masks, configs, summaries and errors."""

import json

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, copy_weights, data, run, same, summary_text


def _mlp(lib):
    keras = lib.keras
    inputs = keras.Input((4,), name="features")
    x = keras.layers.Dense(8, activation="relu")(inputs)
    x = keras.layers.Dense(8, activation="relu")(x)
    outputs = keras.layers.Dense(3, activation="softmax")(x)
    return keras.Model(inputs, outputs, name="mlp")


def _branchy(lib):
    """Two inputs (a dict), a shared layer, a nested model and two outputs (a dict)."""
    keras = lib.keras
    a = keras.Input((4,), name="a")
    b = keras.Input((4,), name="b")
    shared = keras.layers.Dense(5, activation="relu", name="shared")
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, keras.layers.Dense(2, name="inner_dense")(inner_in), name="inner")
    ha, hb = shared(a), shared(b)
    merged = keras.layers.Dense(3, name="merge")(ha) + hb[:, :3] * 2.0
    return keras.Model({"a": a, "b": b}, {"y": inner(merged), "z": keras.layers.Dense(1, name="z")(hb)},
                       name="branchy")


def _run_copied(build, inputs, **call_kwargs):
    """``build`` on both libraries, the real model's weights copied into vfw's; both outputs."""
    REAL.keras.backend.clear_session(free_memory=False)
    VFW.keras.backend.clear_session(free_memory=False)
    real, ours = build(REAL), build(VFW)
    copy_weights(real, ours)
    return real, ours, real(inputs, **call_kwargs), ours(inputs, **call_kwargs)


def _assert_outputs(real_out, our_out, rtol=1e-5, atol=1e-6):
    if isinstance(real_out, dict):
        assert sorted(real_out) == sorted(our_out)
        for key in real_out:
            _assert_outputs(real_out[key], our_out[key], rtol, atol)
    elif isinstance(real_out, (list, tuple)):
        assert len(real_out) == len(our_out)
        for a, b in zip(real_out, our_out):
            _assert_outputs(a, b, rtol, atol)
    else:
        assert tuple(real_out.shape) == tuple(our_out.shape)
        assert real_out.dtype.name == our_out.dtype.name
        np.testing.assert_allclose(np.asarray(our_out), np.asarray(real_out), rtol=rtol, atol=atol)


def test_mlp_structure():
    def fn(lib):
        model = _mlp(lib)
        return [model.name, type(model).__name__, [layer.name for layer in model.layers],
                [w.path for w in model.weights], model.count_params(), [x.name for x in model.inputs],
                [repr(x) for x in model.outputs], model.input_shape, model.output_shape, model.output_names,
                model.get_layer("dense_1").name, model.get_layer(index=1).name, model.built,
                model.layers[0].output.name]
    same(fn)


def test_mlp_outputs_with_copied_weights():
    x = data(5, 4)
    real, ours, real_out, our_out = _run_copied(_mlp, x)
    _assert_outputs(real_out, our_out)
    _assert_outputs(real(x.astype("float64")), ours(x.astype("float64")))
    _assert_outputs(real([x]), ours([x]))


def test_branchy_structure_and_outputs():
    def fn(lib):
        model = _branchy(lib)
        return [[layer.name for layer in model.layers], [op.name for op in model.operations],
                [w.path for w in model.weights], [x.name for x in model.inputs], model.output_names,
                [len(layer._inbound_nodes) for layer in model.layers]]
    same(fn)
    inputs = {"a": data(3, 4), "b": data(3, 4, seed=1)}
    _, _, real_out, our_out = _run_copied(_branchy, inputs)
    _assert_outputs(real_out, our_out)


def test_list_inputs_and_outputs():
    def build(lib):
        keras = lib.keras
        a, b = keras.Input((3,)), keras.Input((2,))
        h = keras.layers.Dense(4)(a)
        return keras.Model([a, b], [h, keras.layers.Dense(2)(b) * h[:, :2], b - 1.0])

    inputs = [data(2, 3), data(2, 2, seed=1)]
    _, ours, real_out, our_out = _run_copied(build, inputs)
    _assert_outputs(real_out, our_out)
    same(lambda lib: [op.name for op in build(lib).operations])


def test_nested_model_called_on_tensors_and_symbolically():
    def fn(lib):
        keras = lib.keras
        inner = _mlp(lib)
        x = keras.Input((4,))
        y = inner(x)
        outer = keras.Model(x, keras.layers.Dense(1)(y))
        return [y.shape, y.name, [layer.name for layer in outer.layers], len(inner._inbound_nodes),
                [w.path for w in outer.weights], outer.get_layer("mlp").count_params()]
    same(fn)


def test_symbolic_operators():
    def fn(lib):
        keras = lib.keras
        x = keras.Input((3,), name="x")
        ops = [x + 1.0, 2.0 * x, x - x, x / 2.0, -x, x[:, 1:], x[:, 0], abs(x), x ** 2.0, x > 0.0]
        model = keras.Model(x, ops[:-1])
        return [[(o.shape, o.dtype) for o in ops], [op.name for op in model.operations],
                [type(op).__name__ for op in model.operations], [layer.name for layer in model.layers],
                model(np.array([[1.0, -2.0, 3.0]], "float32"))]
    same(fn)


def test_training_flag_reaches_layers_in_graph():
    def fn(lib):
        keras = lib.keras

        class Probe(keras.layers.Layer):
            def call(self, x, training=None):
                return x + (1.0 if training else 0.0)

        x = keras.Input((2,))
        model = keras.Model(x, Probe()(keras.layers.Dense(2, kernel_initializer="ones")(x)))
        z = np.zeros((1, 2), "float32")
        return [model(z), model(z, training=True), model(z, training=False)]
    same(fn)


def test_masks_in_graph():
    ids = np.array([[4, 0, 2], [0, 0, 1]], "int32")

    def fn(lib):
        keras = lib.keras

        class Pool(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.supports_masking = True

            def call(self, x, mask=None):
                weights = lib.tf.cast(mask, x.dtype)[..., None]
                return lib.tf.reduce_sum(x * weights, axis=1)

            def compute_mask(self, inputs, mask=None):
                return None

        x = keras.Input((3,), dtype="int32")
        embedded = keras.layers.Embedding(5, 2, mask_zero=True, embeddings_initializer="ones")(x)
        model = keras.Model(x, Pool()(embedded))
        pool = model.layers[-1]
        return [repr(embedded._keras_mask.shape), embedded._keras_mask.dtype, model(ids),
                [op.name for op in model.operations], [x.name for x in pool._inbound_nodes[0].input_tensors],
                sorted(pool._inbound_nodes[0].arguments.kwargs)]
    same(fn)


def test_config_round_trip_and_json():
    def fn(lib):
        model = _branchy(lib)
        config = model.get_config()
        clone = lib.keras.Model.from_config(config)
        again = lib.keras.models.model_from_json(model.to_json())
        return [json.loads(json.dumps(config)), [layer.name for layer in clone.layers],
                [w.path for w in clone.weights], [layer.name for layer in again.layers], type(again).__name__]
    same(fn)


def test_config_clone_computes_the_same():
    inputs = {"a": data(2, 4), "b": data(2, 4, seed=1)}
    VFW.keras.backend.clear_session(free_memory=False)
    model = _branchy(VFW)
    clone = VFW.keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    _assert_outputs(model(inputs), clone(inputs), rtol=0, atol=0)


@pytest.mark.parametrize("line_length", [None, 120])
def test_summary_of_sequential_like_graph(line_length):
    same(lambda lib: summary_text(_mlp(lib), line_length=line_length))


@pytest.mark.parametrize("options", [{}, {"show_trainable": True}, {"expand_nested": True, "line_length": 130},
                                     {"layer_range": ["shared", "merge"]}])
def test_summary_of_branchy_graph(options):
    def fn(lib):
        model = _branchy(lib)
        model.get_layer("z").trainable = False
        return summary_text(model, **options)
    same(fn)


def test_input_tensors_and_layers():
    def fn(lib):
        keras = lib.keras
        a = keras.Input((3, None))
        b = keras.Input(shape=(2,), batch_size=8, dtype="int32", name="ids")
        c = keras.Input(batch_shape=(4, 5))
        layer = b._keras_history[0]
        return [repr(a), repr(b), repr(c), a.name, type(layer).__name__, layer.name, layer.batch_shape,
                layer.dtype, layer.get_config(), keras.layers.InputLayer(shape=(2,)).get_config()]
    same(fn)


@pytest.mark.parametrize("case", ["no_shape", "both_shapes", "batch_size_and_shape"])
def test_input_errors(case):
    def fn(lib):
        keras = lib.keras
        if case == "no_shape":
            return keras.Input()
        if case == "both_shapes":
            return keras.Input(shape=(2,), batch_shape=(None, 2))
        return keras.Input(batch_size=2, batch_shape=(None, 2))
    same(fn)


def test_graph_errors():
    def fn(lib):
        keras = lib.keras
        out = []
        a, b = keras.Input((2,)), keras.Input((2,))
        y = keras.layers.Dense(1)(b)
        try:
            keras.Model(a, y)
        except ValueError as e:
            out.append(str(e).split(" at operation")[0])
        try:
            keras.Model(a, np.zeros(2))
        except ValueError as e:
            out.append(str(e)[:45])
        model = keras.Model(a, keras.layers.Dense(1, name="d")(a))
        for name, index in (("nope", None), (None, 5), (None, None), ("d", 0)):
            try:
                model.get_layer(name, index)
            except ValueError as e:
                out.append(str(e))
        return out
    same(fn)


def test_call_with_incompatible_shape():
    def fn(lib):
        model = _mlp(lib)
        return model(np.ones((2, 5), "float32"))
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[:2] == ours[:2] == ("raised", "ValueError")
    assert real[2] == ours[2]


def test_subclassed_model():
    x = data(3, 4)

    def fn(lib):
        keras = lib.keras

        class Net(keras.Model):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.hidden = keras.layers.Dense(5, activation="relu")
                self.heads = [keras.layers.Dense(2), keras.layers.Dense(1)]
                self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

            def call(self, inputs, training=False):
                h = self.hidden(inputs)
                return self.heads[0](h) * self.scale, self.heads[1](h)

        net = Net(name="net")
        before = summary_text(net)
        outputs = net(x)
        return [before, summary_text(net), [layer.name for layer in net.layers], [w.path for w in net.weights],
                [o.shape for o in outputs], net.get_layer("dense_1").name, net.count_params()]
    same(fn)


def test_traced_training_steps_match():
    x, y = data(6, 4), data(6, 3, seed=5)

    def steps(lib, model, count=3):
        @lib.tf.function
        def step(inputs, targets):
            with lib.tf.GradientTape() as tape:
                loss = lib.tf.reduce_mean(lib.tf.square(model(inputs, training=True) - targets))
            grads = tape.gradient(loss, model.trainable_variables)
            for variable, grad in zip(model.trainable_variables, grads):
                variable.assign_sub(0.1 * grad)
            return loss

        return [step(x, y) for _ in range(count)]

    real, ours, _, _ = _run_copied(_mlp, x)
    real_losses, our_losses = steps(REAL, real), steps(VFW, ours)
    np.testing.assert_allclose([float(v) for v in our_losses], [float(v) for v in real_losses], rtol=1e-5)
    for a, b in zip(real.get_weights(), ours.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_model_subclass_built_with_functional_arguments():
    def fn(lib):
        keras = lib.keras

        class Wrapped(keras.Model):
            def __init__(self, units, **kwargs):
                inputs = keras.Input((3,))
                super().__init__(inputs, keras.layers.Dense(units)(inputs), **kwargs)
                self.units = units

        model = Wrapped(2, name="wrapped")
        return [type(model).__name__, [layer.name for layer in model.layers], model(np.ones((1, 3), "float32")).shape,
                model.units, model.output_shape, [type(b).__name__ for b in type(model).__mro__[:3]]]
    same(fn)
