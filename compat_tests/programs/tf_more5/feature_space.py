"""The keras.io example "Structured data classification with FeatureSpace" on synthetic heart-disease-like data:
a FeatureSpace of integer/string categorical, discretized and normalized features with two crosses, adapted on the
unlabeled training dataset, used in ``dataset.map`` to preprocess batches, a training model on its encoded
features (Dense, Dropout, sigmoid), an inference model on its raw inputs, and the space saved to and reloaded from
a ``.keras`` file."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

FeatureSpace = keras.utils.FeatureSpace


def make_frame(rng, n):
    """Some of the heart-disease CSV's columns, with a target that depends on some of them."""
    frame = {
        "sex": rng.integers(0, 2, n), "cp": rng.integers(0, 5, n), "exang": rng.integers(0, 2, n),
        "ca": rng.integers(0, 4, n),
        "thal": rng.choice(["normal", "fixed", "reversible"], n),
        "age": rng.integers(29, 78, n).astype("float32"), "trestbps": rng.normal(130, 17, n).astype("float32"),
        "thalach": rng.normal(150, 22, n).astype("float32"), "oldpeak": rng.exponential(1.0, n).astype("float32"),
    }
    risk = (frame["cp"] >= 3) + frame["exang"] + (frame["thal"] == "reversible") + (frame["age"] > 55)
    return frame, (risk >= 2).astype("int64")


def main():
    keras.utils.set_random_seed(42)
    rng = np.random.default_rng(42)
    train_frame, train_labels = make_frame(rng, 96)
    val_frame, val_labels = make_frame(rng, 32)
    train_ds = tf.data.Dataset.from_tensor_slices((train_frame, train_labels)).batch(32)
    val_ds = tf.data.Dataset.from_tensor_slices((val_frame, val_labels)).batch(32)

    feature_space = FeatureSpace(
        features={
            "sex": FeatureSpace.integer_categorical(), "cp": FeatureSpace.integer_categorical(),
            "exang": FeatureSpace.integer_categorical(), "ca": FeatureSpace.integer_categorical(),
            "thal": FeatureSpace.string_categorical(),
            "age": FeatureSpace.float_discretized(num_bins=30),
            "trestbps": FeatureSpace.float_normalized(), "thalach": FeatureSpace.float_normalized(),
            "oldpeak": FeatureSpace.float_normalized(),
        },
        crosses=[FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=64),
                 FeatureSpace.cross(feature_names=("thal", "ca"), crossing_dim=16)],
        output_mode="concat",
    )
    feature_space.adapt(train_ds.map(lambda x, _: x))
    values = [str(feature_space.preprocessors["thal"].get_vocabulary()),
              str(feature_space.preprocessors["age"].bin_boundaries[:5])]

    preprocessed_train_ds = train_ds.map(lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    preprocessed_train_ds = preprocessed_train_ds.prefetch(tf.data.AUTOTUNE)
    preprocessed_val_ds = val_ds.map(lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    first_batch = next(iter(preprocessed_train_ds))[0]
    values += [str(first_batch.shape), str(first_batch.dtype)] + first_batch.numpy()[:2].ravel().tolist()

    dict_inputs = feature_space.get_inputs()
    encoded_features = feature_space.get_encoded_features()
    x = keras.layers.Dense(32, activation="relu")(encoded_features)
    x = keras.layers.Dropout(0.5)(x)
    predictions = keras.layers.Dense(1, activation="sigmoid")(x)
    training_model = keras.Model(inputs=encoded_features, outputs=predictions)
    training_model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    inference_model = keras.Model(inputs=dict_inputs, outputs=predictions)
    history = training_model.fit(preprocessed_train_ds, epochs=3, validation_data=preprocessed_val_ds, verbose=0)
    values += history.history["loss"] + history.history["val_loss"] + history.history["val_accuracy"]

    sample = {"age": 60, "sex": 1, "cp": 1, "trestbps": 145, "thalach": 150, "exang": 0, "oldpeak": 2.3, "ca": 0,
              "thal": "fixed"}
    input_dict = {name: keras.ops.convert_to_tensor([value]) for name, value in sample.items()}
    values += inference_model.predict(input_dict, verbose=0).ravel().tolist()

    path = os.path.join(tempfile.mkdtemp(), "featurespace.keras")
    feature_space.save(path)
    reloaded = keras.saving.load_model(path)
    encoded = reloaded({name: value[:3] for name, value in val_frame.items()})
    values += [str(type(reloaded).__name__), str(encoded.shape)] + encoded.numpy().ravel().tolist()
    single = reloaded({name: value[0] for name, value in val_frame.items()})
    values += [str(single.shape)] + single.numpy().tolist()
    return values


if __name__ == "__main__":
    print(main())
