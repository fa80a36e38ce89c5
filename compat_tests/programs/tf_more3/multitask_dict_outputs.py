"""A multi-task functional model with an auxiliary output on the trunk (as in the Keras functional API guide):
dict outputs (a regression head, a 4-class head and a binary auxiliary head), loss_weights, per-output lists of
metrics (named and object metrics), fit with dict targets and validation data, evaluate(return_dict=True),
predict returning a dict, train_on_batch / test_on_batch / predict_on_batch, and the metrics_names order."""

import keras
import numpy as np
from keras import layers


def main():
    keras.utils.set_random_seed(50)
    rng = np.random.default_rng(50)
    features = rng.normal(size=(120, 10)).astype(np.float32)
    side = rng.normal(size=(120, 3)).astype(np.float32)
    price = (features[:, :2].sum(1, keepdims=True) + side[:, :1]).astype(np.float32)
    kind = np.argmax(features[:, 2:6], axis=1)
    flag = (features[:, 6] > 0).astype(np.float32)[:, None]

    main_input = keras.Input(shape=(10,), name="features")
    side_input = keras.Input(shape=(3,), name="side")
    trunk = layers.Dense(16, activation="relu", name="trunk")(main_input)
    aux = layers.Dense(1, activation="sigmoid", name="flag")(trunk)
    merged = layers.concatenate([trunk, side_input])
    merged = layers.Dense(12, activation="elu")(merged)
    price_out = layers.Dense(1, name="price")(merged)
    kind_out = layers.Dense(4, activation="softmax", name="kind")(merged)
    model = keras.Model(inputs=[main_input, side_input], outputs={"price": price_out, "kind": kind_out, "flag": aux})
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss={"price": "mse", "kind": "sparse_categorical_crossentropy", "flag": "binary_crossentropy"},
                  loss_weights={"price": 1.0, "kind": 0.5, "flag": 0.2},
                  metrics={"price": ["mae", keras.metrics.RootMeanSquaredError(name="rmse")],
                           "kind": ["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")],
                           "flag": [keras.metrics.AUC(name="auc"), "accuracy"]})
    targets = {"price": price, "kind": kind, "flag": flag}
    history = model.fit({"features": features[:96], "side": side[:96]},
                        {k: v[:96] for k, v in targets.items()}, batch_size=24, epochs=3, verbose=0,
                        validation_data=({"features": features[96:], "side": side[96:]},
                                         {k: v[96:] for k, v in targets.items()}))
    values = [v for key in sorted(history.history) for v in history.history[key]]
    values.append(" ".join(sorted(history.history)))
    result = model.evaluate([features[96:], side[96:]], {k: v[96:] for k, v in targets.items()}, return_dict=True,
                            verbose=0)
    values += [result[k] for k in sorted(result)] + [" ".join(model.metrics_names)]
    predictions = model.predict([features[:5], side[:5]], verbose=0)
    values += [" ".join(sorted(predictions))] + [float(v) for k in sorted(predictions) for v in
                                                 predictions[k].ravel()]
    batch_inputs = [features[:16], side[:16]]
    batch_targets = {k: v[:16] for k, v in targets.items()}
    trained = model.train_on_batch(batch_inputs, batch_targets, return_dict=True)
    tested = model.test_on_batch(batch_inputs, batch_targets)
    on_batch = model.predict_on_batch(batch_inputs)
    values += [trained[k] for k in sorted(trained)] + [float(v) for v in tested]
    values += [float(np.sum(on_batch["price"])), float(np.sum(on_batch["kind"][:, 0]))]
    return values


if __name__ == "__main__":
    print(main())
