"""A small Keras Transformer (functional API): token and position embeddings, causal MultiHeadAttention with
dropout, residual LayerNormalization, a feed-forward block, AdamW with a warm-up schedule.

Tokens arrive one-hot encoded and are projected by a bias-free Dense layer (an Embedding layer's sparse gradient
is applied differently by real Keras' AdamW; see embedding_sparse_updates.py).
"""

import numpy as np
from tensorflow import keras

VOCAB, WIDTH, LENGTH = 11, 16, 8


class WarmUp(keras.optimizers.schedules.LearningRateSchedule):
    def __call__(self, step):
        return 1e-2 * keras.ops.minimum(1.0, (keras.ops.cast(step, "float32") + 1.0) / 4.0)


class PositionEmbedding(keras.layers.Layer):
    def build(self, input_shape):
        self.positions = self.add_weight(shape=(LENGTH, WIDTH), initializer="random_normal", name="positions")

    def call(self, x):
        return x + self.positions


def block(x):
    attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=WIDTH // 4, dropout=0.1)(
        x, x, use_causal_mask=True)
    x = keras.layers.LayerNormalization()(x + attended)
    hidden = keras.layers.Dense(32, activation="gelu")(x)
    return keras.layers.LayerNormalization()(x + keras.layers.Dense(WIDTH)(hidden))


def main():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    sequences = (rng.integers(0, VOCAB, (32, 1)) + np.arange(LENGTH + 1)) % VOCAB  # count upwards modulo VOCAB
    tokens = keras.Input((LENGTH, VOCAB))
    x = PositionEmbedding()(keras.layers.Dense(WIDTH, use_bias=False)(tokens))
    logits = keras.layers.Dense(VOCAB)(block(x))
    model = keras.Model(tokens, logits)
    model.compile(optimizer=keras.optimizers.AdamW(WarmUp(), weight_decay=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    inputs = np.eye(VOCAB, dtype=np.float32)[sequences[:, :-1]]
    history = model.fit(inputs, sequences[:, 1:], batch_size=8, epochs=3, verbose=0)
    return history.history["loss"] + [model.evaluate(inputs, sequences[:, 1:], verbose=0)]


if __name__ == "__main__":
    print(main())
