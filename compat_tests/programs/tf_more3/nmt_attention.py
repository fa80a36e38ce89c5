"""The TF "neural machine translation with attention" tutorial, shrunk: an Encoder (Embedding with mask_zero, a
bidirectional GRU merged by sum), Bahdanau attention written as a custom Layer (additive scores, masked softmax,
context vectors), a Decoder fed its own targets (teacher forcing) and a masked per-token loss, trained by a
tf.function train step with a tf.GradientTape; then greedy decoding one token at a time with the GRU state."""

import numpy as np
import tensorflow as tf

VOCAB_IN, VOCAB_OUT, UNITS, LENGTH, START, END = 14, 12, 16, 5, 1, 2


class Encoder(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(VOCAB_IN, units, mask_zero=True)
        self.rnn = tf.keras.layers.Bidirectional(merge_mode="sum", layer=tf.keras.layers.GRU(
            units, return_sequences=True, recurrent_initializer="glorot_uniform"))

    def call(self, x):
        return self.rnn(self.embedding(x))


class BahdanauAttention(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.W1 = tf.keras.layers.Dense(units, use_bias=False)
        self.W2 = tf.keras.layers.Dense(units, use_bias=False)
        self.V = tf.keras.layers.Dense(1)

    def call(self, query, values, mask):
        query_with_time_axis = tf.expand_dims(query, 1)
        score = self.V(tf.nn.tanh(self.W1(query_with_time_axis) + self.W2(values)))
        score = tf.where(mask[:, :, tf.newaxis], score, tf.fill(tf.shape(score), -1e9))
        attention_weights = tf.nn.softmax(score, axis=1)
        context_vector = tf.reduce_sum(attention_weights * values, axis=1)
        return context_vector, attention_weights


class Decoder(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(VOCAB_OUT, units)
        self.gru = tf.keras.layers.GRU(units, return_sequences=True, return_state=True)
        self.attention = BahdanauAttention(units)
        self.fc = tf.keras.layers.Dense(VOCAB_OUT)

    def call(self, token, state, enc_output, mask):
        context_vector, attention_weights = self.attention(state, enc_output, mask)
        x = self.embedding(token)
        x = tf.concat([tf.expand_dims(context_vector, 1), x], axis=-1)
        output, state = self.gru(x, initial_state=state)
        return self.fc(tf.reshape(output, (-1, output.shape[2]))), state, attention_weights


loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


def loss_function(real, pred):
    mask = tf.math.logical_not(tf.math.equal(real, 0))
    loss_ = loss_object(real, pred)
    mask = tf.cast(mask, dtype=loss_.dtype)
    return tf.reduce_mean(loss_ * mask)


def make_pairs(rng, count):
    lengths = rng.integers(2, LENGTH - 1, count)
    source = np.zeros((count, LENGTH), np.int32)
    target = np.zeros((count, LENGTH + 1), np.int32)
    for i, n in enumerate(lengths):
        words = rng.integers(3, VOCAB_IN, n)
        source[i, :n] = words
        target[i, 0] = START
        target[i, 1:n + 1] = (words[::-1] % (VOCAB_OUT - 3)) + 3
        target[i, n + 1] = END
    return source, target


def main():
    tf.keras.utils.set_random_seed(43)
    rng = np.random.default_rng(43)
    source, target = make_pairs(rng, 48)
    encoder, decoder = Encoder(UNITS), Decoder(UNITS)
    optimizer = tf.keras.optimizers.Adam(0.01)

    @tf.function
    def train_step(inp, targ):
        loss = 0.0
        with tf.GradientTape() as tape:
            enc_output = encoder(inp)
            mask = tf.math.not_equal(inp, 0)
            dec_hidden = tf.reduce_mean(enc_output, axis=1)
            for t in range(1, targ.shape[1]):
                dec_input = tf.expand_dims(targ[:, t - 1], 1)
                predictions, dec_hidden, _ = decoder(dec_input, dec_hidden, enc_output, mask)
                loss += loss_function(targ[:, t], predictions)
        batch_loss = loss / int(targ.shape[1] - 1)
        variables = encoder.trainable_variables + decoder.trainable_variables
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return batch_loss

    dataset = tf.data.Dataset.from_tensor_slices((source, target)).shuffle(48, seed=4).batch(16, drop_remainder=True)
    losses = []
    for _ in range(3):
        for inp, targ in dataset:
            losses.append(train_step(inp, targ))

    inp = tf.constant(source[:4])
    enc_output = encoder(inp)
    dec_hidden = tf.reduce_mean(enc_output, axis=1)
    dec_input = tf.fill([4, 1], START)
    result, weights = [], []
    for _ in range(LENGTH):
        predictions, dec_hidden, attention_weights = decoder(dec_input, dec_hidden, enc_output,
                                                             tf.math.not_equal(inp, 0))
        predicted_id = tf.argmax(predictions, axis=-1, output_type=tf.int32)
        result.append(predicted_id)
        weights.append(tf.reduce_sum(attention_weights[:, :3]))
        dec_input = tf.expand_dims(predicted_id, 1)
    return (losses + weights + [str(tf.stack(result, axis=1).numpy().tolist()), float(optimizer.iterations),
                                float(train_step.experimental_get_tracing_count())])


if __name__ == "__main__":
    print(main())
