"""The Keras "structured data classification from scratch" example with string features: Normalization.adapt per
numeric column, StringLookup(output_mode="one_hot") and IntegerLookup + CategoryEncoding(multi_hot) adapted on a
tf.data dataset of dict rows, a functional model on dict inputs (keras.Input(name=..., dtype="string")),
fit on a dict-of-features dataset, then predict on a raw dict of one sample and the layer's vocabularies."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_data(rng, n):
    return {
        "age": rng.integers(20, 70, n).astype("int64"),
        "chol": rng.normal(240, 40, n).astype("float32"),
        "thal": rng.choice(["normal", "fixed", "reversible"], n),
        "cp": rng.choice([0, 1, 2, 3], n).astype("int64"),
    }


def encode_numerical(feature, name, dataset):
    normalizer = keras.layers.Normalization()
    feature_ds = dataset.map(lambda x, y: x[name]).map(lambda x: tf.expand_dims(x, -1))
    normalizer.adapt(feature_ds)
    return normalizer(feature), normalizer


def encode_categorical(feature, name, dataset, is_string):
    lookup_class = keras.layers.StringLookup if is_string else keras.layers.IntegerLookup
    lookup = lookup_class(output_mode="one_hot" if is_string else "int")
    feature_ds = dataset.map(lambda x, y: x[name]).map(lambda x: tf.expand_dims(x, -1))
    lookup.adapt(feature_ds)
    encoded = lookup(feature)
    if not is_string:
        encoded = keras.layers.CategoryEncoding(num_tokens=lookup.vocabulary_size(), output_mode="multi_hot")(encoded)
    return encoded, lookup


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    data = make_data(rng, 200)
    target = ((data["chol"] > 240) & (data["thal"] != "normal") | (data["cp"] == 3)).astype("int64")
    train_ds = tf.data.Dataset.from_tensor_slices((data, target)).shuffle(200, seed=31).batch(32)

    inputs = {"age": keras.Input(shape=(1,), name="age", dtype="int64"),
              "chol": keras.Input(shape=(1,), name="chol"),
              "thal": keras.Input(shape=(1,), name="thal", dtype="string"),
              "cp": keras.Input(shape=(1,), name="cp", dtype="int64")}
    age_encoded, age_norm = encode_numerical(keras.layers.Lambda(lambda x: tf.cast(x, "float32"))(inputs["age"]),
                                             "age", train_ds.map(lambda x, y: ({"age": tf.cast(x["age"], "float32")},
                                                                               y)))
    chol_encoded, chol_norm = encode_numerical(inputs["chol"], "chol", train_ds)
    thal_encoded, thal_lookup = encode_categorical(inputs["thal"], "thal", train_ds, is_string=True)
    cp_encoded, cp_lookup = encode_categorical(inputs["cp"], "cp", train_ds, is_string=False)
    features = keras.layers.concatenate([age_encoded, chol_encoded, thal_encoded, cp_encoded])
    x = keras.layers.Dense(16, activation="relu")(features)
    x = keras.layers.Dropout(0.3)(x)
    output = keras.layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(inputs, output)
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(train_ds, epochs=4, verbose=0)

    values = history.history["loss"] + history.history["accuracy"]
    values += [float(age_norm.mean.numpy().item()), float(chol_norm.variance.numpy().item())]
    values += [" ".join(thal_lookup.get_vocabulary()), str(cp_lookup.get_vocabulary())]
    sample = {"age": 60, "chol": 286.0, "thal": "fixed", "cp": 3}
    input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
    values += [float(model.predict(input_dict, verbose=0)[0, 0])]
    values += [str(model.output_shape), str([tuple(i.shape) for i in model.inputs])]
    return values


if __name__ == "__main__":
    print(main())
