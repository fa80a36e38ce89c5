"""A tf.data text pipeline with lookup tables and unicode string ops, as in the TF text tutorials: a
StaticHashTable from a KeyValueTensorInitializer for labels, a StaticVocabularyTable with OOV buckets for tokens,
both used inside Dataset.map, unicode_split / unicode_decode / strings.length(unit="UTF8_CHAR"),
tf.strings.ngrams on ragged tokens, substr with unit, and a tiny bag-of-ids classifier trained on the result."""

import tensorflow as tf
from tensorflow import keras

TEXTS = ["café au lait", "naïve cat", "über cool cat", "crème brûlée", "cat café", "cool naïve über"]
LABELS = ["food", "animal", "animal", "food", "food", "animal"]


def main():
    values = []
    label_table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(["animal", "food"]), tf.constant([0, 1], tf.int64)),
        default_value=-1)
    vocab = ["cat", "café", "cool", "naïve"]
    tok_table = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(vocab), tf.range(len(vocab), dtype=tf.int64)),
        num_oov_buckets=3)
    values.append(int(label_table.size()))
    ids = tok_table.lookup(tf.strings.split(tf.constant(TEXTS)))
    values += tf.math.bincount(tf.cast(ids.flat_values, tf.int32), minlength=9).numpy().tolist()
    values.append(int(tok_table.size()))
    values += label_table.lookup(tf.constant(["food", "plant", "animal"])).numpy().tolist()
    values += tok_table.lookup(tf.constant(["cat", "naïve", "cool"])).numpy().tolist()

    s = tf.constant(TEXTS)
    chars = tf.strings.unicode_split(s, "UTF-8")
    values += chars.row_lengths().numpy().tolist()
    values += [c.decode() for c in chars[3].numpy()]
    codes = tf.strings.unicode_decode(s, "UTF-8")
    values += codes[1].numpy().tolist()
    values += tf.strings.length(s).numpy().tolist()
    values += tf.strings.length(s, unit="UTF8_CHAR").numpy().tolist()
    values += [b.decode() for b in tf.strings.substr(s, 0, 4, unit="UTF8_CHAR").numpy()]
    values += [b.decode() for b in tf.strings.unicode_encode(codes[:2], "UTF-8").numpy()]
    words = tf.strings.split(s)
    grams = tf.strings.ngrams(words, 2, separator="_")
    values += grams.row_lengths().numpy().tolist()
    values += [g.decode() for g in grams[2].numpy()]
    values += [g.decode() for g in tf.strings.ngrams(words[0], [1, 2]).numpy()]

    def encode(text, label):
        toks = tf.strings.split(text)
        ids = tok_table.lookup(toks)
        counts = tf.reduce_sum(tf.one_hot(ids, 7), axis=0)
        return counts, label_table.lookup(label)

    ds = tf.data.Dataset.from_tensor_slices((TEXTS, LABELS)).map(encode).batch(3)
    spec = ds.element_spec
    values.append(str(spec[0].shape))
    values.append(spec[1].dtype.name)
    for xb, yb in ds.take(1):
        values += xb.numpy().ravel().tolist() + yb.numpy().tolist()

    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((7,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.SGD(0.3), loss="binary_crossentropy", metrics=["accuracy"])
    hist = model.fit(ds, epochs=4, verbose=0)
    values += hist.history["loss"] + hist.history["accuracy"]
    values += model.predict(ds, verbose=0).ravel().tolist()
    return values
