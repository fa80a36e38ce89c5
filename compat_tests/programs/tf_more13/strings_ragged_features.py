"""A Kaggle-style preprocessing function over raw CSV-ish text records built from tf.strings ops (strip, lower,
regex_replace, split with and without maxsplit, to_number, substr, reduce_join, length, format, as_string,
unicode_split), giving ragged tokens: tf.ragged.constant, row_lengths, to_tensor with a default, from_row_splits,
ragged map_flat_values, reductions, == and boolean_mask, a StringLookup over the ragged tokens, and a tf.data
pipeline (map of the parser, padded_batch) that feeds an Embedding + GlobalAveragePooling1D model trained for a few
steps."""

import tensorflow as tf
from tensorflow import keras

RECORDS = [
    "  Great Product!!,5,  2021-03-14 ",
    "terrible; broke after 2 days,1,2020-11-02",
    "OK value for money,3,2022-01-30",
    "Loved it - would buy AGAIN,5,2021-07-09",
    "meh,2,2019-12-25",
    "Works as described.  Fast shipping,4,2022-05-01",
]


def parse(line):
    fields = tf.strings.split(tf.strings.strip(line), ",")
    text = tf.strings.lower(fields[0])
    text = tf.strings.regex_replace(text, r"[^a-z0-9 ]", " ")
    text = tf.strings.regex_replace(text, r"\s+", " ")
    tokens = tf.strings.split(tf.strings.strip(text))
    rating = tf.strings.to_number(fields[1], out_type=tf.float32)
    year = tf.strings.to_number(tf.strings.substr(tf.strings.strip(fields[2]), 0, 4), out_type=tf.int32)
    return tokens, rating, year


def main():
    keras.utils.set_random_seed(5)
    values = []
    lines = tf.constant(RECORDS)
    tokens, ratings, years = [], [], []
    for line in RECORDS:
        t, r, y = parse(tf.constant(line))
        tokens.append(t)
        ratings.append(float(r))
        years.append(int(y))
    values += ratings + years
    fields = tf.strings.split(lines, ",")
    try:
        fields[:, 0]
    except ValueError as e:
        values += [f"ValueError: {e}"]
    first = fields.to_tensor()[:, 0]
    batch_tokens = tf.strings.split(tf.strings.regex_replace(tf.strings.lower(first), r"[^a-z ]", ""))
    values += [str(batch_tokens.row_lengths().numpy().tolist()), str(batch_tokens.shape)]
    values += [str(tf.strings.reduce_join(batch_tokens, axis=1, separator="_").numpy().tolist())]
    values += [str(tf.strings.length(lines).numpy().tolist())]
    heads = tf.strings.split(tf.strings.strip(first), maxsplit=1)  # first word, rest of the text
    values += [str(heads.to_list()), str(tf.strings.split(tf.constant(["meh", "a b"]), maxsplit=2).to_list())]
    values += [str(tf.strings.format("{} has {} tokens", (batch_tokens[0, 0], batch_tokens.row_lengths()[0]))
                   .numpy())]
    values += [str(tf.strings.as_string(tf.constant([3.14159, 2.5]), precision=2).numpy().tolist())]
    values += [str(tf.strings.unicode_split("héllo", "UTF-8").numpy().tolist())]

    ragged = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
    values += [str(ragged.to_tensor(default_value=-1.0).numpy().tolist()), str(ragged.row_splits.numpy().tolist())]
    values += [str(tf.reduce_mean(ragged, axis=1).numpy().tolist()), float(tf.reduce_sum(ragged))]
    squared = tf.ragged.map_flat_values(tf.square, ragged)
    values += [str(squared.to_list()), str(squared.bounding_shape().numpy().tolist())]
    rebuilt = tf.RaggedTensor.from_row_splits(tf.range(7), row_splits=[0, 3, 3, 7])
    values += [str(rebuilt.to_list()), str(rebuilt.nrows().numpy()), str(rebuilt[2, 1:].numpy().tolist())]
    values += [str(tf.ragged.boolean_mask(rebuilt, rebuilt % 2 == 0).to_list())]

    lookup = keras.layers.StringLookup(max_tokens=20, num_oov_indices=1)
    lookup.adapt(tf.data.Dataset.from_tensor_slices(lines).map(lambda s: parse(s)[0]))
    vocab = lookup.get_vocabulary()
    values += [len(vocab), str(vocab[:6])]
    ids = lookup(batch_tokens)
    values += [str(type(ids).__name__), str(ids.to_list())]

    ds = tf.data.Dataset.from_tensor_slices(lines).map(lambda s: (lookup(parse(s)[0]), parse(s)[1] / 5.0))
    ds = ds.padded_batch(3, padded_shapes=([None], []))
    for ids_batch, target in ds.take(1):
        values += [str(ids_batch.numpy().tolist()), str(target.numpy().tolist())]
    model = keras.Sequential([
        keras.layers.Embedding(len(vocab), 8, mask_zero=True),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    history = model.fit(ds.repeat(2), epochs=3, verbose=0)
    values += history.history["loss"]
    values += [float(v) for v in model.predict(ds, verbose=0).ravel()]
    return values
