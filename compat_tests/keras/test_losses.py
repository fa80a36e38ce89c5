"""keras.losses against real Keras 3.15.1: values of every loss class and function (reductions, sample
weights, masks, logits kept by softmax/sigmoid), gradients, configs, ``get``/``serialize`` and errors."""

import numpy as np
import pytest

from compat_tests.keras.losses_metrics_harness import LIBS, VFW, one_hot, probabilities, rng, same
from compat_tests.stable_ids import stable_id

N, C = 6, 4


def _binary():
    r = rng(1)
    y_true = (r.random((N, C)) > 0.5).astype("float32")
    y_pred = (1 / (1 + np.exp(-r.normal(size=(N, C))))).astype("float32")
    y_pred[0, 0], y_pred[1, 1] = 0.0, 1.0  # clipped to [eps, 1 - eps]
    return y_true, y_pred


def _binary_logits():
    r = rng(2)
    return (r.random((N, C)) > 0.5).astype("float32"), (3 * r.normal(size=(N, C))).astype("float32")


def _categorical():
    labels = rng(3).integers(0, C, N)
    y_pred = probabilities((N, C), seed=4)
    y_pred[0] = [0.0, 0.5, 0.25, 0.25]  # a zero probability
    y_pred[1] *= 2.0  # not normalised
    return one_hot(labels, C), y_pred


def _categorical_logits():
    labels = rng(5).integers(0, C, N)
    return one_hot(labels, C), (2 * rng(6).normal(size=(N, C))).astype("float32")


def _sparse():
    return rng(7).integers(0, C, N).astype("int32"), probabilities((N, C), seed=8)


def _sparse_column():
    y_true, y_pred = _sparse()
    return y_true.reshape(N, 1), y_pred


def _sparse_logits():
    return rng(9).integers(0, C, N).astype("int32"), (2 * rng(10).normal(size=(N, C))).astype("float32")


def _regression():
    r = rng(11)
    return r.normal(size=(N, C)).astype("float32"), r.normal(size=(N, C)).astype("float32")


def _positive():
    r = rng(12)
    return r.gamma(2.0, size=(N, C)).astype("float32"), r.gamma(2.0, size=(N, C)).astype("float32")


def _hinge_binary():
    y_true, _ = _binary()
    return y_true, rng(13).normal(size=(N, C)).astype("float32")


def _hinge_signed():
    y_true, y_pred = _hinge_binary()
    return 2 * y_true - 1, y_pred


def _column_regression():
    y_true, y_pred = _regression()
    return y_true[:, :1], y_pred[:, 0]  # (N, 1) against (N,)


def _segmentation():
    r = rng(14)
    return (r.random((N, 3, 3, 1)) > 0.5).astype("float32"), r.random((N, 3, 3, 1)).astype("float32")


def _embeddings():
    r = rng(15)
    x = r.normal(size=(8, 5))
    return r.integers(0, 3, 8).astype("int32"), (x / np.linalg.norm(x, axis=1, keepdims=True)).astype("float32")


CASES = [
    ("MeanSquaredError", {}, _regression),
    ("MeanSquaredError", {}, _column_regression),
    ("MeanAbsoluteError", {}, _regression),
    ("MeanAbsolutePercentageError", {}, _regression),
    ("MeanSquaredLogarithmicError", {}, _positive),
    ("MeanSquaredLogarithmicError", {}, _regression),
    ("CosineSimilarity", {}, _regression),
    ("CosineSimilarity", {"axis": 0}, _regression),
    ("Huber", {}, _regression),
    ("Huber", {"delta": 0.3}, _regression),
    ("LogCosh", {}, _regression),
    ("Hinge", {}, _hinge_binary),
    ("Hinge", {}, _hinge_signed),
    ("SquaredHinge", {}, _hinge_binary),
    ("CategoricalHinge", {}, _categorical_logits),
    ("KLDivergence", {}, _categorical),
    ("Poisson", {}, _positive),
    ("BinaryCrossentropy", {}, _binary),
    ("BinaryCrossentropy", {"label_smoothing": 0.2}, _binary),
    ("BinaryCrossentropy", {"from_logits": True}, _binary_logits),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1, "axis": 0}, _binary_logits),
    ("BinaryFocalCrossentropy", {}, _binary),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.4, "gamma": 1.5}, _binary),
    ("BinaryFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, _binary_logits),
    ("CategoricalCrossentropy", {}, _categorical),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1}, _categorical),
    ("CategoricalCrossentropy", {"from_logits": True}, _categorical_logits),
    ("CategoricalCrossentropy", {"from_logits": True, "axis": 0}, _categorical_logits),
    ("CategoricalFocalCrossentropy", {}, _categorical),
    ("CategoricalFocalCrossentropy", {"from_logits": True, "alpha": 0.5, "gamma": 3.0, "label_smoothing": 0.1},
     _categorical_logits),
    ("SparseCategoricalCrossentropy", {}, _sparse),
    ("SparseCategoricalCrossentropy", {}, _sparse_column),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, _sparse_logits),
    ("SparseCategoricalCrossentropy", {"ignore_class": 1}, _sparse),
    ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 2}, _sparse_logits),
    ("CategoricalGeneralizedCrossEntropy", {}, _sparse),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.8}, _sparse),
    ("Dice", {}, _segmentation),
    ("Dice", {"axis": (1, 2, 3)}, _segmentation),
    ("Tversky", {}, _segmentation),
    ("Tversky", {"alpha": 0.7, "beta": 0.3, "axis": (1, 2, 3)}, _segmentation),
    ("Circle", {}, _embeddings),
    ("Circle", {"gamma": 10.0, "margin": 0.25, "remove_diagonal": False}, _embeddings),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def _call(lib, name, kwargs, data, **call_kwargs):
    y_true, y_pred = data()
    loss = getattr(lib.keras.losses, name)(**kwargs)
    return loss(lib.tf.constant(y_true), lib.tf.constant(y_pred), **call_kwargs)


@pytest.mark.parametrize("name,kwargs,data", CASES, ids=IDS)
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"])
def test_loss_values(name, kwargs, data, reduction):
    same(lambda lib: _call(lib, name, {**kwargs, "reduction": reduction}, data))


@pytest.mark.parametrize("name,kwargs,data", CASES, ids=IDS)
@pytest.mark.parametrize("weight_shape", [(N,), (N, 1)])
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "mean_with_sample_weight", None])
def test_loss_sample_weights(name, kwargs, data, weight_shape, reduction):
    weights = rng(20).random(weight_shape).astype("float32")
    if name == "Circle":
        weights = rng(20).random(8).astype("float32")
    same(lambda lib: _call(lib, name, {**kwargs, "reduction": reduction}, data, sample_weight=weights))


@pytest.mark.parametrize("name,kwargs,data", CASES[:3] + CASES[17:20] + CASES[24:27] + CASES[30:33], ids=stable_id)
def test_loss_numpy_and_list_inputs(name, kwargs, data):
    y_true, y_pred = data()

    def fn(lib):
        loss = getattr(lib.keras.losses, name)(**kwargs)
        return [loss(y_true.astype("float64"), y_pred.astype("float64")), loss(y_true.tolist(), y_pred.tolist())]

    same(fn)


FUNCTIONS = [
    ("mean_squared_error", {}, _regression), ("mean_absolute_error", {}, _regression),
    ("mean_absolute_percentage_error", {}, _regression), ("mean_squared_logarithmic_error", {}, _positive),
    ("cosine_similarity", {"axis": -1}, _regression), ("huber", {"delta": 0.5}, _regression),
    ("log_cosh", {}, _regression), ("hinge", {}, _hinge_binary), ("squared_hinge", {}, _hinge_signed),
    ("categorical_hinge", {}, _categorical), ("kl_divergence", {}, _categorical), ("poisson", {}, _positive),
    ("binary_crossentropy", {}, _binary), ("binary_crossentropy", {"from_logits": True}, _binary_logits),
    ("binary_focal_crossentropy", {"gamma": 3.0}, _binary),
    ("categorical_crossentropy", {"label_smoothing": 0.3}, _categorical),
    ("categorical_focal_crossentropy", {}, _categorical),
    ("sparse_categorical_crossentropy", {}, _sparse), ("sparse_categorical_crossentropy", {}, _sparse_column),
    ("sparse_categorical_crossentropy", {"from_logits": True, "ignore_class": 0}, _sparse_logits),
    ("categorical_generalized_cross_entropy", {"q": 0.3}, _sparse),
    ("dice", {}, _segmentation), ("tversky", {"axis": (1, 2)}, _segmentation), ("circle", {}, _embeddings),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs,data", FUNCTIONS, ids=[f"{f[0]}-{i}" for i, f in enumerate(FUNCTIONS)])
def test_loss_functions(name, kwargs, data, dtype):
    y_true, y_pred = data()
    if y_pred.dtype.kind == "f":
        y_pred = y_pred.astype(dtype)

    def fn(lib):
        return getattr(lib.keras.losses, name)(lib.tf.constant(y_true), lib.tf.constant(y_pred), **kwargs)

    same(fn, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_metrics_namespace_holds_loss_functions():
    for name in ("binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy", "hinge",
                 "huber", "kl_divergence", "log_cosh", "mean_squared_error", "poisson"):
        assert getattr(VFW.keras.metrics, name) is getattr(VFW.keras.losses, name)


@pytest.mark.parametrize("name,kwargs,data", [CASES[0], CASES[17], CASES[24], CASES[30], CASES[33]], ids=stable_id)
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"])
def test_loss_masks(name, kwargs, data, reduction):
    """A Keras mask on y_pred drops entries from the loss (and re-weights the mean)."""
    y_true, y_pred = data()
    mask = np.array([True, False, True, True, False, True])

    def fn(lib):
        prediction = lib.tf.constant(y_pred)
        prediction._keras_mask = lib.tf.constant(mask)
        loss = getattr(lib.keras.losses, name)(reduction=reduction, **kwargs)
        weights = lib.tf.constant(np.linspace(0.5, 2.0, N).astype("float32"))
        return [loss(lib.tf.constant(y_true), prediction), loss(lib.tf.constant(y_true), prediction, weights)]

    same(fn)


@pytest.mark.parametrize("loss_name,activation", [
    ("CategoricalCrossentropy", "softmax"), ("SparseCategoricalCrossentropy", "softmax"),
    ("BinaryCrossentropy", "sigmoid"), ("BinaryFocalCrossentropy", "sigmoid"),
])
def test_losses_use_the_logits_a_keras_activation_kept(loss_name, activation):
    """Probabilities from a Keras softmax/sigmoid carry their logits: the loss works from those."""
    logits = (8 * rng(30).normal(size=(N, C))).astype("float32")  # saturated: probabilities round to 0/1
    labels = rng(31).integers(0, C, N)
    y_true = labels.astype("int32") if loss_name.startswith("Sparse") else one_hot(labels, C)
    if activation == "sigmoid":
        y_true = (rng(32).random((N, C)) > 0.5).astype("float32")

    def fn(lib):
        x = lib.tf.constant(logits)
        y_pred = lib.tf.nn.softmax(x) if activation == "softmax" else lib.tf.sigmoid(x)
        y_pred._keras_logits = x  # what Keras' softmax/sigmoid activations attach
        return getattr(lib.keras.losses, loss_name)()(lib.tf.constant(y_true), y_pred)

    same(fn)


@pytest.mark.parametrize("name,kwargs,data", [c for c in CASES if c[0] != "Circle"], ids=stable_id)
def test_loss_gradients(name, kwargs, data):
    y_true, y_pred = data()
    weights = rng(40).random(N).astype("float32")

    def fn(lib):
        prediction = lib.tf.constant(y_pred)
        with lib.tf.GradientTape() as tape:
            tape.watch(prediction)
            value = getattr(lib.keras.losses, name)(**kwargs)(lib.tf.constant(y_true), prediction, weights)
        return [value, tape.gradient(value, prediction)]

    same(fn, rtol=1e-5, atol=1e-6)


def test_losses_inside_tf_function():
    y_true, y_pred = _categorical_logits()
    labels = np.argmax(y_true, axis=1)

    def fn(lib):
        cce = lib.keras.losses.CategoricalCrossentropy(from_logits=True)
        scce = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)
        mse = lib.keras.losses.MeanSquaredError(reduction="sum")

        @lib.tf.function
        def step(t, p, s):
            return cce(t, p), scce(s, p), mse(t, p)

        return step(lib.tf.constant(y_true), lib.tf.constant(y_pred), lib.tf.constant(labels))

    same(fn)


CONFIG_CASES = [(name, kwargs) for name, kwargs, _ in CASES] + [
    ("MeanSquaredError", {"reduction": "sum", "name": "my_loss", "dtype": "float64"}),
    ("BinaryCrossentropy", {"reduction": None, "dtype": "mixed_float16"}),
]


@pytest.mark.parametrize("name,kwargs", CONFIG_CASES, ids=stable_id)
def test_loss_configs(name, kwargs):
    def fn(lib):
        loss = getattr(lib.keras.losses, name)(**kwargs)
        rebuilt = type(loss).from_config(loss.get_config())
        return [loss.get_config(), rebuilt.get_config(), loss.name, loss.reduction, loss.dtype,
                lib.keras.losses.serialize(loss), lib.keras.losses.deserialize(lib.keras.losses.serialize(loss)).name]

    same(fn)


def test_loss_base_class_and_wrapper():
    y_true, y_pred = _regression()

    def fn(lib):
        class Cubed(lib.keras.losses.Loss):
            def call(self, y_true, y_pred):
                return lib.tf.reduce_mean(lib.tf.abs(y_true - y_pred) ** 3, axis=-1)

        first, second = Cubed(), Cubed(reduction="sum")
        base = lib.keras.Loss
        return [first(y_true, y_pred), second(y_true, y_pred, [1.0, 2.0, 0.0, 1.0, 1.0, 1.0]), first.name,
                second.name, first.get_config()["reduction"], base is lib.keras.losses.Loss]

    same(fn)


@pytest.mark.parametrize("identifier", [
    "mse", "MSE", "mae", "mape", "msle", "bce", "kld", "KLD", "mean_squared_error", "binary_crossentropy",
    "sparse_categorical_crossentropy", "categorical_focal_crossentropy", "huber", "log_cosh", "dice",
])
def test_get_function_names(identifier):
    same(lambda lib: lib.keras.losses.get(identifier).__name__)


@pytest.mark.parametrize("identifier", [
    "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "Huber", "Tversky",
    {"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}},
    {"class_name": "BinaryCrossentropy", "config": {"label_smoothing": 0.1, "name": "b"}},
])
def test_get_classes_and_configs(identifier):
    same(lambda lib: lib.keras.losses.get(identifier).get_config())


def test_get_passes_objects_through():
    def fn(lib):
        loss = lib.keras.losses.Huber(delta=2.0)
        return [lib.keras.losses.get(loss) is loss, lib.keras.losses.get(None) is None,
                type(lib.keras.losses.get(lib.keras.losses.Poisson)).__name__,
                lib.keras.losses.get(lib.keras.losses.poisson) is lib.keras.losses.poisson]

    same(fn)


def test_serialize_functions():
    def fn(lib):
        config = lib.keras.losses.serialize(lib.keras.losses.mean_squared_error)
        return [config, lib.keras.losses.deserialize(config).__name__,
                lib.keras.losses.deserialize("categorical_crossentropy").__name__]

    same(fn)


@pytest.mark.parametrize("case", [
    lambda lib: lib.keras.losses.get("not_a_loss"),
    lambda lib: lib.keras.losses.get(3),
    lambda lib: lib.keras.losses.MeanSquaredError(reduction="average"),
    lambda lib: lib.keras.losses.categorical_crossentropy(np.eye(3), np.eye(3), axis=True),
    lambda lib: lib.keras.losses.CategoricalGeneralizedCrossEntropy(q=1.5),
    lambda lib: lib.keras.losses.CategoricalCrossentropy()(np.eye(3), np.eye(4)),
    lambda lib: lib.keras.losses.categorical_crossentropy(np.ones((2, 3)), np.ones((2, 3, 1))),
    lambda lib: lib.keras.losses.binary_crossentropy(np.ones((2, 3)), np.ones((2, 4))),
    lambda lib: lib.keras.losses.sparse_categorical_crossentropy(np.ones((2, 3)), np.ones((2, 3, 4)), axis=1),
    lambda lib: lib.keras.losses.SparseCategoricalCrossentropy()(np.ones((3,)), np.ones((2, 4)) / 4),
    lambda lib: lib.keras.losses.SparseCategoricalCrossentropy()(np.array([0, 5]), np.ones((2, 4)) / 4),
    lambda lib: lib.keras.losses.MeanSquaredError()(np.ones((6, 4)), np.ones((6, 4)), np.ones((6, 4, 2))),
], ids=range(12))
@pytest.mark.filterwarnings("ignore:In loss categorical_crossentropy")
def test_loss_errors(case):
    same(case)


def test_loss_error_messages():
    same(lambda lib: lib.keras.losses.get("nope"), message="Could not interpret loss identifier: nope")
    same(lambda lib: lib.keras.losses.Loss(reduction="average"), message="Invalid value for argument `reduction`")
    same(lambda lib: lib.keras.losses.binary_crossentropy(np.ones((2, 3)), np.ones((2, 4))),
         message="Arguments `target` and `output` must have the same shape. Received: target.shape=(2, 3), "
                 "output.shape=(2, 4)")


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.name)
def test_categorical_crossentropy_warns_for_one_class(lib):
    with pytest.warns(SyntaxWarning, match="Consider using 'binary_crossentropy'"):
        lib.keras.losses.categorical_crossentropy(np.ones((2, 1)), np.ones((2, 1)) / 2)


def _ctc_data(dtype="float32"):
    labels = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [2, 0, 0, 0], [4, 4, 1, 3]], dtype="int32")
    return labels, rng(50).normal(size=(4, 9, 5)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "none"])
def test_ctc(dtype, reduction):
    labels, scores = _ctc_data(dtype)

    def fn(lib):
        x = lib.tf.constant(scores)
        with lib.tf.GradientTape() as tape:
            tape.watch(x)
            per_sequence = lib.keras.losses.ctc(labels, x)
            reduced = lib.keras.losses.CTC(reduction=reduction)(labels, x, sample_weight=[1.0, 0.5, 2.0, 0.0])
        return [per_sequence, reduced, tape.gradient(reduced, x)]

    same(fn, rtol=1e-5)


@pytest.mark.parametrize("case", [
    lambda lib: lib.keras.losses.ctc(np.ones((2, 3, 1)), np.ones((2, 4, 5))),
    lambda lib: lib.keras.losses.ctc(np.ones((2, 3)), np.ones((2, 5))),
], ids=["labels-rank", "scores-rank"])
def test_ctc_errors(case):
    same(case)


@pytest.mark.parametrize("dtype", ["float16", "float64", "mixed_float16"])
@pytest.mark.parametrize("name,kwargs,data", [CASES[0], CASES[9], CASES[17], CASES[19], CASES[24], CASES[30]],
                         ids=stable_id)
def test_loss_dtypes(name, kwargs, data, dtype):
    """A loss converts its inputs to its (compute) dtype and returns that dtype."""
    tolerance = {"rtol": 2e-3, "atol": 2e-3} if "16" in dtype else {}
    same(lambda lib: _call(lib, name, {**kwargs, "dtype": dtype}, data), **tolerance)
