"""The Keras "text classification with Transformer" example, shrunk: a TransformerBlock layer subclass
(MultiHeadAttention, a feed-forward Sequential, LayerNormalization, Dropout, residuals) and a token-and-position
embedding layer, trained with SGD (the Embeddings' gradients are sparse in real Keras)."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

VOCAB, LENGTH, WIDTH = 20, 10, 16


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential([layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=False):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output, training=training)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.dropout2(self.ffn(out1), training=training)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = tf.range(start=0, limit=tf.shape(x)[-1], delta=1)
        return self.token_emb(x) + self.pos_emb(positions)


def main():
    keras.utils.set_random_seed(20)
    rng = np.random.default_rng(20)
    tokens = rng.integers(0, VOCAB, (64, LENGTH))
    labels = (tokens[:, :LENGTH // 2].sum(1) > tokens[:, LENGTH // 2:].sum(1)).astype(np.int64)
    inputs = layers.Input(shape=(LENGTH,))
    x = TokenAndPositionEmbedding(LENGTH, VOCAB, WIDTH)(inputs)
    x = TransformerBlock(WIDTH, 2, 32)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(8, activation="relu")(x)
    outputs = layers.Dense(2, activation="softmax")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(tokens, labels, batch_size=16, epochs=3, validation_data=(tokens[:16], labels[:16]),
                        verbose=0)
    return (history.history["loss"] + history.history["val_loss"] + history.history["accuracy"]
            + [float(model.count_params()), float(model.predict(tokens[:4], verbose=0)[:, 0].sum())])


if __name__ == "__main__":
    print(main())
