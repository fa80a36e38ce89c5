"""keras.metrics (reductions, accuracies, regression, probabilistic, correlation) against real Keras 3.15.1:
results after several batches with sample weights, reset, state variables, configs, ``get`` and errors.
Confusion-matrix metrics, AUC, F-scores and IoU are in ``test_metrics_confusion.py``."""

import numpy as np
import pytest

from compat_tests.keras.losses_metrics_harness import (
    REAL,
    VFW,
    assert_same,
    comparable,
    one_hot,
    probabilities,
    rng,
    same,
)
from compat_tests.stable_ids import stable_id

N, C = 8, 4
BATCHES = 3


def run_batches(lib, metric, batches, graph=False):
    """Results after each ``update_state(*batch)`` (copied: a result may be a state variable itself), whether
    the result is a Keras variable, the state variables, and the result and state after ``reset_state``."""
    results = []
    update = metric.update_state
    if graph:
        update = lib.tf.function(update)
    for args, kwargs in batches:
        update(*[None if a is None else lib.tf.constant(a) for a in args],
               **{k: lib.tf.constant(v) for k, v in kwargs.items()})
        results.append(np.array(metric.result().numpy()))
    is_variable = isinstance(metric.result(), lib.keras.Variable)
    state = [(v.name, v.path, v.dtype, tuple(v.shape), v.numpy()) for v in metric.variables]
    metric.reset_state()
    return [results, is_variable, state, np.array(metric.result().numpy()), [v.numpy() for v in metric.variables]]


def _batches(make_batch, weights=None):
    """``BATCHES`` batches ``((y_true, y_pred), {"sample_weight": w})``; ``weights`` is a weight shape or None."""
    out = []
    for i in range(BATCHES):
        y_true, y_pred = make_batch(i)
        kwargs = {} if weights is None else {"sample_weight": rng(100 + i).random(weights).astype("float32")}
        out.append(((y_true, y_pred), kwargs))
    return out


def _regression(i):
    r = rng(i)
    return r.normal(size=(N, C)).astype("float32"), r.normal(size=(N, C)).astype("float32")


def _positive(i):
    r = rng(10 + i)
    return r.gamma(2.0, size=(N, C)).astype("float32"), r.gamma(2.0, size=(N, C)).astype("float32")


def _binary(i):
    r = rng(20 + i)
    return (r.random((N, C)) > 0.5).astype("float32"), r.random((N, C)).astype("float32")


def _binary_column(i):
    y_true, y_pred = _binary(i)
    return y_true[:, :1], y_pred[:, 0]


def _categorical(i):
    labels = rng(30 + i).integers(0, C, N)
    return one_hot(labels, C), probabilities((N, C), seed=40 + i)


def _sparse(i):
    return rng(50 + i).integers(0, C, N).astype("int32"), probabilities((N, C), seed=60 + i)


def _sparse_column(i):
    y_true, y_pred = _sparse(i)
    return y_true.reshape(N, 1).astype("float32"), y_pred


def _exact(i):
    r = rng(70 + i)
    y_true = r.integers(0, 3, (N, 2)).astype("float32")
    y_pred = np.where(r.random((N, 2)) > 0.5, y_true, y_true + 1).astype("float32")
    return y_true, y_pred


def _sequence(i):
    labels = rng(80 + i).integers(0, C, (N, 3))
    return labels.astype("int32"), probabilities((N, 3, C), seed=90 + i)


WRAPPER_CASES = [
    ("Accuracy", {}, _exact),
    ("BinaryAccuracy", {}, _binary),
    ("BinaryAccuracy", {"threshold": 0.7}, _binary_column),
    ("CategoricalAccuracy", {}, _categorical),
    ("SparseCategoricalAccuracy", {}, _sparse),
    ("SparseCategoricalAccuracy", {}, _sparse_column),
    ("SparseCategoricalAccuracy", {}, _sequence),
    ("TopKCategoricalAccuracy", {"k": 2}, _categorical),
    ("SparseTopKCategoricalAccuracy", {"k": 2}, _sparse),
    ("SparseTopKCategoricalAccuracy", {"k": 3}, _sequence),
    ("MeanSquaredError", {}, _regression),
    ("MeanAbsoluteError", {}, _regression),
    ("MeanAbsolutePercentageError", {}, _regression),
    ("MeanSquaredLogarithmicError", {}, _positive),
    ("RootMeanSquaredError", {}, _regression),
    ("CosineSimilarity", {}, _regression),
    ("CosineSimilarity", {"axis": 0}, _regression),
    ("LogCoshError", {}, _regression),
    ("PearsonCorrelation", {}, _regression),
    ("ConcordanceCorrelation", {}, _regression),
    ("Hinge", {}, _binary),
    ("SquaredHinge", {}, _binary),
    ("CategoricalHinge", {}, _categorical),
    ("KLDivergence", {}, _categorical),
    ("Poisson", {}, _positive),
    ("BinaryCrossentropy", {}, _binary),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.2}, _regression),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1}, _categorical),
    ("CategoricalCrossentropy", {"from_logits": True}, _regression),
    ("SparseCategoricalCrossentropy", {}, _sparse),
    ("SparseCategoricalCrossentropy", {"ignore_class": 1}, _sparse),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, _sequence),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(WRAPPER_CASES)]


@pytest.mark.parametrize("name,kwargs,data", WRAPPER_CASES, ids=IDS)
@pytest.mark.parametrize("weights", [None, (N,), (N, 1)], ids=["unweighted", "weights", "column-weights"])
def test_mean_metrics(name, kwargs, data, weights):
    same(lambda lib: run_batches(lib, getattr(lib.keras.metrics, name)(**kwargs), _batches(data, weights)))


@pytest.mark.parametrize("name,kwargs,data", WRAPPER_CASES[::3], ids=IDS[::3])
def test_mean_metrics_in_tf_function(name, kwargs, data):
    """vfw updates inside a tf.function graph give real Keras' eager numbers."""
    want = run_batches(REAL, getattr(REAL.keras.metrics, name)(**kwargs), _batches(data, (N,)))
    got = run_batches(VFW, getattr(VFW.keras.metrics, name)(**kwargs), _batches(data, (N,)), graph=True)
    assert_same(comparable(want), comparable(got))


FUNCTION_CASES = [
    ("binary_accuracy", {}, _binary), ("binary_accuracy", {"threshold": 0.2}, _binary_column),
    ("categorical_accuracy", {}, _categorical), ("sparse_categorical_accuracy", {}, _sparse),
    ("sparse_categorical_accuracy", {}, _sparse_column), ("sparse_categorical_accuracy", {}, _sequence),
    ("top_k_categorical_accuracy", {"k": 1}, _categorical), ("top_k_categorical_accuracy", {}, _categorical),
    ("sparse_top_k_categorical_accuracy", {"k": 2}, _sequence),
    ("pearson_correlation", {}, _regression), ("concordance_correlation", {"axis": 0}, _regression),
]


@pytest.mark.parametrize("name,kwargs,data", FUNCTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)])
def test_metric_functions(name, kwargs, data):
    y_true, y_pred = data(0)
    same(lambda lib: getattr(lib.keras.metrics, name)(lib.tf.constant(y_true), lib.tf.constant(y_pred), **kwargs))


def test_sparse_top_k_from_sorted_ids():
    ids = np.array([[2, 0, 1, 3], [3, 3, 1, 0], [0, 1, 2, 3]], dtype="int32")

    def fn(lib):
        labels = np.array([0, 3, 2], dtype="int32")
        metric = lib.keras.metrics.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)
        return [lib.keras.metrics.sparse_top_k_categorical_accuracy(labels, ids, k=2, from_sorted_ids=True),
                metric(labels, ids), metric.get_config()]

    same(fn)


def test_accuracy_ties_and_negative_zero():
    """Keras' argmax takes the first maximum and ranks -0.0 below 0.0."""
    y_pred = np.array([[0.5, 0.5, 0.0], [-0.0, 0.0, -1.0], [0.0, -0.0, -1.0], [0.2, 0.7, 0.7]], "float32")
    y_true = np.array([[0, 1, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]], "float32")

    def fn(lib):
        return [lib.keras.metrics.categorical_accuracy(y_true, y_pred),
                lib.keras.metrics.sparse_categorical_accuracy(np.array([0, 1, 0, 1]), y_pred),
                lib.keras.metrics.top_k_categorical_accuracy(y_true, y_pred, k=1)]

    same(fn)


@pytest.mark.parametrize("name,kwargs", [(name, kwargs) for name, kwargs, _ in WRAPPER_CASES] + [
    ("Mean", {}), ("Sum", {"name": "total", "dtype": "float64"}), ("R2Score", {"class_aggregation": None}),
    ("SparseTopKCategoricalAccuracy", {"from_sorted_ids": True}), ("Accuracy", {"dtype": "mixed_float16"}),
], ids=stable_id)
def test_metric_configs(name, kwargs):
    def fn(lib):
        metric = getattr(lib.keras.metrics, name)(**kwargs)
        config = metric.get_config()
        return [config, type(metric).from_config(config).get_config(), metric.name, metric.dtype, repr(metric),
                lib.keras.metrics.serialize(metric), getattr(metric, "_direction", None)]

    same(fn)


def test_mean_and_sum_with_weights_of_every_rank():
    values = rng(1).normal(size=(N, 3, 2)).astype("float32")

    def fn(lib):
        out = []
        for cls in (lib.keras.metrics.Mean, lib.keras.metrics.Sum):
            for weights in (None, rng(2).random(N), rng(3).random((N, 3)), rng(4).random((N, 3, 2)),
                            rng(5).random((N, 1))):
                metric = cls()
                metric.update_state(values, sample_weight=weights)
                metric.update_state(values[:3], sample_weight=None if weights is None else weights[:3])
                out.append(metric.result())
            metric = cls()
            metric.update_state(2.5)
            metric.update_state([1.0, 2.0], sample_weight=[0.0, 3.0])
            out.append(metric.result())
        return out

    same(fn)


def test_mean_metric_wrapper_and_masks():
    y_true, y_pred = _regression(0)
    mask = np.array([True, True, False, True, False, True, True, True])

    def fn(lib):
        def squared(t, p, power=2.0):
            return lib.tf.reduce_mean(lib.tf.abs(t - p) ** power, axis=-1)

        metric = lib.keras.metrics.MeanMetricWrapper(squared, power=3.0)
        prediction = lib.tf.constant(y_pred)
        prediction._keras_mask = lib.tf.constant(mask)
        metric.update_state(lib.tf.constant(y_true), prediction)
        first = metric.result()
        metric.update_state(lib.tf.constant(y_true), prediction, sample_weight=np.arange(N, dtype="float32"))
        loss_metric = lib.keras.metrics.MeanMetricWrapper(lib.keras.losses.mean_squared_error, name="mse_wrap")
        return [first, metric.result(), metric.name, loss_metric(y_true, y_pred), loss_metric.name,
                getattr(loss_metric, "_direction", None), getattr(metric, "_direction", None)]

    same(fn)


def test_wrapper_config_serializes_its_function():
    def fn(lib):
        metric = lib.keras.metrics.MeanMetricWrapper(lib.keras.losses.mean_squared_error, name="mse_wrap")
        config = metric.get_config()
        return [config, lib.keras.metrics.MeanMetricWrapper.from_config(config).get_config()]

    same(fn)


def test_sparse_categorical_crossentropy_metric_ignores_masked_classes():
    y_true, y_pred = _sequence(0)

    def fn(lib):
        metric = lib.keras.metrics.SparseCategoricalCrossentropy(ignore_class=2)
        metric.update_state(y_true, y_pred)
        metric.update_state(y_true[:4], y_pred[:4], sample_weight=np.ones((4, 3), "float32") * 2)
        return metric.result()

    same(fn)


R2_CASES = [({}, 2), ({"class_aggregation": "variance_weighted_average"}, 3), ({"class_aggregation": None}, 3),
            ({"num_regressors": 2}, 1), ({"num_regressors": 30}, 2)]


@pytest.mark.filterwarnings("ignore:More independent predictors than datapoints")
@pytest.mark.parametrize("kwargs,outputs", R2_CASES, ids=stable_id)
@pytest.mark.parametrize("weighted", [False, True])
def test_r2_score(kwargs, outputs, weighted):
    def batch(i):
        r = rng(200 + i)
        y_true = r.normal(size=(N, outputs)).astype("float32")
        return y_true, (y_true + 0.5 * r.normal(size=(N, outputs))).astype("float32")

    same(lambda lib: run_batches(lib, lib.keras.metrics.R2Score(**kwargs), _batches(batch, (N,) if weighted else None)))


def test_r2_score_errors():
    same(lambda lib: lib.keras.metrics.R2Score(class_aggregation="median"), message="class_aggregation")
    same(lambda lib: lib.keras.metrics.R2Score(num_regressors=-1), message="num_regressors")
    same(lambda lib: lib.keras.metrics.R2Score().update_state(np.ones(3), np.ones(3)),
         message="R2Score expects 2D inputs")


def test_metric_base_class():
    def fn(lib):
        class CountAbove(lib.keras.metrics.Metric):
            def __init__(self, limit, **kwargs):
                super().__init__(**kwargs)
                self.limit = limit
                self.hits = self.add_variable(shape=(), initializer="zeros", name="hits")
                self.inner = lib.keras.metrics.Mean(name="inner_mean")

            def update_state(self, values):
                self.hits.assign_add(lib.tf.reduce_sum(lib.tf.cast(values > self.limit, "float32")))
                self.inner.update_state(values)

            def result(self):
                return self.hits + self.inner.result()

        metric = CountAbove(0.5)
        second = CountAbove(0.2)
        values = rng(9).random(10).astype("float32")
        out = [metric(values), [(v.name, v.path) for v in metric.variables], metric.name, second.name,
               metric.get_config(), repr(metric)]
        state = [v.numpy() for v in metric.variables]
        out += [metric.stateless_result(state), metric.stateless_update_state(state, values)[0],
                metric.stateless_reset_state()[0], metric.result()]
        metric.reset_state()
        out.append(metric.result())
        return out

    same(fn)


def test_metric_without_super_init():
    def fn(lib):
        class Broken(lib.keras.metrics.Metric):
            def __init__(self):
                pass

        return Broken().add_variable((), "zeros")

    same(fn, message="You forgot to call `super().__init__()`")


@pytest.mark.parametrize("identifier", [
    "accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "mse", "MAE", "mape", "msle", "bce", "auc", "AUC", "precision", "recall",
    "mean_squared_error", "kl_divergence", "f1_score", "mean_io_u", "r2_score", "Mean", "root_mean_squared_error",
    "log_cosh_error",
    {"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}},
    {"class_name": "Precision", "config": {"thresholds": [0.3, 0.6]}},
])
def test_get(identifier):
    same(lambda lib: [type(lib.keras.metrics.get(identifier)).__name__, lib.keras.metrics.get(identifier).name])


def test_get_errors_and_pass_through():
    same(lambda lib: lib.keras.metrics.get("acc"), message="Could not interpret metric identifier: acc")
    same(lambda lib: lib.keras.metrics.get(5))

    def fn(lib):
        metric = lib.keras.metrics.AUC()
        return [lib.keras.metrics.get(metric) is metric, lib.keras.metrics.get(None),
                lib.keras.metrics.get(lib.keras.metrics.binary_accuracy) is lib.keras.metrics.binary_accuracy,
                lib.keras.metrics.deserialize(lib.keras.metrics.serialize(metric)).get_config()]

    same(fn)


def test_metric_errors():
    same(lambda lib: lib.keras.metrics.SparseTopKCategoricalAccuracy(k=2)(np.array([[1.0]]), np.ones((1, 1, 4))))
    same(lambda lib: lib.keras.metrics.CategoricalAccuracy()(np.ones((2, 3)), np.ones((3, 3))))


@pytest.mark.parametrize("dtype", ["float64", "float16"])
@pytest.mark.parametrize("name,kwargs,data", [WRAPPER_CASES[i] for i in (1, 4, 10, 14, 25, 29)], ids=stable_id)
def test_metric_dtypes(name, kwargs, data, dtype):
    """State and results in the metric's dtype (float16 agrees to its own precision)."""
    tolerance = {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {}
    same(lambda lib: run_batches(lib, getattr(lib.keras.metrics, name)(dtype=dtype, **kwargs), _batches(data, (N,))),
         **tolerance)
