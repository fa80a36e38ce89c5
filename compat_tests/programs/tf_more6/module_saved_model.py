"""A tf.Module exported with tf.saved_model as in the TF "Using the SavedModel format" guide: a module with
tf.Variables and tf.function methods with input_signatures (a None batch dimension), a training step written
with tf.GradientTape inside a tf.function, a serving signature returning a dict, save with signatures=, load,
calling the restored functions and the signature (keyword arguments, dict outputs), restored variables, and the
restored module trained further with its restored train function."""

import os
import tempfile

import numpy as np
import tensorflow as tf


class LinearClassifier(tf.Module):
    def __init__(self, features, classes, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.stateless_normal([features, classes], seed=[1, 2]) * 0.1, name="w")
        self.b = tf.Variable(tf.zeros([classes]), name="b")
        self.steps = tf.Variable(0, dtype=tf.int64, trainable=False, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int32),
                                  tf.TensorSpec([], tf.float32)])
    def train(self, x, y, learning_rate):
        with tf.GradientTape() as tape:
            logits = self(x)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grad_w, grad_b = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(learning_rate * grad_w)
        self.b.assign_sub(learning_rate * grad_b)
        self.steps.assign_add(1)
        return loss

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="features")])
    def serve(self, features):
        probabilities = tf.nn.softmax(self(features))
        return {"classes": tf.argmax(probabilities, axis=-1, output_type=tf.int32), "probabilities": probabilities}


def main():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32) + (x[:, 2] > 1).astype(np.int32)
    module = LinearClassifier(4, 3)
    values = [float(module.train(x, y, tf.constant(0.5))) for _ in range(5)]

    path = os.path.join(tempfile.mkdtemp(), "classifier")
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})
    values.append(str(tf.saved_model.contains_saved_model(path)))
    loaded = tf.saved_model.load(path)
    values += [float(v) for v in loaded(x[:3]).numpy().ravel()]
    values += [float(v) for v in loaded.w.numpy().ravel()] + [int(loaded.steps.numpy())]

    serving = loaded.signatures["serving_default"]
    outputs = serving(features=tf.constant(x[:5]))
    values += [str(sorted(outputs)), str(outputs["classes"].numpy().tolist())]
    values += [float(v) for v in outputs["probabilities"].numpy().ravel()]
    # (The restored signature's output dict comes in the order of a protobuf map in TF: compared by key.)
    values += [str(list(loaded.signatures.keys()))]
    values += [f"{key}: {serving.structured_outputs[key]}" for key in sorted(serving.structured_outputs)]

    values += [float(loaded.train(x, y, tf.constant(0.25))) for _ in range(3)]
    values += [int(loaded.steps.numpy()), float(tf.reduce_sum(loaded.b)), int(module.steps.numpy())]
    values += [float(v) for v in loaded(x[:2]).numpy().ravel()]
    return values


if __name__ == "__main__":
    print(main())
