"""Low-level TF code as in the tf.function guide and answers that reach for tf.raw_ops: a tiny MLP written with
tf.raw_ops (MatMul, BiasAdd, Relu, Softmax, Sum/Mean with keep_dims, ConcatV2, Pack, GatherV2, SelectV2, Cast,
Fill, Range, Shape, TopKV2) trained with tf.GradientTape inside a tf.function, the raw ops' keyword-only calling
convention (TypeError for positional arguments), and the guide's pruning example: ops whose results nothing uses are
not run by the graph, so an out-of-range tf.gather left unused does not fail, while one that is returned does."""

import numpy as np
import tensorflow as tf

raw = tf.raw_ops


def dense(x, w, b, activation=True):
    h = raw.BiasAdd(value=raw.MatMul(a=x, b=w), bias=b)
    return raw.Relu(features=h) if activation else h


def main():
    rng = np.random.default_rng(21)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] ** 2 > 0.5).astype(np.int32)
    w1 = tf.Variable(rng.normal(size=(4, 8)).astype(np.float32) * 0.5)
    b1 = tf.Variable(raw.Fill(dims=[8], value=0.1))
    w2 = tf.Variable(rng.normal(size=(8, 2)).astype(np.float32) * 0.5)
    b2 = tf.Variable(raw.Fill(dims=[2], value=0.0))
    params = [w1, b1, w2, b2]
    opt = tf.keras.optimizers.Adam(0.05)

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            logits = dense(dense(xb, w1, b1), w2, b2, activation=False)
            probs = raw.Softmax(logits=logits)
            onehot = raw.Cast(x=raw.Pack(values=[raw.Equal(x=yb, y=0), raw.Equal(x=yb, y=1)], axis=1),
                              DstT=tf.float32)
            picked = raw.Sum(input=raw.Mul(x=onehot, y=raw.Log(x=probs + 1e-7)), axis=1, keep_dims=False)
            loss = raw.Neg(x=raw.Mean(input=picked, axis=0))
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    values = []
    for _ in range(3):
        for start in range(0, 32, 8):
            values.append(float(train_step(tf.constant(x[start:start + 8]), tf.constant(labels[start:start + 8]))))
    values.append(train_step.experimental_get_tracing_count())

    logits = dense(dense(tf.constant(x), w1, b1), w2, b2, activation=False)
    top = raw.TopKV2(input=raw.Reshape(tensor=logits, shape=[-1]), k=3)
    values += [float(v) for v in top.values.numpy()] + [int(v) for v in top.indices.numpy()]
    preds = raw.ArgMax(input=logits, dimension=1, output_type=tf.int32)
    values.append(float(raw.Mean(input=raw.Cast(x=raw.Equal(x=preds, y=labels), DstT=tf.float32), axis=0)))
    shape = raw.Shape(input=logits, out_type=tf.int64)
    values += [str(shape.dtype.name)] + [int(v) for v in shape.numpy()]
    rows = raw.GatherV2(params=logits, indices=raw.Range(start=0, limit=32, delta=8), axis=0)
    both = raw.ConcatV2(values=[rows, raw.SelectV2(condition=rows > 0, t=rows, e=0.0)], axis=1)
    values += [float(v) for v in both.numpy().ravel()]
    kept = raw.Sum(input=both, axis=[0, 1], keep_dims=True)
    values += [str(kept.shape), float(kept.numpy().ravel()[0])]
    for bad in (lambda: raw.Add(tf.constant(1.0), tf.constant(2.0)), lambda: raw.Relu(x=tf.constant(1.0)),
                lambda: raw.MatMul(a=tf.ones([2, 2]))):
        try:
            bad()
        except TypeError as e:
            values.append(str(e))

    @tf.function
    def unused_gather(v):
        tf.gather(v, [1])
        return v * 2.0

    @tf.function
    def used_gather(v):
        return tf.gather(v, [1])

    values += [float(unused_gather(tf.constant([1.5]))[0]), float(unused_gather(tf.constant([2.5]))[0])]
    try:
        used_gather(tf.constant([1.5]))
    except tf.errors.InvalidArgumentError as e:
        values.append(type(e).__name__)
        values.append("indices[0] = 1 is not in [0, 1)" in str(e))
    values.append(float(used_gather(tf.constant([1.0, 7.0]))[0]))
    return values
