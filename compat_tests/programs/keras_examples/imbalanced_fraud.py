"""The keras.io example "Imbalanced classification: credit card fraud detection", shrunk: features normalized with
their training mean and standard deviation, a Dense/Dropout binary classifier, class_weight from the inverse
class counts, confusion metrics (FalseNegatives, FalsePositives, TrueNegatives, TruePositives, Precision, Recall)
with validation_data; then a "Keras debugging tips" style rerun: a layer recording the shapes its call sees,
compiled with run_eagerly=True, and a callback reading the metrics' results at each epoch end."""

import keras
import numpy as np


class ShapeRecorder(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, inputs):
        self.seen.append(tuple(keras.ops.shape(inputs))[1:])
        return inputs


class MetricsAtEpochEnd(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.results = []

    def on_epoch_end(self, epoch, logs=None):
        self.results += [float(logs[name]) for name in sorted(logs)]


def make_model(train_features, recorder=None):
    layer_list = [keras.Input(shape=train_features.shape[1:])]
    if recorder is not None:
        layer_list.append(recorder)
    layer_list += [keras.layers.Dense(16, activation="relu"), keras.layers.Dense(16, activation="relu"),
                   keras.layers.Dropout(0.3), keras.layers.Dense(1, activation="sigmoid")]
    return keras.Sequential(layer_list)


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    features = rng.normal(size=(60, 5)).astype("float32") * np.array([1, 10, 100, 0.1, 1], dtype="float32")
    targets = (features[:, 0] + rng.normal(size=60).astype("float32") > 1.2).astype("uint8")[:, None]
    num_val_samples = 12
    train_features, val_features = features[:-num_val_samples], features[-num_val_samples:]
    train_targets, val_targets = targets[:-num_val_samples], targets[-num_val_samples:]
    counts = np.bincount(train_targets[:, 0])
    values = [str(counts.tolist()), float(100 * float(counts[1]) / len(train_targets))]

    mean = np.mean(train_features, axis=0)
    train_features -= mean
    val_features -= mean
    std = np.std(train_features, axis=0)
    train_features /= std
    val_features /= std

    model = make_model(train_features)
    metrics = [keras.metrics.FalseNegatives(name="fn"), keras.metrics.FalsePositives(name="fp"),
               keras.metrics.TrueNegatives(name="tn"), keras.metrics.TruePositives(name="tp"),
               keras.metrics.Precision(name="precision"), keras.metrics.Recall(name="recall")]
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=metrics)
    weight_for_0 = 1.0 / counts[0]
    weight_for_1 = 1.0 / counts[1]
    class_weight = {0: weight_for_0, 1: weight_for_1}
    history = model.fit(train_features, train_targets, batch_size=16, epochs=2, verbose=0,
                        validation_data=(val_features, val_targets), class_weight=class_weight)
    values.append(str(sorted(history.history)))
    for key in sorted(history.history):
        values += history.history[key]

    keras.utils.set_random_seed(31)
    recorder = ShapeRecorder()
    debug_model = make_model(train_features, recorder)
    debug_model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy",
                        metrics=[keras.metrics.Precision(name="precision"), keras.metrics.Recall(name="recall")],
                        run_eagerly=True)
    at_epoch_end = MetricsAtEpochEnd()
    debug_model.fit(train_features, train_targets, batch_size=16, epochs=2, verbose=0, class_weight=class_weight,
                    callbacks=[at_epoch_end])
    values += at_epoch_end.results + [str(sorted(set(recorder.seen))), len(recorder.seen) > 0]
    values += debug_model.predict(val_features[:4], verbose=0).ravel().tolist()
    return values


if __name__ == "__main__":
    print(main())
