"""Text classifiers on integer token sequences: Embedding(mask_zero=True) into a Bidirectional LSTM, and an
Embedding into Conv1D/GlobalMaxPooling1D, trained with SGD (real Keras applies an Embedding's sparse gradient
row-wise with Adam/RMSprop; see embedding_sparse_updates.py)."""

import numpy as np
from tensorflow import keras

VOCAB, LENGTH = 30, 12


def main():
    rng = np.random.default_rng(18)
    lengths = rng.integers(4, LENGTH + 1, 64)
    tokens = rng.integers(1, VOCAB, (64, LENGTH))
    tokens[np.arange(LENGTH)[None, :] >= lengths[:, None]] = 0  # post-padding, as pad_sequences makes it
    labels = ((tokens == 5) | (tokens == 7)).any(axis=1).astype(np.float32)

    keras.utils.set_random_seed(18)
    recurrent = keras.Sequential([
        keras.Input((LENGTH,), dtype="int32"),
        keras.layers.Embedding(VOCAB, 8, mask_zero=True),
        keras.layers.Bidirectional(keras.layers.LSTM(8)),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    recurrent.compile(optimizer=keras.optimizers.SGD(0.5), loss="binary_crossentropy", metrics=["accuracy"])
    history = recurrent.fit(tokens, labels, batch_size=16, epochs=3, verbose=0)
    values = history.history["loss"] + history.history["accuracy"]
    values.append(float(recurrent.predict(tokens[:8], verbose=0).sum()))

    keras.utils.set_random_seed(19)
    inputs = keras.Input((LENGTH,), dtype="int64")
    x = keras.layers.Embedding(VOCAB, 8)(inputs)
    x = keras.layers.Conv1D(16, 3, activation="relu", padding="valid")(x)
    x = keras.layers.GlobalMaxPooling1D()(x)
    x = keras.layers.Dropout(0.1)(x)
    outputs = keras.layers.Dense(1)(x)
    convolutional = keras.Model(inputs, outputs)
    convolutional.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9),
                          loss=keras.losses.BinaryCrossentropy(from_logits=True),
                          metrics=[keras.metrics.AUC(from_logits=True)])
    history = convolutional.fit(tokens, labels, batch_size=16, epochs=3, verbose=0)
    return values + history.history["loss"] + history.history["auc"] + convolutional.evaluate(tokens, labels,
                                                                                              verbose=0)


if __name__ == "__main__":
    print(main())
