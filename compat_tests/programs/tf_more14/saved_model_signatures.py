"""Exporting a stateful tf.Module with tf.saved_model, as in the TF "SavedModel format" guide's serving examples:
several @tf.function methods with input_signatures (None dims, int and string inputs), a normalization layer whose
statistics an `adapt` method updates in place, a signatures dict with two named signatures (one from
get_concrete_function), tf.saved_model.save / load, calling the restored methods (updating restored variables),
the signatures' structured_outputs and keyword-only calls, and tf.saved_model.contains_saved_model."""

import os
import tempfile

import numpy as np
import tensorflow as tf


class Scorer(tf.Module):
    def __init__(self):
        super().__init__(name="scorer")
        self.mean = tf.Variable(tf.zeros([3]), trainable=False, name="mean")
        self.var = tf.Variable(tf.ones([3]), trainable=False, name="var")
        self.count = tf.Variable(0.0, trainable=False, name="count")
        self.w = tf.Variable(tf.constant([[0.5], [-1.0], [2.0]]), name="w")
        self.vocab = tf.constant(["low", "mid", "high"])

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def adapt(self, batch):
        n = tf.cast(tf.shape(batch)[0], tf.float32)
        total = self.count + n
        delta = tf.reduce_mean(batch, axis=0) - self.mean
        new_mean = self.mean + delta * n / total
        batch_var = tf.math.reduce_variance(batch, axis=0)
        self.var.assign((self.var * self.count + batch_var * n + tf.square(delta) * self.count * n / total) / total)
        self.mean.assign(new_mean)
        self.count.assign(total)
        return self.count

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def score(self, x):
        z = (x - self.mean) / tf.sqrt(self.var + 1e-3)
        return tf.squeeze(tf.matmul(z, self.w), axis=-1)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)])
    def top(self, x, k):
        scores = self.score(x)
        best = tf.math.top_k(scores, k=k)
        bucket = tf.gather(self.vocab, tf.clip_by_value(tf.cast(best.values, tf.int32) + 1, 0, 2))
        return {"scores": best.values, "index": best.indices, "bucket": bucket}


def main():
    rng = np.random.default_rng(8)
    values = []
    module = Scorer()
    for _ in range(3):
        values.append(float(module.adapt(rng.normal(size=(5, 3)).astype(np.float32) * 2 + 1)))
    x = rng.normal(size=(6, 3)).astype(np.float32)
    values += [float(v) for v in module.score(x).numpy()]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "scorer")
        signatures = {"serving_default": module.score, "ranked": module.top.get_concrete_function()}
        tf.saved_model.save(module, path, signatures=signatures)
        values += [tf.saved_model.contains_saved_model(path), tf.saved_model.contains_saved_model(folder)]
        loaded = tf.saved_model.load(path)
    values += [str(sorted(loaded.signatures.keys()))]
    serving = loaded.signatures["serving_default"]
    out = serving(x=tf.constant(x))
    values += [str(sorted(out.keys()))] + [float(v) for v in out["output_0"].numpy()]
    values += [str(sorted(serving.structured_outputs.keys()))]
    ranked = loaded.signatures["ranked"](x=tf.constant(x), k=tf.constant(3))
    values += [str(sorted(ranked.keys()))] + [float(v) for v in ranked["scores"].numpy()]
    values += [int(v) for v in ranked["index"].numpy()] + [b.decode() for b in ranked["bucket"].numpy()]
    values += [float(v) for v in loaded.score(x).numpy()]
    values.append(float(loaded.adapt(tf.constant(x))))
    values += [float(v) for v in loaded.mean.numpy()] + [float(v) for v in loaded.var.numpy()]
    values += [float(v) for v in loaded.score(x[:2]).numpy()]
    try:
        serving(tf.constant(x))
    except TypeError as e:
        values.append(type(e).__name__)
    direct = loaded.top(tf.constant(x), tf.constant(2))
    values += [str(sorted(direct.keys()))] + [float(v) for v in direct["scores"].numpy()]
    return values
