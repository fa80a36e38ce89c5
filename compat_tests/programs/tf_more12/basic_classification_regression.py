"""The tensorflow.org beginner tutorials "Basic classification" and "Basic regression", shrunken: a Flatten/Dense
classifier on tiny synthetic 8x8 "images", a probability_model = Sequential([model, Softmax()]) and np.argmax of
its predictions; then a Normalization layer adapted on a numpy feature table, a one-feature linear model per column
(two of them) evaluated with model.evaluate, and a DNN regressor on all features with validation_split."""

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    values = []
    train_images = rng.uniform(0, 255, size=(48, 8, 8)).astype("uint8")
    train_labels = (train_images.reshape(48, -1).mean(axis=1) > 127).astype("uint8") + \
        (train_images[:, 0, 0] > 200).astype("uint8")
    train_images = train_images / 255.0
    values += [str(train_images.shape), str(train_images.dtype), len(train_labels)]

    model = tf.keras.Sequential([
        tf.keras.layers.Flatten(input_shape=(8, 8)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(3),
    ])
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(train_images, train_labels, epochs=2, batch_size=24, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    test_loss, test_acc = model.evaluate(train_images[:16], train_labels[:16], verbose=0)
    values += [test_loss, test_acc]

    probability_model = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    predictions = probability_model.predict(train_images[:5], verbose=0)
    values += [str(predictions.shape), str(type(predictions).__name__), int(np.argmax(predictions[0]))]
    values += [float(v) for v in predictions[0]]
    img = np.expand_dims(train_images[1], 0)
    values += [str(img.shape), str(probability_model.predict(img, verbose=0).shape)]
    values += [str([layer.__class__.__name__ for layer in probability_model.layers])]

    # "Basic regression": MPG-like table without pandas
    features = rng.normal(loc=[5.0, 150.0, 100.0, 3000.0], scale=[1.5, 50.0, 30.0, 500.0], size=(64, 4))
    features = features.astype("float32")
    labels = (40 - 0.1 * features[:, 2] - 0.002 * features[:, 3] + rng.normal(size=64)).astype("float32")
    normalizer = tf.keras.layers.Normalization(axis=-1)
    normalizer.adapt(np.array(features))
    values += [float(v) for v in normalizer.mean.numpy().ravel()]
    values += [float(v) for v in normalizer.variance.numpy().ravel()]
    first = np.array(features[:1])
    values += [str(normalizer(first).numpy().shape)] + [float(v) for v in normalizer(first).numpy().ravel()]

    test_results = {}
    for column, name in [(2, "Horsepower"), (3, "Weight")]:
        feature = np.array(features[:, column])
        feature_normalizer = tf.keras.layers.Normalization(input_shape=[1, ], axis=None)
        feature_normalizer.adapt(feature)
        linear = tf.keras.Sequential([feature_normalizer, tf.keras.layers.Dense(units=1)])
        linear.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.1), loss="mean_absolute_error")
        linear.fit(feature, labels, epochs=1, batch_size=32, verbose=0)
        test_results[name] = linear.evaluate(feature[:16], labels[:16], verbose=0)
    values += [str(sorted(test_results))] + [test_results[k] for k in sorted(test_results)]

    dnn = tf.keras.Sequential([normalizer, tf.keras.layers.Dense(16, activation="relu"),
                               tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)])
    dnn.compile(loss="mean_absolute_error", optimizer=tf.keras.optimizers.Adam(0.001))
    history = dnn.fit(features, labels, validation_split=0.25, verbose=0, epochs=1, batch_size=24)
    values += sorted(history.history) + history.history["loss"] + history.history["val_loss"]
    values += [float(v) for v in dnn.predict(features[:3], verbose=0).flatten()]
    return values
