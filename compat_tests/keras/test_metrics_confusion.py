"""Confusion-matrix metrics against real Keras 3.15.1: TP/FP/TN/FN, Precision, Recall, the X-at-Y metrics,
AUC (curves, summation methods, multi-label, label weights, logits, explicit thresholds), F-scores and IoU:
results after several weighted batches, state, reset, configs and errors."""

import numpy as np
import pytest

from compat_tests.keras.losses_metrics_harness import REAL, VFW, assert_same, comparable, one_hot, rng, same
from compat_tests.keras.test_metrics import run_batches

N, C = 10, 3
# Weighted counts are float32 sums of magnitude up to ~20 and true/false negatives are differences of such
# sums (total - above threshold): TF's reduction order differs from numpy's, so they agree to a few ulp of 20.
WEIGHTED_ATOL = 1e-5


def _batches(kind, weights=None, batches=3):
    """Batches ``((y_true, y_pred), {"sample_weight": w})`` of one kind of classification data."""
    out = []
    for i in range(batches):
        r = rng(300 + i)
        if kind == "binary":
            y_true = (r.random(N) > 0.5).astype("float32")
            # Predictions on the thresholds themselves and at the ends (0, 1) test the bucket edges.
            y_pred = np.round(r.random(N), 2).astype("float32")
            y_pred[:3] = [0.0, 1.0, 0.5]
        elif kind == "multi":
            y_true = (r.random((N, C)) > 0.5).astype("float32")
            y_pred = np.round(r.random((N, C)), 2).astype("float32")
            y_pred[0, 0], y_pred[1, 1] = 0.0, 1.0
        elif kind == "logits":
            y_true = (r.random((N, C)) > 0.5).astype("float32")
            y_pred = (3 * r.normal(size=(N, C))).astype("float32")
        elif kind == "column":
            y_true = (r.random((N, 1)) > 0.5).astype("int32")
            y_pred = r.random(N).astype("float32")
        else:  # "categorical": one-hot labels and class scores
            y_true = one_hot(r.integers(0, C, N), C)
            y_pred = r.random((N, C)).astype("float32")
        shape = {"rows": (N,), "entries": y_pred.shape}.get(weights)
        kwargs = {} if shape is None else {"sample_weight": r.random(shape).astype("float32")}
        out.append(((y_true, y_pred), kwargs))
    return out


THRESHOLD_CASES = [
    ("TruePositives", {}, "binary"), ("FalsePositives", {"thresholds": [0.15, 0.5, 0.85]}, "multi"),
    ("TrueNegatives", {"thresholds": [0.0, 0.5, 1.0]}, "binary"), ("FalseNegatives", {"thresholds": 0.3}, "column"),
    ("TruePositives", {"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, "multi"),
    ("Precision", {}, "binary"), ("Precision", {"thresholds": [0.2, 0.6]}, "multi"),
    ("Precision", {"thresholds": [0.0, 0.5, 1.0]}, "multi"), ("Precision", {"top_k": 1}, "categorical"),
    ("Precision", {"top_k": 2, "class_id": 1}, "categorical"), ("Precision", {"class_id": 2}, "multi"),
    ("Recall", {}, "column"), ("Recall", {"thresholds": [0.1, 0.4, 0.8]}, "binary"),
    ("Recall", {"top_k": 2}, "categorical"), ("Recall", {"class_id": 0, "thresholds": 0.7}, "multi"),
    ("SensitivityAtSpecificity", {"specificity": 0.6}, "binary"),
    ("SensitivityAtSpecificity", {"specificity": 0.3, "num_thresholds": 1}, "binary"),
    ("SpecificityAtSensitivity", {"sensitivity": 0.7, "num_thresholds": 50}, "multi"),
    ("PrecisionAtRecall", {"recall": 0.5, "class_id": 1}, "multi"),
    ("RecallAtPrecision", {"precision": 0.6, "num_thresholds": 20}, "binary"),
    ("RecallAtPrecision", {"precision": 1.0}, "column"),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(THRESHOLD_CASES)]


@pytest.mark.parametrize("name,kwargs,kind", THRESHOLD_CASES, ids=IDS)
@pytest.mark.parametrize("weights", [None, "rows", "entries"])
def test_thresholded_metrics(name, kwargs, kind, weights):
    if weights == "entries" and "class_id" in kwargs:
        weights = "rows"  # per-entry weights cannot follow class_id's slice (an error in Keras too)
    same(lambda lib: run_batches(lib, getattr(lib.keras.metrics, name)(**kwargs), _batches(kind, weights)),
         atol=1e-6 if weights is None else WEIGHTED_ATOL)


AUC_CASES = [
    ({}, "binary"), ({"curve": "PR"}, "binary"), ({"curve": "PRGAIN"}, "binary"),
    ({"summation_method": "minoring"}, "multi"), ({"summation_method": "majoring", "curve": "PR"}, "multi"),
    ({"curve": "PRGAIN", "summation_method": "majoring"}, "multi"), ({"num_thresholds": 7}, "binary"),
    ({"num_thresholds": 2, "curve": "pr"}, "binary"), ({"thresholds": [0.3, 0.1, 0.7]}, "binary"),
    ({"thresholds": [0.25, 0.5, 0.75]}, "multi"), ({"multi_label": True}, "multi"),
    ({"multi_label": True, "curve": "PR"}, "multi"), ({"multi_label": True, "label_weights": [0.2, 1.0, 0.5]}, "multi"),
    ({"multi_label": True, "label_weights": [1.0, 0.0, 2.0], "curve": "PR"}, "multi"),
    ({"multi_label": True, "num_labels": 3, "summation_method": "minoring"}, "multi"),
    ({"label_weights": [0.5, 2.0, 1.0]}, "multi"), ({"from_logits": True}, "logits"),
    ({"multi_label": True, "from_logits": True, "thresholds": [0.2, 0.9]}, "logits"),
    ({"name": "my_auc", "curve": "ROC", "summation_method": "Interpolation"}, "column"),
]


@pytest.mark.parametrize("kwargs,kind", AUC_CASES, ids=[str(i) for i in range(len(AUC_CASES))])
@pytest.mark.parametrize("weights", [None, "rows"])
def test_auc(kwargs, kind, weights):
    same(lambda lib: run_batches(lib, lib.keras.metrics.AUC(**kwargs), _batches(kind, weights)), rtol=1e-5,
         atol=1e-6 if weights is None else WEIGHTED_ATOL)


@pytest.mark.parametrize("case", [
    ("AUC", {"multi_label": True}), ("AUC", {"curve": "PR"}), ("Precision", {"thresholds": [0.2, 0.5]}),
    ("Recall", {"top_k": 2}), ("SpecificityAtSensitivity", {"sensitivity": 0.5}),
], ids=str)
def test_thresholded_metrics_in_tf_function(case):
    name, kwargs = case
    kind = "categorical" if "top_k" in kwargs else "multi"
    want = run_batches(REAL, getattr(REAL.keras.metrics, name)(**kwargs), _batches(kind, "rows"))
    got = run_batches(VFW, getattr(VFW.keras.metrics, name)(**kwargs), _batches(kind, "rows"), graph=True)
    assert_same(comparable(want), comparable(got), rtol=1e-5, atol=WEIGHTED_ATOL)


F_SCORE_CASES = [
    ("F1Score", {}), ("F1Score", {"average": "micro"}), ("F1Score", {"average": "macro", "threshold": 0.5}),
    ("F1Score", {"average": "weighted"}), ("FBetaScore", {"beta": 2.0}),
    ("FBetaScore", {"beta": 0.5, "average": "weighted", "threshold": 0.3}),
    ("FBetaScore", {"beta": 1.5, "average": "micro", "threshold": 1.0}),
]


@pytest.mark.parametrize("name,kwargs", F_SCORE_CASES, ids=str)
@pytest.mark.parametrize("kind", ["categorical", "multi"])
@pytest.mark.parametrize("weights", [None, "rows"])
def test_f_scores(name, kwargs, kind, weights):
    same(lambda lib: run_batches(lib, getattr(lib.keras.metrics, name)(**kwargs), _batches(kind, weights)))


def test_f_score_treats_zero_rows_as_no_prediction():
    y_true = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "float32")
    y_pred = np.array([[0.0, 0.0, 0.0], [0.2, 0.7, 0.7], [1e-10, 0.0, 0.0]], "float32")
    same(lambda lib: lib.keras.metrics.F1Score()(y_true, y_pred))


def _segmentation(i, num_classes=4, sparse=True, out_of_range=False):
    r = rng(400 + i)
    y_true = r.integers(0, num_classes, (4, 5))
    y_pred = np.where(r.random((4, 5)) > 0.4, y_true, r.integers(0, num_classes, (4, 5)))
    if out_of_range:
        y_true[0, 0], y_pred[1, 1], y_true[2, 2] = num_classes, -1, -3
    if not sparse:
        return one_hot(y_true, num_classes), r.random((4, 5, num_classes)).astype("float32")
    return y_true.astype("int32"), y_pred.astype("int32")


IOU_CASES = [
    ("IoU", {"num_classes": 4, "target_class_ids": [0, 2]}, {}),
    ("IoU", {"num_classes": 4, "target_class_ids": [1], "ignore_class": 3}, {"out_of_range": True}),
    ("IoU", {"num_classes": 4, "target_class_ids": [3, 1], "sparse_y_true": False, "sparse_y_pred": False},
     {"sparse": False}),
    ("MeanIoU", {"num_classes": 4}, {}), ("MeanIoU", {"num_classes": 4, "ignore_class": 0}, {"out_of_range": True}),
    ("MeanIoU", {"num_classes": 5}, {}), ("MeanIoU", {"num_classes": 4, "dtype": "float32"}, {}),
    ("OneHotIoU", {"num_classes": 4, "target_class_ids": [0, 1]}, {"sparse": False}),
    ("OneHotMeanIoU", {"num_classes": 4}, {"sparse": False}),
]


@pytest.mark.parametrize("name,kwargs,data", IOU_CASES, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_iou(name, kwargs, data, weighted):
    def batches():
        out = []
        for i in range(3):
            y_true, y_pred = _segmentation(i, **data)
            kwargs_ = {"sample_weight": rng(500 + i).integers(0, 3, (4, 5)).astype("int32")} if weighted else {}
            out.append(((y_true, y_pred), kwargs_))
        return out

    same(lambda lib: run_batches(lib, getattr(lib.keras.metrics, name)(**kwargs), batches()))


@pytest.mark.filterwarnings("ignore:You are passing weight as `float`")
@pytest.mark.parametrize("kwargs", [{}, {"target_class_ids": [1], "threshold": 0.3}, {"target_class_ids": [0]}],
                         ids=str)
def test_binary_iou(kwargs):
    def fn(lib):
        out = []
        metric = lib.keras.metrics.BinaryIoU(**kwargs)
        for i in range(3):
            r = rng(600 + i)
            out.append(metric(r.integers(0, 2, (6, 2)), r.random((6, 2)), sample_weight=r.random(12)))
        return [out, metric.get_config()]

    same(fn)


CONFIG_CASES = [(name, kwargs) for name, kwargs, _ in THRESHOLD_CASES] + [
    ("AUC", kwargs) for kwargs, _ in AUC_CASES if "label_weights" not in kwargs] + F_SCORE_CASES + [
    (name, kwargs) for name, kwargs, _ in IOU_CASES] + [("BinaryIoU", {"threshold": 0.2})]


@pytest.mark.parametrize("name,kwargs", CONFIG_CASES, ids=str)
def test_configs(name, kwargs):
    def fn(lib):
        metric = getattr(lib.keras.metrics, name)(**kwargs)
        config = metric.get_config()
        rebuilt = type(metric).from_config(config)
        state = [(v.name, v.path, v.dtype, tuple(v.shape)) for v in metric.variables]
        return [config, rebuilt.get_config(), metric.name, metric.dtype, state, lib.keras.metrics.serialize(metric),
                getattr(metric, "_direction", None)]

    same(fn)


def test_auc_thresholds_property_and_curve_names():
    def fn(lib):
        auc = lib.keras.metrics.AUC(num_thresholds=5, curve="pr", summation_method="minoring")
        explicit = lib.keras.metrics.AUC(thresholds=[0.6, 0.2])
        return [auc.thresholds, auc.get_config()["curve"], auc.get_config()["summation_method"],
                explicit.thresholds, explicit.num_thresholds, explicit.get_config()["thresholds"]]

    same(fn)


@pytest.mark.parametrize("case", [
    lambda lib: lib.keras.metrics.AUC(num_thresholds=1),
    lambda lib: lib.keras.metrics.AUC(curve="ROCK"),
    lambda lib: lib.keras.metrics.AUC(summation_method="trapezoid"),
    lambda lib: lib.keras.metrics.AUC(num_labels=3),
    lambda lib: lib.keras.metrics.AUC(multi_label=True).update_state(np.ones(4), np.ones(4) / 2),
    lambda lib: lib.keras.metrics.Precision(thresholds=[0.5, 1.5]),
    lambda lib: lib.keras.metrics.Recall(thresholds=-0.1),
    lambda lib: lib.keras.metrics.Precision(class_id=1).update_state(np.ones(4), np.ones(4) / 2),
    lambda lib: lib.keras.metrics.SensitivityAtSpecificity(1.5),
    lambda lib: lib.keras.metrics.SpecificityAtSensitivity(-0.5),
    lambda lib: lib.keras.metrics.PrecisionAtRecall(0.5, num_thresholds=0),
    lambda lib: lib.keras.metrics.RecallAtPrecision(2.0),
    lambda lib: lib.keras.metrics.F1Score(average="median"),
    lambda lib: lib.keras.metrics.FBetaScore(beta=1),
    lambda lib: lib.keras.metrics.FBetaScore(beta=-1.0),
    lambda lib: lib.keras.metrics.F1Score(threshold=1),
    lambda lib: lib.keras.metrics.F1Score(threshold=1.5),
    lambda lib: lib.keras.metrics.F1Score().update_state(np.ones(3), np.ones(3)),
    lambda lib: lib.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 3]),
], ids=range(19))
def test_errors(case):
    same(case)


def test_error_messages():
    same(lambda lib: lib.keras.metrics.Precision(thresholds=[0.5, 1.5]),
         message="Threshold values must be in [0, 1]. Received: [1.5]")
    same(lambda lib: lib.keras.metrics.AUC(curve="ROCK"), message='Invalid AUC curve value: "ROCK"')
    same(lambda lib: lib.keras.metrics.IoU(num_classes=3, target_class_ids=[0, 3]),
         message="Target class id 3 is out of range, which is [0, 3).")
    same(lambda lib: lib.keras.metrics.SensitivityAtSpecificity(1.5),
         message="Argument `specificity` must be in the range [0, 1]. Received: specificity=1.5")


@pytest.mark.parametrize("lib", [REAL, VFW], ids=lambda lib: lib.name)
def test_iou_warns_for_float_weights_with_an_int_dtype(lib):
    metric = lib.keras.metrics.MeanIoU(num_classes=2)
    with pytest.warns(UserWarning, match="You are passing weight as `float`, but dtype is `int`"):
        metric.update_state(lib.tf.constant([0, 1]), lib.tf.constant([0, 0]), sample_weight=lib.tf.constant([1., 2.]))
