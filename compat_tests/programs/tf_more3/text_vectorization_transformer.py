"""Text classification from raw strings: a tf.data dataset of sentences, TextVectorization (standardize, ngrams=None,
output_sequence_length) adapted on the dataset's text only, the vectorizer mapped into the pipeline, a
TokenAndPositionEmbedding layer and a Transformer encoder block (MultiHeadAttention with an attention mask from
the padding), GlobalAveragePooling1D; then an end-to-end model taking strings, and TF-IDF / multi_hot vectorizers
on the same vocabulary."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

WORDS = ["good", "great", "fine", "bad", "awful", "poor", "movie", "plot", "the", "was", "very", "acting"]
LENGTH = 8


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim, mask_zero=True)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = tf.range(start=0, limit=tf.shape(x)[-1], delta=1)
        return self.token_emb(x) + self.pos_emb(positions)


class TransformerEncoder(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim // num_heads)
        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
        self.norm1 = layers.LayerNormalization()
        self.norm2 = layers.LayerNormalization()

    def call(self, inputs, padding):
        attention_mask = tf.cast(padding[:, tf.newaxis, :], tf.bool)
        out1 = self.norm1(inputs + self.att(inputs, inputs, attention_mask=attention_mask))
        return self.norm2(out1 + self.ffn(out1))


def sentences(rng, count):
    texts, labels = [], []
    for _ in range(count):
        n = int(rng.integers(3, LENGTH + 2))
        words = [WORDS[int(i)] for i in rng.integers(0, len(WORDS), n)]
        texts.append(" ".join(w.upper() if rng.random() < 0.2 else w for w in words) + ("!" if n % 2 else "."))
        labels.append(int(sum(w in ("good", "great", "fine") for w in words) >= sum(
            w in ("bad", "awful", "poor") for w in words)))
    return texts, np.array(labels, np.int32)


def main():
    keras.utils.set_random_seed(48)
    rng = np.random.default_rng(48)
    texts, labels = sentences(rng, 96)
    raw = tf.data.Dataset.from_tensor_slices((texts, labels))
    vectorize = layers.TextVectorization(max_tokens=16, output_mode="int", output_sequence_length=LENGTH)
    vectorize.adapt(raw.map(lambda text, label: text).batch(32))
    vocabulary = vectorize.get_vocabulary()
    train = raw.batch(16).map(lambda text, label: (vectorize(text), label)).prefetch(tf.data.AUTOTUNE)

    tokens = keras.Input(shape=(LENGTH,), dtype="int64")
    padding = layers.Lambda(lambda t: tf.cast(tf.not_equal(t, 0), tf.int32))(tokens)
    x = TokenAndPositionEmbedding(LENGTH, 16, 8)(tokens)
    x = TransformerEncoder(8, 2, 16)(x, padding)
    x = layers.GlobalAveragePooling1D()(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(tokens, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(train, epochs=3, verbose=0)

    string_input = keras.Input(shape=(1,), dtype="string")
    end_to_end = keras.Model(string_input, model(vectorize(string_input)))
    scores = end_to_end.predict(tf.constant([["the movie was very good"], ["awful acting, BAD plot"]]), verbose=0)

    tfidf = layers.TextVectorization(output_mode="tf_idf", vocabulary=vocabulary[2:], idf_weights=np.linspace(
        1.0, 2.0, len(vocabulary) - 2))
    multi_hot = layers.TextVectorization(output_mode="multi_hot", vocabulary=vocabulary[2:], ngrams=2)
    sample = tf.constant(["the plot was good good", "Poor acting!"])
    return (history.history["loss"] + history.history["accuracy"] + [" ".join(vocabulary)]
            + [float(v) for v in scores.ravel()] + [str(vectorize(sample).numpy().tolist())]
            + [float(v) for v in tfidf(sample).numpy().ravel()] + [float(v) for v in multi_hot(sample).numpy().ravel()]
            + [len(multi_hot.get_vocabulary()), str(sorted(vectorize.get_config().items()))[:400]])


if __name__ == "__main__":
    print(main())
