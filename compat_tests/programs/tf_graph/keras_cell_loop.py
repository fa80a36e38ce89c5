"""A seq2seq-style model whose decoder steps a Keras GRUCell inside tf.while_loop with TensorArrays (outputs and
attention weights), trained with teacher forcing by a tf.function step, plus sampling-free greedy decoding that
stops when every sequence of the batch has produced its end token (a tensor `while` with `tf.reduce_all`)."""

import keras
import numpy as np
import tensorflow as tf

VOCAB, UNITS, END, MAX_LEN = 7, 16, 0, 8


class Seq2Seq(keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = keras.layers.Embedding(VOCAB, 8)
        self.encoder = keras.layers.GRU(UNITS, return_sequences=True, return_state=True)
        self.cell = keras.layers.GRUCell(UNITS)
        self.attend = keras.layers.Dense(UNITS, use_bias=False)
        self.out = keras.layers.Dense(VOCAB)

    def step(self, token, state, memory):
        scores = tf.einsum("bu,btu->bt", self.attend(state), memory)
        weights = tf.nn.softmax(scores, axis=-1)
        context = tf.einsum("bt,btu->bu", weights, memory)
        output, new_state = self.cell(tf.concat([self.embed(token), context], -1), state)
        return self.out(output), new_state[0] if isinstance(new_state, (list, tuple)) else new_state, weights

    def call(self, source, target_in):
        memory, state = self.encoder(self.embed(source))
        steps = tf.shape(target_in)[1]
        logits = tf.TensorArray(tf.float32, size=steps)

        def body(t, state, logits):
            step_logits, state, _ = self.step(target_in[:, t], state, memory)
            return t + 1, state, logits.write(t, step_logits)
        _, _, logits = tf.while_loop(lambda t, s, outputs: t < steps, body, (0, state, logits))
        return tf.transpose(logits.stack(), [1, 0, 2])

    @tf.function
    def greedy(self, source):
        memory, state = self.encoder(self.embed(source))
        batch = tf.shape(source)[0]
        token = tf.fill([batch], 1)
        done = tf.zeros([batch], tf.bool)
        tokens = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        attention = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        t = 0
        while not tf.reduce_all(done) and t < MAX_LEN:
            logits, state, weights = self.step(token, state, memory)
            token = tf.where(done, END, tf.argmax(logits, -1, output_type=tf.int32))
            done = done | (token == END)
            tokens = tokens.write(t, token)
            attention = attention.write(t, weights)
            t += 1
        return tf.transpose(tokens.stack()), attention.stack(), t


def main():
    keras.utils.set_random_seed(17)
    rng = np.random.default_rng(17)
    source = rng.integers(1, VOCAB, (24, 5)).astype(np.int32)
    target = np.concatenate([np.sort(source, axis=1), np.zeros((24, 1), np.int32)], axis=1)  # sort, then END
    target_in = np.concatenate([np.ones((24, 1), np.int32), target[:, :-1]], axis=1)
    model = Seq2Seq()
    optimizer = keras.optimizers.Adam(0.02)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(src, tgt_in, tgt):
        with tf.GradientTape() as tape:
            loss = loss_fn(tgt, model(src, tgt_in))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    values = []
    for _ in range(6):
        for start in range(0, 24, 8):
            values.append(float(train_step(source[start:start + 8], target_in[start:start + 8],
                                           target[start:start + 8])))
    tokens, attention, length = model.greedy(tf.constant(source[:4]))
    values += tokens.numpy().astype(float).ravel().tolist() + [float(length), float(tf.reduce_sum(attention))]
    values += attention.shape.as_list()
    tokens, attention, length = model.greedy(tf.constant(source[4:10]))
    values += tokens.numpy().astype(float).ravel().tolist() + [float(length)]
    values.append(float(train_step.experimental_get_tracing_count()))
    return values


if __name__ == "__main__":
    print(main())
