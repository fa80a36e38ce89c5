"""The TF "word2vec" tutorial, shrunk: skip-gram pairs from tf.keras.preprocessing.sequence.skipgrams with a
make_sampling_table, negative samples from tf.random.log_uniform_candidate_sampler with a seed, a subclassed
Word2Vec model scoring targets against contexts with Embedding dot products (einsum), CategoricalCrossentropy with
logits and a tf.data pipeline into fit."""

import numpy as np
import tensorflow as tf

VOCAB, EMBED, WINDOW, NEGATIVE = 40, 8, 2, 3


class Word2Vec(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim):
        super().__init__()
        self.target_embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim, name="w2v_embedding")
        self.context_embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)

    def call(self, pair):
        target, context = pair
        if len(target.shape) == 2:
            target = tf.squeeze(target, axis=1)
        word_emb = self.target_embedding(target)
        context_emb = self.context_embedding(context)
        return tf.einsum("be,bce->bc", word_emb, context_emb)


def training_data(sequences, seed):
    targets, contexts, labels = [], [], []
    table = tf.keras.preprocessing.sequence.make_sampling_table(VOCAB, sampling_factor=0.3)
    for sequence in sequences:
        pairs, _ = tf.keras.preprocessing.sequence.skipgrams(sequence, vocabulary_size=VOCAB, sampling_table=table,
                                                             window_size=WINDOW, negative_samples=0, shuffle=False)
        for target_word, context_word in pairs:
            context_class = tf.expand_dims(tf.constant([context_word], dtype="int64"), 1)
            negative, _, _ = tf.random.log_uniform_candidate_sampler(
                true_classes=context_class, num_true=1, num_sampled=NEGATIVE, unique=True, range_max=VOCAB,
                seed=seed, name="negative_sampling")
            context = tf.concat([tf.squeeze(context_class, 1), negative], 0)
            label = tf.constant([1] + [0] * NEGATIVE, dtype="int64")
            targets.append(target_word)
            contexts.append(context)
            labels.append(label)
    return np.array(targets), np.array(contexts), np.array(labels)


def main():
    tf.keras.utils.set_random_seed(42)
    rng = np.random.default_rng(42)
    # Zipf-like token ids so that the sampling table keeps frequent words rarely.
    sequences = [list(np.minimum(rng.zipf(1.3, 12), VOCAB - 1)) for _ in range(6)]
    targets, contexts, labels = training_data(sequences, seed=42)
    dataset = tf.data.Dataset.from_tensor_slices(((targets, contexts), labels))
    dataset = dataset.shuffle(256, seed=42, reshuffle_each_iteration=False).batch(16, drop_remainder=True)
    model = Word2Vec(VOCAB, EMBED)
    model.compile(optimizer="sgd", loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(dataset, epochs=4, verbose=0)
    weights = model.get_layer("w2v_embedding").get_weights()[0]
    values = [float(len(targets)), float(targets.sum()), float(contexts.sum())]
    values += history.history["loss"] + history.history["accuracy"]
    values += [float(np.abs(weights).sum()), float(model.evaluate(dataset, verbose=0)[0])]
    sampled, true_expected, sampled_expected = tf.random.log_uniform_candidate_sampler(
        true_classes=tf.constant([[1], [5]], dtype="int64"), num_true=1, num_sampled=5, unique=False, range_max=VOCAB,
        seed=7)
    values += [float(v) for v in sampled.numpy()] + [float(v) for v in tf.reshape(true_expected, [-1]).numpy()]
    values += [float(v) for v in sampled_expected.numpy()]
    return values


if __name__ == "__main__":
    print(main())
