"""The TF "text generation with an RNN" tutorial, shrunk: characters mapped with StringLookup (and its inverse),
tf.strings.unicode_split, a dataset of (input, target) windows built with batch/map, a subclassed model with
Embedding + GRU(return_state=True), SparseCategoricalCrossentropy(from_logits=True), then a OneStep tf.Module whose
tf.function samples with tf.random.categorical (seeded) and a mask of forbidden ids (tensor_scatter_nd_update),
carrying the GRU states."""

import tensorflow as tf

TEXT = "the quick brown fox jumps over the lazy dog. a lazy dog sleeps; the fox runs. " * 3
SEQ_LENGTH = 12


class CharModel(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim, rnn_units):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)
        self.gru = tf.keras.layers.GRU(rnn_units, return_sequences=True, return_state=True)
        self.dense = tf.keras.layers.Dense(vocab_size)

    def call(self, inputs, states=None, return_state=False, training=False):
        x = self.embedding(inputs, training=training)
        if states is None:
            states = self.gru.get_initial_state(tf.shape(x)[0])
        x, states = self.gru(x, initial_state=states, training=training)
        x = self.dense(x, training=training)
        return (x, states) if return_state else x


class OneStep(tf.Module):
    def __init__(self, model, chars_from_ids, ids_from_chars, temperature=1.0):
        super().__init__()
        self.temperature = temperature
        self.model = model
        self.chars_from_ids = chars_from_ids
        self.ids_from_chars = ids_from_chars
        skip_ids = self.ids_from_chars(["[UNK]"])[:, None]
        self.prediction_mask = tf.tensor_scatter_nd_update(
            tf.zeros([len(ids_from_chars.get_vocabulary())]), skip_ids, [-float("inf")] * len(skip_ids))

    @tf.function
    def generate_one_step(self, inputs, states=None):
        input_chars = tf.strings.unicode_split(inputs, "UTF-8")
        input_ids = self.ids_from_chars(input_chars).to_tensor()
        predicted_logits, states = self.model(inputs=input_ids, states=states, return_state=True)
        predicted_logits = predicted_logits[:, -1, :] / self.temperature + self.prediction_mask
        predicted_ids = tf.random.categorical(predicted_logits, num_samples=1, seed=7)
        predicted_ids = tf.squeeze(predicted_ids, axis=-1)
        return self.chars_from_ids(predicted_ids), predicted_ids, states


def main():
    tf.keras.utils.set_random_seed(5)
    vocab = sorted(set(TEXT))
    ids_from_chars = tf.keras.layers.StringLookup(vocabulary=list(vocab), mask_token=None)
    chars_from_ids = tf.keras.layers.StringLookup(vocabulary=ids_from_chars.get_vocabulary(), invert=True,
                                                  mask_token=None)
    all_ids = ids_from_chars(tf.strings.unicode_split(TEXT, "UTF-8"))
    sequences = tf.data.Dataset.from_tensor_slices(all_ids).batch(SEQ_LENGTH + 1, drop_remainder=True)
    dataset = sequences.map(lambda seq: (seq[:-1], seq[1:])).shuffle(100, seed=5).batch(4, drop_remainder=True)
    model = CharModel(len(ids_from_chars.get_vocabulary()), 8, 16)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(dataset, epochs=3, verbose=0)
    values = history.history["loss"] + [float(ids_from_chars.vocabulary_size()), float(tf.reduce_sum(all_ids))]

    one_step = OneStep(model, chars_from_ids, ids_from_chars, temperature=0.8)
    tf.random.set_seed(5)
    states = None
    next_char = tf.constant(["the ", "a la"])
    result = [next_char]
    for _ in range(10):
        next_char, ids, states = one_step.generate_one_step(next_char, states=states)
        result.append(next_char)
        values += [float(v) for v in ids.numpy()]
    values += [float(tf.reduce_sum(states))]
    texts = tf.strings.join(result)
    values += [t.decode() for t in texts.numpy()]
    return values


if __name__ == "__main__":
    print(main())
