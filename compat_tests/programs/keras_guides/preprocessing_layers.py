"""The keras.io guide "Working with preprocessing layers": Normalization adapted to data (mean/variance, invert),
Rescaling, TextVectorization adapted to a corpus (int, multi_hot and tf_idf output modes, ngrams, vocabulary),
StringLookup and IntegerLookup (adapt, vocabulary, oov tokens, invert, one_hot), CategoryEncoding (one_hot,
multi_hot, count), Hashing (num_bins, salt), preprocessing inside the model vs in a tf.data pipeline, and an
end-to-end text classifier trained on adapted TextVectorization output."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def main():
    keras.utils.set_random_seed(23)
    rng = np.random.default_rng(23)
    values = []

    training_data = rng.normal(loc=3.0, scale=2.0, size=(64, 3)).astype("float32")
    normalizer = layers.Normalization(axis=-1)
    normalizer.adapt(training_data)
    normalized_data = normalizer(training_data)
    values += [float(np.mean(normalized_data)), float(np.std(normalized_data))]
    values += [float(v) for v in np.ravel(normalizer.mean)] + [float(v) for v in np.ravel(normalizer.variance)]
    denormalizer = layers.Normalization(axis=-1, invert=True)
    denormalizer.adapt(training_data)
    values += [float(np.max(np.abs(denormalizer(normalized_data) - training_data)))]
    values += [str(normalizer.get_config())]
    values += [float(np.sum(layers.Rescaling(scale=1.0 / 255, offset=-0.5)(np.full((2, 3), 255.0))))]

    data = ["The Brain is wider than the Sky", "For put them side by side",
            "The one the other will contain", "With ease and You beside"]
    layer = layers.TextVectorization()
    layer.adapt(data)
    vectorized_text = layer(data)
    values += [str(vectorized_text.numpy()), str(layer.get_vocabulary())]
    dataset = tf.data.Dataset.from_tensor_slices(["The Brain is deeper than the sea",
                                                  "for if they are held Blue to Blue",
                                                  "The one the other will absorb", "As sponges Buckets do"])
    text_vectorizer = layers.TextVectorization(output_mode="int")
    text_vectorizer.adapt(dataset.batch(2))
    values += [str(text_vectorizer.get_vocabulary()), str(text_vectorizer(["The brain is blue"]).numpy())]
    multi_hot = layers.TextVectorization(output_mode="multi_hot", ngrams=2, max_tokens=20)
    multi_hot.adapt(data)
    values += [str(multi_hot.get_vocabulary()), str(multi_hot(data[:2]).numpy())]
    tf_idf = layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    tf_idf.adapt(data)
    values += [float(v) for v in np.ravel(tf_idf(["The Brain is wider than the Sky the sky"]))]

    data = tf.constant([["a"], ["b"], ["c"], ["b"], ["c"], ["a"]])
    string_lookup = layers.StringLookup()
    string_lookup.adapt(data)
    values += [str(string_lookup.get_vocabulary()), str(string_lookup(data).numpy().ravel()),
               str(string_lookup(tf.constant([["a"], ["z"]])).numpy().ravel())]
    vocab = ["a", "b", "c", "d"]
    lookup = layers.StringLookup(vocabulary=vocab, num_oov_indices=2)
    values += [str(lookup(tf.constant([["a", "c", "d"], ["d", "z", "b"]])).numpy()), str(lookup.vocabulary_size())]
    inverse = layers.StringLookup(vocabulary=vocab, invert=True)
    values += [str(inverse(tf.constant([[1, 3, 4], [4, 0, 2]])).numpy())]
    one_hot = layers.StringLookup(vocabulary=vocab, output_mode="one_hot")
    values += [str(one_hot(tf.constant(["a", "b", "z"])).numpy())]

    data = tf.constant([[12], [42], [12], [7], [42], [42]])
    int_lookup = layers.IntegerLookup()
    int_lookup.adapt(data)
    values += [str(int_lookup.get_vocabulary()), str(int_lookup(data).numpy().ravel())]
    int_lookup = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], mask_token=0)
    values += [str(int_lookup(tf.constant([[12, 1138, 42], [42, 1000, 36], [0, 12, 5]])).numpy()),
               str(int_lookup.get_vocabulary())]

    data = tf.constant([[0, 1], [0, 0], [1, 2], [3, 1]])
    values += [str(layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")(tf.constant([3, 2, 0, 1])).numpy())]
    values += [str(layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")(data).numpy())]
    values += [str(layers.CategoryEncoding(num_tokens=4, output_mode="count")(data).numpy())]

    hashing = layers.Hashing(num_bins=64, salt=1337)
    values += [str(hashing(tf.constant([["A"], ["B"], ["C"], ["D"], ["E"]])).numpy().ravel())]
    values += [str(layers.Hashing(num_bins=5)(tf.constant([[1], [2], [3], [4], [5]])).numpy().ravel())]
    values += [str(layers.Hashing(num_bins=3, mask_value="")(tf.constant([["A"], [""], ["C"]])).numpy().ravel())]

    inputs = keras.Input(shape=(3,))
    x = normalizer(inputs)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="rmsprop", loss="mse")
    targets = training_data.sum(axis=1, keepdims=True)
    values += model.fit(training_data, targets, batch_size=16, epochs=2, verbose=0).history["loss"]

    adapt_data = tf.constant(["The Brain is wider than the Sky", "For put them side by side",
                              "The one the other will contain", "With ease and You beside"])
    text_vectorizer = layers.TextVectorization(output_mode="int", output_sequence_length=6)
    text_vectorizer.adapt(adapt_data)
    labels = tf.constant([1.0, 0.0, 1.0, 0.0])
    train_dataset = tf.data.Dataset.from_tensor_slices((adapt_data, labels))
    train_dataset = train_dataset.batch(2).map(lambda x, y: (text_vectorizer(x), y),
                                               num_parallel_calls=tf.data.AUTOTUNE)
    inputs = keras.Input(shape=(None,), dtype="int64")
    x = layers.Embedding(input_dim=text_vectorizer.vocabulary_size(), output_dim=8)(inputs)
    x = layers.GlobalAveragePooling1D()(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="binary_crossentropy")
    values += model.fit(train_dataset, epochs=3, verbose=0).history["loss"]
    inputs = keras.Input(shape=(1,), dtype="string")
    end_to_end = keras.Model(inputs, model(text_vectorizer(inputs)))
    values += [float(v) for v in np.ravel(end_to_end(tf.constant([["The Brain is wider"], ["You beside"]])))]
    return values


if __name__ == "__main__":
    print(main())
