"""A multi-label tagging model scored as Kaggle competitions score it: F1Score/FBetaScore with micro, macro,
weighted and per-class averages and a threshold, Dice and Tversky losses next to binary focal crossentropy,
BinaryIoU, PrecisionAtRecall, R2Score on a regression head, compile with a dict of losses and loss_weights for a
two-output model, evaluate(return_dict=True), and the metrics' get_config/result/reset_state by hand."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(33)
    rng = np.random.default_rng(33)
    values = []
    y_true = (rng.random((10, 4)) > 0.6).astype("float32")
    y_pred = rng.random((10, 4)).astype("float32")
    for average in (None, "micro", "macro", "weighted"):
        f1 = keras.metrics.F1Score(average=average, threshold=0.5)
        f1.update_state(y_true, y_pred)
        values += [float(v) for v in np.ravel(f1.result())]
    fbeta = keras.metrics.FBetaScore(average="macro", beta=2.0)
    fbeta.update_state(y_true[:, :3], keras.ops.softmax(y_pred[:, :3]))
    values += [float(fbeta.result()), str(sorted(fbeta.get_config().items()))]
    fbeta.reset_state()
    values += [float(fbeta.result())]

    for loss in (keras.losses.Dice(), keras.losses.Tversky(alpha=0.3, beta=0.7),
                 keras.losses.BinaryFocalCrossentropy(gamma=2.0, apply_class_balancing=True, alpha=0.3),
                 keras.losses.Dice(reduction="sum", axis=1)):
        values += [float(loss(y_true, y_pred))]
    iou = keras.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.4)
    iou.update_state(y_true, y_pred)
    par = keras.metrics.PrecisionAtRecall(0.5)
    par.update_state(y_true.ravel(), y_pred.ravel())
    values += [float(iou.result()), float(par.result())]

    x = rng.normal(size=(64, 8)).astype("float32")
    tags = (x[:, :4] + 0.3 * rng.normal(size=(64, 4)) > 0.2).astype("float32")
    score = (x[:, 4:] @ np.array([1.0, -0.5, 0.25, 2.0], "float32"))[:, None]
    inputs = keras.Input((8,))
    hidden = keras.layers.Dense(16, activation="relu")(inputs)
    tag_out = keras.layers.Dense(4, activation="sigmoid", name="tags")(hidden)
    score_out = keras.layers.Dense(1, name="score")(hidden)
    model = keras.Model(inputs, {"tags": tag_out, "score": score_out})
    model.compile(optimizer=keras.optimizers.Adam(0.02),
                  loss={"tags": keras.losses.Dice(), "score": "mse"}, loss_weights={"tags": 2.0, "score": 0.1},
                  metrics={"tags": [keras.metrics.F1Score(average="micro", threshold=0.5, name="f1")],
                           "score": [keras.metrics.R2Score(name="r2")]})
    history = model.fit(x, {"tags": tags, "score": score}, batch_size=16, epochs=3, verbose=0,
                        validation_split=0.25, shuffle=False)
    for key in sorted(history.history):
        values += [key] + [float(v) for v in history.history[key]]
    result = model.evaluate(x, {"tags": tags, "score": score}, verbose=0, return_dict=True)
    values += [str(sorted(result))] + [float(result[k]) for k in sorted(result)]
    return values
