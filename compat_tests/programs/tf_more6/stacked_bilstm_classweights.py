"""A Stack Overflow-style sentiment classifier on padded integer sequences: Embedding(mask_zero=True) into two
stacked Bidirectional LSTMs (return_sequences=True, then merge_mode="sum"), the mask read back with compute_mask,
to_categorical labels with categorical_crossentropy, class_weight for an imbalanced class, pad_sequences with
padding="post", and outputs for an unpadded sequence and for a longer padded one (the mask makes trailing zeros
irrelevant)."""

import numpy as np
import tensorflow as tf
from tensorflow import keras

VOCAB, LENGTH = 20, 9


def main():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    sequences = [list(rng.integers(1, VOCAB, int(rng.integers(2, LENGTH + 1)))) for _ in range(72)]
    labels = np.array([int(sum(s) % 3 == 0) + int(len(s) > 6) for s in sequences])
    padded = keras.preprocessing.sequence.pad_sequences(sequences, maxlen=LENGTH, padding="post")
    one_hot = keras.utils.to_categorical(labels, num_classes=3)
    values = [str(padded[:2].tolist()), str(one_hot[:3].tolist()), str(np.bincount(labels, minlength=3).tolist())]

    inputs = keras.Input(shape=(None,), dtype="int32")
    embedding = keras.layers.Embedding(VOCAB, 8, mask_zero=True)
    x = embedding(inputs)
    x = keras.layers.Bidirectional(keras.layers.LSTM(6, return_sequences=True))(x)
    x = keras.layers.Bidirectional(keras.layers.LSTM(5), merge_mode="sum")(x)
    outputs = keras.layers.Dense(3, activation="softmax")(x)
    model = keras.Model(inputs, outputs)
    values += [str(embedding.compute_mask(tf.constant(padded[:2])).numpy().tolist())]
    values += [str([layer.output.shape for layer in model.layers[1:]]), model.count_params()]

    model.compile(optimizer=keras.optimizers.RMSprop(0.01), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(padded, one_hot, batch_size=36, epochs=2, class_weight={0: 1.0, 1: 2.0, 2: 0.5},
                        verbose=0)
    values += history.history["loss"] + history.history["accuracy"]

    short = np.array([sequences[0]])
    longer = keras.preprocessing.sequence.pad_sequences([sequences[0]], maxlen=LENGTH + 4, padding="post")
    values += [float(v) for v in model(short).numpy().ravel()]
    values += [float(v) for v in model(longer).numpy().ravel()]
    return values


if __name__ == "__main__":
    print(main())
