"""A Functional model with two named inputs and two named outputs (a priority score and a department class), as in
the Keras guide: Concatenate, dict losses, loss_weights and metrics, dict data, and per-output history entries."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(12)
    rng = np.random.default_rng(12)
    title = rng.standard_normal((120, 12)).astype(np.float32)
    body = rng.standard_normal((120, 20)).astype(np.float32)
    priority = (title[:, :2].sum(1, keepdims=True) > 0).astype(np.float32)
    department = (np.abs(body[:, :3]).argmax(1)).astype(np.int64)

    title_input = keras.Input(shape=(12,), name="title")
    body_input = keras.Input(shape=(20,), name="body")
    title_features = keras.layers.Dense(16, activation="relu")(title_input)
    body_features = keras.layers.Dense(16, activation="relu")(body_input)
    x = keras.layers.concatenate([title_features, body_features])
    x = keras.layers.BatchNormalization()(x)
    priority_pred = keras.layers.Dense(1, activation="sigmoid", name="priority")(x)
    department_pred = keras.layers.Dense(3, name="department")(x)
    model = keras.Model(inputs=[title_input, body_input], outputs={"priority": priority_pred,
                                                                  "department": department_pred})
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={"priority": keras.losses.BinaryCrossentropy(),
              "department": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
        loss_weights={"priority": 1.0, "department": 0.2},
        metrics={"priority": ["binary_accuracy"], "department": [keras.metrics.SparseCategoricalAccuracy()]},
    )
    history = model.fit({"title": title, "body": body}, {"priority": priority, "department": department},
                        epochs=3, batch_size=32, verbose=0)
    values = []
    for key in sorted(history.history):
        values += history.history[key]
    results = model.evaluate({"title": title, "body": body}, {"priority": priority, "department": department},
                             verbose=0, return_dict=True)
    values += [results[key] for key in sorted(results)]
    predictions = model.predict({"title": title[:5], "body": body[:5]}, verbose=0)
    values += [float(predictions["priority"].sum()), float(predictions["department"].sum()),
               float(len(history.history))]
    return values


if __name__ == "__main__":
    print(main())
