"""A tokenizer-free text classifier as in Kaggle starter notebooks: word ids built with a Python dict, sequences
padded with keras.utils.pad_sequences (pre / post padding and truncating, maxlen, value, dtype), labels one-hot
encoded with keras.utils.to_categorical, an Embedding with mask_zero feeding a Bidirectional GRU (merge_mode
"sum") and a masked GlobalAveragePooling1D, class_weight in fit, and argmax / top-k accuracy metrics."""

import numpy as np
from tensorflow import keras

DOCS = ["the movie was great fun", "terrible plot and bad acting", "great acting", "bad movie",
        "fun fun fun", "the plot was terrible", "a great great film", "not fun at all and bad"]
LABELS = [2, 0, 2, 0, 1, 0, 2, 1]


def main():
    vocab = {}
    seqs = []
    for doc in DOCS:
        seqs.append([vocab.setdefault(w, len(vocab) + 1) for w in doc.split()])
    values = []
    for padding in ("pre", "post"):
        for truncating in ("pre", "post"):
            padded = keras.utils.pad_sequences(seqs, maxlen=4, padding=padding, truncating=truncating)
            values += padded.ravel().tolist()
    full = keras.utils.pad_sequences(seqs, value=-1, dtype="float32")
    values += [str(full.shape), str(full.dtype)] + full[1].tolist()
    values.append(str(keras.utils.pad_sequences(seqs).dtype))
    onehot = keras.utils.to_categorical(LABELS)
    values += [str(onehot.shape), str(onehot.dtype)] + onehot.ravel().tolist()
    values += keras.utils.to_categorical(np.array([[1], [3]]), num_classes=5).ravel().tolist()

    x = keras.utils.pad_sequences(seqs, maxlen=6, padding="post")
    keras.utils.set_random_seed(17)
    model = keras.Sequential([
        keras.Input((6,), dtype="int32"),
        keras.layers.Embedding(len(vocab) + 1, 5, mask_zero=True),
        keras.layers.Bidirectional(keras.layers.GRU(4, return_sequences=True), merge_mode="sum"),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(3, activation="softmax"),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="categorical_crossentropy",
                  metrics=["categorical_accuracy", keras.metrics.TopKCategoricalAccuracy(k=2, name="top2")])
    hist = model.fit(x, onehot, batch_size=4, epochs=4, verbose=0, shuffle=False, class_weight={0: 1.0, 1: 2.0, 2: 0.5})
    for key in sorted(hist.history):
        values += [key] + hist.history[key]
    probs = model.predict(x, verbose=0)
    values += probs.ravel().tolist() + np.argmax(probs, axis=1).tolist()
    values.append(str(model.layers[0].compute_mask(x)[0].numpy().tolist()))
    return values
