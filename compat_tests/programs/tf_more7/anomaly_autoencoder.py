"""The TF "intro to autoencoders" anomaly-detection part on synthetic ECG-like rhythms: min-max scaling with
tf.reduce_min/max over the training split, boolean label masks selecting normal and anomalous rows, a subclassed
AnomalyDetector model with Sequential encoder/decoder, fit on normal rhythms only with validation on all of them,
reconstruction errors from tf.keras.losses.mae, a threshold from np.mean + np.std and another from np.percentile,
predictions with tf.math.less and precision/recall/accuracy computed by hand and by keras metrics."""

import numpy as np
import tensorflow as tf


class AnomalyDetector(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"),
                                            tf.keras.layers.Dense(8, activation="relu"),
                                            tf.keras.layers.Dense(4, activation="relu")])
        self.decoder = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"),
                                            tf.keras.layers.Dense(16, activation="relu"),
                                            tf.keras.layers.Dense(24, activation="sigmoid")])

    def call(self, x):
        return self.decoder(self.encoder(x))


def main():
    tf.keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    t = np.linspace(0, 2 * np.pi, 24)
    normal = np.sin(t)[None] + 0.1 * rng.normal(size=(90, 24))
    anomalous = np.sin(2 * t + 1)[None] * 1.5 + 0.3 * rng.normal(size=(30, 24))
    data = np.concatenate([normal, anomalous]).astype(np.float32)
    labels = np.concatenate([np.ones(90), np.zeros(30)]).astype(bool)
    order = rng.permutation(120)
    data, labels = data[order], labels[order]
    train_data, test_data = data[:90], data[90:]
    train_labels, test_labels = labels[:90], labels[90:]

    min_val, max_val = tf.reduce_min(train_data), tf.reduce_max(train_data)
    train_data = (train_data - min_val) / (max_val - min_val)
    test_data = (test_data - min_val) / (max_val - min_val)
    train_data, test_data = tf.cast(train_data, tf.float32), tf.cast(test_data, tf.float32)
    normal_train = train_data[train_labels]
    anomalous_test = test_data[~test_labels]
    values = [str(normal_train.shape), str(anomalous_test.shape), float(min_val), float(max_val)]

    autoencoder = AnomalyDetector()
    autoencoder.compile(optimizer="adam", loss="mae")
    history = autoencoder.fit(normal_train, normal_train, epochs=2, batch_size=16,
                              validation_data=(test_data, test_data), shuffle=True, verbose=0)
    values += history.history["loss"] + history.history["val_loss"]

    reconstructions = autoencoder.predict(normal_train, verbose=0)
    train_loss = tf.keras.losses.mae(reconstructions, normal_train)
    threshold = np.mean(train_loss) + np.std(train_loss)
    percentile_threshold = np.percentile(train_loss.numpy(), 95)
    values += [float(threshold), float(percentile_threshold), str(train_loss.dtype), str(train_loss.shape)]

    def predict(model, data, threshold):
        reconstructed = model(data)
        loss = tf.keras.losses.mae(reconstructed, data)
        return tf.math.less(loss, threshold)

    for cut in (threshold, percentile_threshold):
        preds = predict(autoencoder, test_data, cut)
        correct = np.asarray(preds) == test_labels
        true_positive = np.sum(np.asarray(preds) & test_labels)
        values += [str(preds.dtype), float(np.mean(correct)),
                   float(true_positive / max(np.sum(preds), 1)), float(true_positive / np.sum(test_labels))]
        metric = tf.keras.metrics.Precision()
        metric.update_state(test_labels, preds)
        recall = tf.keras.metrics.Recall()
        recall.update_state(test_labels, preds)
        values += [float(metric.result()), float(recall.result())]
    encoded = autoencoder.encoder(anomalous_test).numpy()
    values += [float(v) for v in encoded.mean(axis=0)]
    return values


if __name__ == "__main__":
    print(main())
