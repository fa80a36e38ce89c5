"""An RNN cell unrolled by hand with tf.while_loop and TensorArray (the tf.function guide's dynamic_rnn), trained
with teacher forcing inside a tf.function, then greedy decoding whose `while` stops on a data-dependent tensor
condition (an end token or a length cap)."""

import numpy as np
import tensorflow as tf

VOCAB, HIDDEN, END = 6, 12, 0


class Decoder(tf.Module):
    def __init__(self):
        super().__init__()
        init = tf.random_normal_initializer(stddev=0.4, seed=2)
        self.embed = tf.Variable(init([VOCAB, HIDDEN]), name="embed")
        self.w_h = tf.Variable(init([HIDDEN, HIDDEN]), name="w_h")
        self.b = tf.Variable(tf.zeros([HIDDEN]), name="b")
        self.w_out = tf.Variable(init([HIDDEN, VOCAB]), name="w_out")

    def cell(self, token, h):
        return tf.tanh(tf.nn.embedding_lookup(self.embed, token) + h @ self.w_h + self.b)

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None, HIDDEN])])
    def teacher_forced(self, tokens, h0):
        steps = tf.shape(tokens)[1]
        outputs = tf.TensorArray(tf.float32, size=steps)

        def body(t, h, outputs):
            h = self.cell(tokens[:, t], h)
            return t + 1, h, outputs.write(t, h @ self.w_out)
        _, h, outputs = tf.while_loop(lambda t, h, o: t < steps, body, (0, h0, outputs))
        return tf.transpose(outputs.stack(), [1, 0, 2]), h

    @tf.function
    def greedy(self, start, h0, max_len):
        tokens = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        token, h = start, h0
        i = tf.constant(0)
        while i < max_len and token != END:
            h = self.cell(token[None], h)
            token = tf.argmax(h @ self.w_out, axis=-1, output_type=tf.int32)[0]
            tokens = tokens.write(i, token)
            i += 1
        return tokens.stack(), i


def main():
    tf.random.set_seed(1)
    rng = np.random.default_rng(1)
    sequences = rng.integers(1, VOCAB, (16, 7)).astype(np.int32)
    sequences[:, -1] = END
    inputs, targets = sequences[:, :-1], sequences[:, 1:]
    model = Decoder()
    optimizer = tf.keras.optimizers.Adam(0.03)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits, _ = model.teacher_forced(x, tf.zeros([tf.shape(x)[0], HIDDEN]))
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss, tf.linalg.global_norm(grads)

    values = []
    for _ in range(12):
        for start in (0, 8):
            loss, norm = train_step(inputs[start:start + 8], targets[start:start + 8])
            values += [float(loss), float(norm)]
    # A shorter sequence length and batch: the same trace (input_signature with None dims).
    logits, h = model.teacher_forced(inputs[:3, :4], tf.zeros([3, HIDDEN]))
    values += [float(tf.reduce_sum(logits)), float(tf.reduce_sum(h)), *logits.shape.as_list()]
    values.append(float(model.teacher_forced.experimental_get_tracing_count()))
    for first in range(1, VOCAB):
        decoded, length = model.greedy(tf.constant(first), tf.zeros([1, HIDDEN]), tf.constant(10))
        values += [float(length)] + decoded.numpy().astype(float).tolist()
    decoded, length = model.greedy(tf.constant(2), tf.zeros([1, HIDDEN]), tf.constant(3))
    values += [float(length)] + decoded.numpy().astype(float).tolist()
    values.append(float(model.greedy.experimental_get_tracing_count()))
    return values


if __name__ == "__main__":
    print(main())
