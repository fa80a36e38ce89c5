"""Keras losses and metrics used by hand, as in evaluation notebooks: loss objects with reduction="sum", "none",
"sum_over_batch_size" and "mean_with_sample_weight", called with sample_weight (a vector and a column); Huber,
LogCosh, Poisson, KLDivergence, CosineSimilarity, CategoricalFocalCrossentropy, BinaryFocalCrossentropy with
label_smoothing, Dice and Tversky; metrics AUC (ROC and PR, num_thresholds, multi_label), Precision/Recall at
thresholds and top_k, PrecisionAtRecall, SensitivityAtSpecificity, F1Score (macro/micro/weighted, threshold),
FBetaScore, MeanIoU, IoU and OneHotIoU, R2Score, updated in batches with sample weights, reset_state and reused."""

import keras
import numpy as np


def main():
    rng = np.random.default_rng(314)
    y_reg = rng.normal(size=(6, 3)).astype("float32")
    p_reg = (y_reg + rng.normal(size=(6, 3)) * 0.7).astype("float32")
    w_sample = np.array([1.0, 0.5, 0.0, 2.0, 1.0, 0.25], "float32")
    w_col = rng.uniform(0, 1, size=(6, 1)).astype("float32")
    values = []
    for reduction in ("sum", "none", "sum_over_batch_size", "mean_with_sample_weight", None):
        for loss in (keras.losses.Huber(delta=0.5, reduction=reduction), keras.losses.LogCosh(reduction=reduction),
                     keras.losses.MeanSquaredError(reduction=reduction),
                     keras.losses.CosineSimilarity(axis=-1, reduction=reduction)):
            for weight in (None, w_sample, w_col):
                out = np.asarray(loss(y_reg, p_reg, sample_weight=weight))
                values += [float(v) for v in out.ravel()[:6]]
    pos = np.abs(y_reg) + 0.1
    values += [float(keras.losses.Poisson()(pos, np.abs(p_reg) + 0.1)),
               float(keras.losses.KLDivergence(reduction="sum")(pos / pos.sum(1, keepdims=True),
                                                                 (np.abs(p_reg) + 0.1) / 3.0))]

    labels = rng.integers(0, 3, size=8)
    onehot = np.eye(3, dtype="float32")[labels]
    probs = rng.dirichlet(np.ones(3), size=8).astype("float32")
    values += [float(keras.losses.CategoricalFocalCrossentropy(alpha=0.25, gamma=2.0)(onehot, probs)),
               float(keras.losses.CategoricalFocalCrossentropy(label_smoothing=0.1, reduction="sum")(onehot, probs))]
    binary = (rng.uniform(size=(8, 1)) > 0.5).astype("float32")
    scores = rng.uniform(0.05, 0.95, size=(8, 1)).astype("float32")
    values += [float(keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, gamma=1.5,
                                                          label_smoothing=0.05)(binary, scores)),
               float(keras.losses.Dice()(binary, scores)), float(keras.losses.Tversky(alpha=0.7, beta=0.3)(binary,
                                                                                                          scores))]

    y_true = (rng.uniform(size=40) > 0.55).astype("float32")
    y_score = np.clip(y_true * 0.35 + rng.uniform(size=40) * 0.65, 0, 1).astype("float32")
    weights = rng.uniform(0.2, 1.5, size=40).astype("float32")
    metrics = [keras.metrics.AUC(num_thresholds=50), keras.metrics.AUC(curve="PR", summation_method="minoring"),
               keras.metrics.Precision(thresholds=[0.3, 0.5, 0.7]), keras.metrics.Recall(thresholds=0.6),
               keras.metrics.PrecisionAtRecall(0.5), keras.metrics.SensitivityAtSpecificity(0.7),
               keras.metrics.SpecificityAtSensitivity(0.6, num_thresholds=30), keras.metrics.RecallAtPrecision(0.6),
               keras.metrics.TruePositives(thresholds=[0.2, 0.8]), keras.metrics.BinaryAccuracy(threshold=0.4)]
    for metric in metrics:
        for start in range(0, 40, 10):
            metric.update_state(y_true[start:start + 10], y_score[start:start + 10],
                                sample_weight=weights[start:start + 10])
        values += [float(v) for v in np.ravel(metric.result())]
        metric.reset_state()
        metric.update_state(y_true[:20], y_score[:20])
        values += [float(v) for v in np.ravel(metric.result())]

    multi_true = (rng.uniform(size=(12, 3)) > 0.5).astype("float32")
    multi_score = rng.uniform(size=(12, 3)).astype("float32")
    auc = keras.metrics.AUC(multi_label=True, num_labels=3)
    auc.update_state(multi_true, multi_score)
    values.append(float(auc.result()))
    topk = keras.metrics.Precision(top_k=2)
    topk.update_state(multi_true, multi_score)
    values.append(float(topk.result()))
    for average in ("macro", "micro", "weighted", None):
        f1 = keras.metrics.F1Score(average=average, threshold=0.5)
        f1.update_state(multi_true, multi_score)
        values += [float(v) for v in np.ravel(f1.result())]
    fb = keras.metrics.FBetaScore(average="macro", beta=2.0)
    fb.update_state(onehot, probs)
    values.append(float(fb.result()))

    seg_true = rng.integers(0, 3, size=(2, 4, 4))
    seg_pred = rng.integers(0, 3, size=(2, 4, 4))
    miou = keras.metrics.MeanIoU(num_classes=3)
    miou.update_state(seg_true, seg_pred, sample_weight=(seg_true > 0).astype("float32"))
    values += [float(miou.result())] + [float(v) for v in np.ravel(miou.total_cm)]
    iou = keras.metrics.IoU(num_classes=3, target_class_ids=[0, 2])
    iou.update_state(seg_true, seg_pred)
    values.append(float(iou.result()))
    oh = keras.metrics.OneHotMeanIoU(num_classes=3)
    oh.update_state(onehot, probs)
    values.append(float(oh.result()))
    r2 = keras.metrics.R2Score(class_aggregation="variance_weighted_average")
    r2.update_state(y_reg, p_reg, sample_weight=w_sample[:, None])
    values.append(float(r2.result()))
    r2b = keras.metrics.R2Score(num_regressors=1, class_aggregation=None)
    r2b.update_state(y_reg, p_reg)
    values += [float(v) for v in np.ravel(r2b.result())]
    return values
