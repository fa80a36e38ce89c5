"""The hashing trick on raw text with tf.strings and tf.sparse, as in Stack Overflow answers on sparse features:
sentences lower-cased and cleaned with regex_replace, split into a RaggedTensor of words, word bigrams from
tf.strings.ngrams, every token hashed with to_hash_bucket_fast, the ragged rows shuffled with tf.gather; the ragged
ids become a tf.SparseTensor (to_sparse, and back with RaggedTensor.from_sparse) feeding
tf.nn.embedding_lookup_sparse (combiner "sqrtn") and tf.nn.safe_embedding_lookup_sparse with per-token weights, and
a bag-of-words SparseTensor (tf.sparse.reorder, reduce_sum, sparse_dense_matmul) feeding a linear part; a
wide-and-deep classifier of tf.Variables trained by an eager GradientTape loop with Adagrad."""

import keras
import numpy as np
import tensorflow as tf

BUCKETS = 31
WORDS = ["good", "bad", "great", "awful", "movie", "plot", "acting", "fine", "boring", "fun", "the", "was"]


def make_sentences(rng, count):
    sentences, labels = [], []
    for _ in range(count):
        length = int(rng.integers(3, 8))
        words = [WORDS[i] for i in rng.integers(0, len(WORDS), size=length)]
        score = sum(w in ("good", "great", "fine", "fun") for w in words) - sum(w in ("bad", "awful", "boring")
                                                                            for w in words)
        text = " ".join(w.upper() if i % 3 == 0 else w for i, w in enumerate(words))
        sentences.append(text + ("!!" if score > 0 else "."))
        labels.append(float(score > 0))
    return np.array(sentences), np.array(labels, np.float32)


def tokenize(text):
    text = tf.strings.regex_replace(tf.strings.lower(text), r"[^a-z ]", "")
    words = tf.strings.split(text)
    bigrams = tf.strings.ngrams(words, 2, separator="_")
    tokens = tf.concat([words, bigrams], axis=1)
    return tf.strings.to_hash_bucket_fast(tokens, BUCKETS)


def bag_of_words(ids):
    sparse = ids.to_sparse()
    counts = tf.SparseTensor(tf.stack([sparse.indices[:, 0], sparse.values], axis=1),
                             tf.ones_like(sparse.values, dtype=tf.float32), [sparse.dense_shape[0], BUCKETS])
    return tf.sparse.reorder(counts)


def main():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    sentences, labels = make_sentences(rng, 24)
    ids = tokenize(tf.constant(sentences))
    values = [str(ids.row_lengths().numpy().tolist()), str(ids[0].numpy().tolist())]
    order = rng.permutation(24)  # shuffled rows of the ragged ids, gathered as a whole
    ids, labels = tf.gather(ids, order), labels[order]
    values.append(str(ids.row_starts()[:5].numpy().tolist()))

    table = tf.Variable(tf.random.normal([BUCKETS, 4], stddev=0.3, seed=1), name="table")
    wide = tf.Variable(tf.zeros([BUCKETS, 1]), name="wide")
    head = tf.Variable(tf.random.uniform([8, 1], -0.5, 0.5, seed=2), name="head")
    bias = tf.Variable(0.0, name="bias")
    variables = [table, wide, head, bias]
    optimizer = keras.optimizers.Adagrad(learning_rate=0.3)

    def forward(batch_ids):
        sparse_ids = batch_ids.to_sparse()
        weights = tf.SparseTensor(sparse_ids.indices, 1.0 / tf.cast(sparse_ids.values % 3 + 1, tf.float32),
                                  sparse_ids.dense_shape)
        mean_sqrt = tf.nn.embedding_lookup_sparse(table, sparse_ids, None, combiner="sqrtn")
        weighted = tf.nn.safe_embedding_lookup_sparse(table, sparse_ids, weights, combiner="mean")
        counts = bag_of_words(batch_ids)
        deep = tf.tanh(tf.concat([mean_sqrt, weighted], axis=1))
        linear = tf.sparse.sparse_dense_matmul(counts, wide)
        return tf.squeeze(tf.matmul(deep, head) + linear, axis=1) + bias, counts

    for _ in range(2):
        for start in range(0, 24, 8):
            batch_ids, batch_labels = ids[start:start + 8], labels[start:start + 8]
            with tf.GradientTape() as tape:
                logits, counts = forward(batch_ids)
                loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(batch_labels, logits))
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
            values.append(float(loss))
    values.append(str(type(grads[0]).__name__))
    values += tf.sparse.reduce_sum(counts, axis=1).numpy().tolist()
    values += tf.sparse.to_dense(ids[:2].to_sparse(), default_value=-1).numpy().ravel().tolist()
    values.append(str(tf.RaggedTensor.from_sparse(ids[3:5].to_sparse()).to_list()))
    logits, _ = forward(ids)
    values.append(float(keras.metrics.BinaryAccuracy(threshold=0.0)(labels, logits)))
    values += [float(tf.reduce_sum(v * v)) for v in variables]
    return values
