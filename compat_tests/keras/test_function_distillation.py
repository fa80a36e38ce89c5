"""``keras.Function``, ``keras.distillation`` and ``keras.callbacks.RemoteMonitor`` against real Keras 3.15.1."""

import functools
import http.server
import json
import os
import threading
import urllib.parse

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
import vfw.tensorflow as vtf  # noqa: E402

vkeras = vtf.keras


def _both(fn):
    """``fn`` run on real Keras and on vfw's Keras."""
    return fn(keras), fn(vkeras)


def _errors(make):
    """``(error in real Keras, error in vfw)`` of ``make(keras)``."""
    return _error(functools.partial(make, keras)), _error(functools.partial(make, vkeras))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the error's type and text are compared)
        return type(e), str(e).split("\n\nArguments received")[0]
    return None


# -- keras.Function --------------------------------------------------------------------------------------------------
def _function(k):
    a, b = k.KerasTensor(shape=(None, 2, 3)), k.KerasTensor(shape=(None, 2, 3))
    x = a + b
    dense = k.layers.Dense(4, kernel_initializer="ones", name="fn_dense")
    return k.Function(inputs=[a, b], outputs={"sig": k.ops.sigmoid(x), "x": x, "d": dense(x)}, name="fn")


def test_function_call_and_structure():
    rng = np.random.RandomState(0)
    values = [rng.randn(4, 2, 3), rng.randn(4, 2, 3)]  # float64: Dense casts to float32
    want_fn, got_fn = _both(_function)
    assert got_fn.name == want_fn.name
    assert [type(op).__name__ for op in got_fn.operations] == [type(op).__name__ for op in want_fn.operations]
    assert [op.name for op in got_fn.operations] == [op.name for op in want_fn.operations]
    assert len(got_fn.inputs) == 2 and len(got_fn.outputs) == 3
    assert [tuple(x.shape) for x in got_fn.outputs] == [tuple(x.shape) for x in want_fn.outputs]
    want, got = want_fn(values), got_fn(values)
    assert sorted(got) == sorted(want)
    for key in want:
        assert isinstance(got[key], vtf.Tensor)
        assert got[key].dtype.name == want[key].dtype.name
        np.testing.assert_allclose(got[key].numpy(), want[key].numpy(), rtol=1e-6)


def test_function_symbolic_and_shapes():
    want_fn, got_fn = _both(_function)
    for k, fn in ((keras, want_fn), (vkeras, got_fn)):
        spec = fn.compute_output_spec([k.KerasTensor((5, 2, 3)), k.KerasTensor((5, 2, 3))])
        fn.result_shapes = {key: tuple(v.shape) for key, v in spec.items()}
        fn.result_call = {key: tuple(v.shape) for key, v in
                          fn([k.KerasTensor((None, 2, 3)), k.KerasTensor((None, 2, 3))]).items()}
        fn.result_compute = fn.compute_output_shape([(7, 2, 3), (7, 2, 3)])
    assert got_fn.result_shapes == want_fn.result_shapes
    assert got_fn.result_call == want_fn.result_call
    assert {k: tuple(v) for k, v in got_fn.result_compute.items()} == \
        {k: tuple(v) for k, v in want_fn.result_compute.items()}


def test_function_single_input_and_errors():
    def single(k):
        a = k.KerasTensor(shape=(None, 3))
        return k.Function(a, k.ops.exp(a) * 2.0)

    want_fn, got_fn = _both(single)
    x = np.arange(6, dtype="float32").reshape(2, 3) / 10
    np.testing.assert_allclose(got_fn(x).numpy(), want_fn(x).numpy(), rtol=1e-6)
    for make_call in (lambda fn: fn([x, x]), lambda fn: fn(np.ones((2, 4), "float32")),
                      lambda fn: fn(np.ones((2, 3, 1), "float32"))):
        want_error = _error(functools.partial(make_call, want_fn))
        got_error = _error(functools.partial(make_call, got_fn))
        assert want_error is not None and got_error is not None
        assert got_error[0] is want_error[0]
    def unreachable(k):  # an output not computable from the inputs (Keras: AttributeError)
        a, other = k.KerasTensor(shape=(None, 3)), k.KerasTensor(shape=(None, 3))
        return k.Function(a, other + 1.0)

    def empty_inputs(k):
        return k.Function([], k.KerasTensor(shape=(None, 3)))

    for make in (unreachable, empty_inputs):
        want_error, got_error = _errors(make)
        assert want_error is not None and got_error is not None and got_error[0] is want_error[0]


# -- keras.distillation ------------------------------------------------------------------------------------------------
def _student_teacher(k):
    k.utils.set_random_seed(1)

    def model(name):
        inputs = k.Input((4,))
        hidden = k.layers.Dense(8, activation="relu", name="hid")(inputs)
        return k.Model(inputs, k.layers.Dense(3, name="out")(hidden), name=name)

    return model("teacher"), model("student")


def _distill_history(k, losses, weights, student_weight, loss="sparse_categorical_crossentropy"):
    teacher, student = _student_teacher(k)
    rng = np.random.RandomState(0)
    x, y = rng.randn(32, 4).astype("float32"), rng.randint(0, 3, 32)
    distiller = k.distillation.Distiller(teacher, student, losses(k), distillation_loss_weights=weights,
                                         student_loss_weight=student_weight)
    distiller.compile(optimizer=k.optimizers.SGD(0.1), loss=loss, metrics=["accuracy"])
    history = distiller.fit(x, y, epochs=2, batch_size=16, verbose=0).history
    evaluated = distiller.evaluate(x, y, verbose=0, return_dict=True)
    return (history, evaluated, distiller.metrics_names, teacher.trainable,
            distiller.predict(x[:4], verbose=0), [len(distiller.trainable_variables),
                                                 len(distiller.non_trainable_variables)])


@pytest.mark.parametrize("losses, weights, student_weight", [
    (lambda k: [k.distillation.LogitsDistillation(temperature=2.0),
                k.distillation.FeatureDistillation(loss="mse", teacher_layer_name="hid", student_layer_name="hid")],
     [1.0, 0.5], 0.3),
    (lambda k: k.distillation.LogitsDistillation(temperature=3.0, loss=k.losses.KLDivergence()), None, 0.5),
    (lambda k: k.distillation.FeatureDistillation(loss=k.losses.MeanAbsoluteError()), None, 0.0),
    (lambda k: k.distillation.LogitsDistillation(loss="categorical_crossentropy"), None, 1.0),
])
def test_distiller_fit_matches_keras(losses, weights, student_weight):
    want = _distill_history(keras, losses, weights, student_weight)
    got = _distill_history(vkeras, losses, weights, student_weight)
    assert sorted(got[0]) == sorted(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key], rtol=2e-5, atol=1e-6, err_msg=key)
    assert sorted(got[1]) == sorted(want[1])
    for key in want[1]:
        np.testing.assert_allclose(got[1][key], want[1][key], rtol=2e-5, atol=1e-6, err_msg=key)
    assert got[2:4] == want[2:4]
    np.testing.assert_allclose(got[4], want[4], rtol=1e-5, atol=1e-6)
    assert got[5] == want[5]


def test_distillation_configs_and_errors():
    for make in (lambda k: k.distillation.LogitsDistillation(2.0),
                 lambda k: k.distillation.FeatureDistillation(teacher_layer_name="a", student_layer_name="b")):
        want, got = _both(make)
        assert got.get_config() == want.get_config()
        assert type(got).from_config(got.get_config()).get_config() == got.get_config()
    for make in (lambda k: k.distillation.LogitsDistillation(temperature=0),
                 lambda k: k.distillation.LogitsDistillation(temperature="3"),
                 lambda k: k.distillation.LogitsDistillation(loss=None),
                 lambda k: k.distillation.FeatureDistillation(loss=[None, None]),
                 lambda k: k.distillation.LogitsDistillation(loss="no_such_loss")):
        want_error, got_error = _errors(make)
        assert want_error is not None and got_error is not None and got_error[0] is want_error[0]
        assert got_error[1] == want_error[1]

    def distiller(k, **kwargs):
        teacher, student = _student_teacher(k)
        return k.distillation.Distiller(teacher, student, k.distillation.LogitsDistillation(), **kwargs)

    for kwargs in ({"student_loss_weight": 1.5}, {"student_loss_weight": "a"}):
        want_error, got_error = _errors(functools.partial(distiller, **kwargs))
        assert want_error is not None and got_error == want_error

    def mismatched_weights(k):
        teacher, student = _student_teacher(k)
        return k.distillation.Distiller(teacher, student, [k.distillation.LogitsDistillation()],
                                        distillation_loss_weights=[1.0, 2.0])

    def bad_layer(k):
        teacher, student = _student_teacher(k)
        return k.distillation.Distiller(teacher, student, k.distillation.FeatureDistillation(
            teacher_layer_name="nope"))

    def wider_student(k):
        teacher, _ = _student_teacher(k)
        inputs = k.Input((4,))
        return k.distillation.Distiller(teacher, k.Model(inputs, k.layers.Dense(5)(inputs)),
                                        k.distillation.LogitsDistillation())

    def compile_without_loss(k):
        distiller(k).compile(optimizer="sgd")

    for make in (mismatched_weights, bad_layer, wider_student, compile_without_loss):
        want_error, got_error = _errors(make)
        assert want_error is not None and got_error is not None and got_error[0] is want_error[0], make.__name__
    want_config, got_config = distiller(keras).get_config(), distiller(vkeras).get_config()
    assert sorted(got_config) == sorted(want_config)
    for key in ("distillation_loss_weights", "student_loss_weight", "name"):
        assert got_config[key] == want_config[key]


# -- keras.callbacks.RemoteMonitor -----------------------------------------------------------------------------------
class _Recorder(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):  # noqa: N802  (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).received.append((self.path, self.headers.get("Content-Type"), self.headers.get("X-Test"), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def _posts(k, port, **kwargs):
    _Recorder.received = []
    k.utils.set_random_seed(3)
    model = k.Sequential([k.Input((2,)), k.layers.Dense(1)])
    model.compile(k.optimizers.SGD(0.05), "mse")
    x = np.linspace(-1, 1, 16, dtype="float32").reshape(8, 2)
    model.fit(x, x[:, :1] * 2, epochs=2, verbose=0,
              callbacks=[k.callbacks.RemoteMonitor(root=f"http://127.0.0.1:{port}", **kwargs)])
    return [(path, ctype, header, _payload(body, ctype)) for path, ctype, header, body in _Recorder.received]


def _payload(body, content_type):
    if content_type == "application/json":
        return json.loads(body)
    return {key: json.loads(value[0]) for key, value in urllib.parse.parse_qs(body).items()}


def _round(posts):
    def rounded(value):
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return round(value, 5) if isinstance(value, float) else value

    return [(path, ctype, header, rounded(payload)) for path, ctype, header, payload in posts]


def test_remote_monitor_posts_as_keras():
    pytest.importorskip("requests")
    server = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        for kwargs in ({}, {"send_as_json": True, "path": "/p/", "headers": {"X-Test": "yes"}}, {"field": "f"}):
            want, got = _posts(keras, port, **kwargs), _posts(vkeras, port, **kwargs)
            assert len(want) == 2
            assert _round(got) == _round(want)
    finally:
        server.shutdown()
        server.server_close()


def test_remote_monitor_unreachable_warns():
    pytest.importorskip("requests")
    callback = vkeras.callbacks.RemoteMonitor(root="http://127.0.0.1:1")
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor root server"):
        callback.on_epoch_end(0, {"loss": np.float32(1.5)})
    config = {k: getattr(callback, k) for k in ("root", "path", "field", "headers", "send_as_json")}
    want = keras.callbacks.RemoteMonitor(root="http://127.0.0.1:1")
    assert config == {k: getattr(want, k) for k in config}
