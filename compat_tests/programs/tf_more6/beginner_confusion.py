"""The TF "beginner quickstart" shrunk, with the evaluation a Kaggle notebook adds: Sequential Flatten/Dense/Dropout
on synthetic 8x8 "digits", SparseCategoricalCrossentropy(from_logits=True) called on the untrained logits,
tf.nn.softmax of them, evaluate(return_dict=True), a probability model wrapping the trained one with a Softmax
layer, predict on a batched tf.data dataset, np.argmax, tf.math.confusion_matrix (plain and weighted),
per-class precision/recall from it, and keras Precision/Recall(class_id)/F1Score metrics on one-hot labels."""

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(71)
    rng = np.random.default_rng(71)
    labels = rng.integers(0, 4, 200)
    centers = rng.normal(size=(4, 8, 8)).astype(np.float32)
    images = (centers[labels] + 0.8 * rng.normal(size=(200, 8, 8))).astype(np.float32)
    x_train, y_train, x_test, y_test = images[:160], labels[:160], images[160:], labels[160:]

    model = tf.keras.models.Sequential([
        tf.keras.layers.Flatten(input_shape=(8, 8)),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(4),
    ])
    predictions = model(x_train[:1]).numpy()
    values = [float(v) for v in tf.nn.softmax(predictions).numpy().ravel()]
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    values.append(float(loss_fn(y_train[:1], predictions).numpy()))

    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
    history = model.fit(x_train, y_train, epochs=2, batch_size=32, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    results = model.evaluate(x_test, y_test, verbose=0, return_dict=True)
    values += [str(sorted(results)), results["loss"], results["accuracy"]]

    probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    test_ds = tf.data.Dataset.from_tensor_slices(x_test).batch(16)
    probabilities = probability_model.predict(test_ds, verbose=0)
    predicted = np.argmax(probabilities, axis=1)
    values += [str(probabilities.shape), str(predicted.tolist())]

    matrix = tf.math.confusion_matrix(y_test, predicted, num_classes=4)
    weighted = tf.math.confusion_matrix(y_test, predicted, num_classes=4, weights=np.linspace(0.5, 1.5, 40),
                                        dtype=tf.float32)
    values += [str(matrix.numpy().tolist()), str(matrix.dtype), str(weighted.dtype)]
    values += [float(v) for v in weighted.numpy().ravel()]
    diagonal = tf.linalg.diag_part(tf.cast(matrix, tf.float32))
    precision = diagonal / tf.maximum(tf.reduce_sum(tf.cast(matrix, tf.float32), axis=0), 1.0)
    recall = diagonal / tf.maximum(tf.reduce_sum(tf.cast(matrix, tf.float32), axis=1), 1.0)
    values += [float(v) for v in precision.numpy()] + [float(v) for v in recall.numpy()]

    one_hot = tf.keras.utils.to_categorical(y_test, num_classes=4)
    metrics = [tf.keras.metrics.Precision(class_id=1), tf.keras.metrics.Recall(class_id=2),
               tf.keras.metrics.F1Score(average="macro", threshold=0.5), tf.keras.metrics.CategoricalAccuracy()]
    for metric in metrics:
        metric.update_state(one_hot, probabilities)
        values.append(float(metric.result()))
    values.append(str(one_hot.dtype))
    return values


if __name__ == "__main__":
    print(main())
