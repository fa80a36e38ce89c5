"""A multi-input / multi-output functional model fit from a tf.data Dataset of dicts, as in the Keras functional
API guide: named inputs fed by dict keys, two named heads (regression + classification) with loss_weights,
per-output metrics given as a dict, history keys compared exactly, validation_data as a dataset,
evaluate(return_dict=True), predict_on_batch / train_on_batch / test_on_batch, and predict on a dict batch."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_model():
    num = keras.Input((4,), name="num")
    cat = keras.Input((1,), name="cat", dtype="int32")
    emb = keras.layers.Flatten()(keras.layers.Embedding(5, 3)(cat))
    h = keras.layers.Concatenate()([num, emb])
    h = keras.layers.Dense(8, activation="relu")(h)
    price = keras.layers.Dense(1, name="price")(h)
    kind = keras.layers.Dense(3, activation="softmax", name="kind")(h)
    return keras.Model({"num": num, "cat": cat}, {"price": price, "kind": kind})


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    num = rng.normal(size=(24, 4)).astype("float32")
    cat = rng.integers(0, 5, size=(24, 1)).astype("int32")
    price = (num @ np.array([1.0, -0.5, 0.2, 0.0], "float32") + 0.3 * cat[:, 0])[:, None]
    kind = (cat[:, 0] % 3).astype("int64")
    ds = tf.data.Dataset.from_tensor_slices(({"num": num, "cat": cat}, {"price": price, "kind": kind}))
    train, val = ds.take(16).batch(8), ds.skip(16).batch(8)

    model = make_model()
    model.compile(optimizer=keras.optimizers.Adam(0.02),
                  loss={"price": "mse", "kind": "sparse_categorical_crossentropy"},
                  loss_weights={"price": 0.5, "kind": 2.0},
                  metrics={"price": ["mae"], "kind": ["accuracy"]})
    hist = model.fit(train, validation_data=val, epochs=3, verbose=0)
    values = [" ".join(sorted(hist.history))]
    for key in sorted(hist.history):
        values += hist.history[key]
    res = model.evaluate(val, return_dict=True, verbose=0)
    values.append(" ".join(sorted(res)))
    values += [res[k] for k in sorted(res)]
    res_list = model.evaluate(val, verbose=0)
    values.append(len(res_list))
    pred = model.predict_on_batch({"num": num[:3], "cat": cat[:3]})
    values.append(" ".join(sorted(pred)))
    values += pred["price"].ravel().tolist() + pred["kind"].ravel().tolist()
    values.append(type(pred["kind"]).__module__.split(".")[0])
    out = model.train_on_batch({"num": num[:8], "cat": cat[:8]}, {"price": price[:8], "kind": kind[:8]},
                               return_dict=True)
    values.append(" ".join(sorted(out)))
    values += [out[k] for k in sorted(out)]
    out = model.test_on_batch({"num": num[8:], "cat": cat[8:]}, {"price": price[8:], "kind": kind[8:]})
    values += list(out)
    p = model.predict({"num": num, "cat": cat}, batch_size=10, verbose=0)
    values += p["price"][:5].ravel().tolist()
    values.append(str(p["kind"].shape))
    return values
