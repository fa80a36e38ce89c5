"""Keras metrics and losses used by hand, as evaluation notebooks and Stack Overflow answers do: AUC (ROC and PR,
num_thresholds, multi_label), Precision/Recall at several thresholds and top_k, PrecisionAtRecall,
SensitivityAtSpecificity, MeanIoU, F1Score, updated batch by batch with update_state (sample_weight), read with result
and cleared with reset_state; losses with every reduction option ("sum", "none", "sum_over_batch_size", None) and
sample_weight, keras.utils.to_categorical / pad_sequences (padding, truncating, value, maxlen), and a short training
loop of a bag-of-embeddings classifier on the padded sequences that feeds the same metric objects."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


def metric_values(metric):
    result = metric.result()
    if isinstance(result, dict):
        return [float(np.sum(v)) for v in result.values()]
    return np.ravel(np.asarray(result, np.float64)).tolist()


def main():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    values = []
    y_true = (rng.uniform(size=(20, 1)) > 0.5).astype(np.float32)
    y_score = np.clip(0.6 * y_true + 0.5 * rng.uniform(size=(20, 1)), 0, 1).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, size=(20,)).astype(np.float32)

    metrics = [keras.metrics.AUC(num_thresholds=50), keras.metrics.AUC(curve="PR", summation_method="minoring"),
               keras.metrics.Precision(thresholds=[0.3, 0.5, 0.7]), keras.metrics.Recall(thresholds=0.6),
               keras.metrics.PrecisionAtRecall(0.8), keras.metrics.SensitivityAtSpecificity(0.5),
               keras.metrics.BinaryAccuracy(threshold=0.4), keras.metrics.FalseNegatives(thresholds=[0.2, 0.8])]
    for metric in metrics:
        for start in range(0, 20, 10):
            metric.update_state(y_true[start:start + 10], y_score[start:start + 10],
                                sample_weight=weights[start:start + 10])
            values += metric_values(metric)
        metric.reset_state()
        metric.update_state(y_true[:5], y_score[:5])
        values += metric_values(metric) + [metric.name]

    labels = rng.integers(0, 4, size=12)
    probs = rng.dirichlet(np.ones(4), size=12).astype(np.float32)
    onehot = keras.utils.to_categorical(labels, num_classes=4)
    values += [str(onehot.dtype), str(onehot.shape)]
    multi = keras.metrics.AUC(multi_label=True, num_labels=4, num_thresholds=20)
    multi.update_state(onehot, probs)
    values += metric_values(multi)
    top2 = keras.metrics.Precision(top_k=2)
    top2.update_state(onehot, probs)
    values += metric_values(top2)
    iou = keras.metrics.MeanIoU(num_classes=4)
    iou.update_state(labels, np.argmax(probs, axis=1))
    values += metric_values(iou)
    f1 = keras.metrics.F1Score(average="macro", threshold=0.3)
    f1.update_state(onehot, probs)
    values += metric_values(f1)

    for reduction in ("sum", "none", "sum_over_batch_size", None):
        for loss in (keras.losses.CategoricalCrossentropy(reduction=reduction, label_smoothing=0.1),
                     keras.losses.Huber(delta=0.5, reduction=reduction),
                     keras.losses.SparseCategoricalCrossentropy(reduction=reduction)):
            target = labels if isinstance(loss, keras.losses.SparseCategoricalCrossentropy) else onehot
            out = loss(target, probs, sample_weight=weights[:12])
            values += np.ravel(np.asarray(out, np.float64)).tolist() + [str(tuple(np.shape(out)))]

    sequences = [list(rng.integers(1, 20, size=n)) for n in rng.integers(2, 9, size=16)]
    padded = keras.utils.pad_sequences(sequences, maxlen=6, padding="post", truncating="pre", value=0)
    front = keras.utils.pad_sequences(sequences, maxlen=5, dtype="float32", value=-1.0)
    values += padded[:3].ravel().tolist() + front[:2].ravel().tolist() + [str(padded.dtype), str(front.dtype)]
    targets = np.array([float(sum(s) % 2) for s in sequences], np.float32)[:, None]

    model = keras.Sequential([keras.Input((6,), dtype="int32"), layers.Embedding(20, 4),
                              layers.GlobalAveragePooling1D(), layers.Dense(1, activation="sigmoid")])
    optimizer = keras.optimizers.Adam(0.05)
    loss_fn = keras.losses.BinaryCrossentropy(reduction="sum")
    auc, recall = keras.metrics.AUC(num_thresholds=10), keras.metrics.Recall(thresholds=[0.4, 0.6])
    for _ in range(2):
        for start in range(0, 16, 8):
            xb, yb = padded[start:start + 8], targets[start:start + 8]
            with tf.GradientTape() as tape:
                pred = model(xb, training=True)
                loss = loss_fn(yb, pred, sample_weight=weights[start:start + 8])
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            auc.update_state(yb, pred)
            recall.update_state(yb, pred)
            values.append(float(loss))
        values += metric_values(auc) + metric_values(recall)
        auc.reset_state()
        recall.reset_state()
    values += [str(v.path) for v in auc.variables] + auc.variables[0].numpy()[:3].tolist()
    return values
