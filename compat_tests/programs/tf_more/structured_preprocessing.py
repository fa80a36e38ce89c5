"""Structured data as in the Keras "structured data classification" example: Normalization.adapt on numeric
features, IntegerLookup + CategoryEncoding on an integer feature, Discretization, kernel/activity regularizers and a
MaxNorm constraint, Precision/Recall/AUC metrics, train_on_batch/test_on_batch/predict_on_batch."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(26)
    rng = np.random.default_rng(26)
    numeric = (rng.standard_normal((150, 3)) * [1.0, 10.0, 100.0] + [0.0, 50.0, -20.0]).astype(np.float32)
    category = rng.choice([3, 7, 11, 42], 150)
    age = rng.uniform(18, 80, (150, 1)).astype(np.float32)
    label = ((numeric[:, 1] > 50) ^ (category == 7)).astype(np.float32)[:, None]

    normalizer = keras.layers.Normalization()
    normalizer.adapt(numeric)
    lookup = keras.layers.IntegerLookup(output_mode="int")
    lookup.adapt(category)
    bins = keras.layers.Discretization(num_bins=4)
    bins.adapt(age)
    numeric_input = keras.Input((3,), name="numeric")
    category_input = keras.Input((1,), name="category", dtype="int64")
    age_input = keras.Input((1,), name="age")
    encoded = keras.layers.CategoryEncoding(num_tokens=lookup.vocabulary_size(), output_mode="one_hot")(
        lookup(category_input))
    age_bucket = keras.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")(bins(age_input))
    features = keras.layers.Concatenate()([normalizer(numeric_input), encoded, age_bucket])
    hidden = keras.layers.Dense(16, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-3),
                                activity_regularizer=keras.regularizers.L1(1e-4),
                                kernel_constraint=keras.constraints.MaxNorm(2.0))(features)
    output = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Dropout(0.2)(hidden))
    model = keras.Model([numeric_input, category_input, age_input], output)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy",
                  metrics=[keras.metrics.Precision(name="precision"), keras.metrics.Recall(name="recall"),
                           keras.metrics.AUC(name="auc")])
    inputs = {"numeric": numeric, "category": category[:, None], "age": age}
    history = model.fit(inputs, label, batch_size=30, epochs=3, verbose=0)
    values = [v for key in ("loss", "precision", "recall", "auc") for v in history.history[key]]
    values += [float(v) for v in np.asarray(normalizer.mean).ravel()] + [float(v) for v in
                                                                        np.asarray(normalizer.variance).ravel()]
    values += [float(v) for v in lookup.get_vocabulary()] + [float(v) for v in bins.bin_boundaries]
    batch = {key: value[:30] for key, value in inputs.items()}
    values += [float(v) for v in np.ravel(model.train_on_batch(batch, label[:30]))]
    values += [float(v) for v in np.ravel(model.test_on_batch(batch, label[:30]))]
    values += [float(model.predict_on_batch(batch).sum()), float(len(model.losses)),
               float(np.linalg.norm(model.layers[-3].kernel.numpy(), axis=0).max())]
    return values


if __name__ == "__main__":
    print(main())
