"""A classifier compiled with a custom loss function (label-smoothed focal loss from keras.ops log_softmax,
one_hot and logsumexp), a keras.metrics.MeanMetricWrapper around a keras.ops top-2 accuracy, and a layer whose
call uses keras.ops.custom_gradient (gradient clipping) and stop_gradient; fit, evaluate and predict."""

import keras
import numpy as np
from keras import ops


def focal_loss(y_true, logits):
    labels = ops.one_hot(ops.cast(ops.reshape(y_true, (-1,)), "int32"), 4)
    labels = 0.9 * labels + 0.1 / 4.0
    log_probs = ops.log_softmax(logits, axis=-1)
    weight = ops.power(1.0 - ops.exp(log_probs), 2.0)
    return -ops.sum(labels * weight * log_probs, axis=-1) + 0.01 * ops.logsumexp(logits, axis=-1)


def top2_accuracy(y_true, logits):
    top = ops.top_k(logits, 2)[1]
    labels = ops.cast(ops.reshape(y_true, (-1, 1)), top.dtype)
    return ops.cast(ops.any(ops.equal(top, labels), axis=-1), "float32")


@ops.custom_gradient
def clip_gradient(x):
    def grad(*args, upstream=None):
        upstream = args[0] if upstream is None else upstream
        return ops.clip(upstream, -0.05, 0.05)

    return x, grad


class ClippedCenter(keras.layers.Layer):
    def call(self, inputs):
        center = ops.stop_gradient(ops.mean(inputs, axis=0, keepdims=True))
        return clip_gradient(inputs) - 0.5 * center


def main():
    keras.utils.set_random_seed(29)
    rng = np.random.default_rng(29)
    x = rng.normal(size=(72, 6)).astype(np.float32)
    y = (np.argmax(x[:, :4] + 0.5 * x[:, 4:5], axis=1)).astype(np.int32)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(10, activation="gelu"), ClippedCenter(),
                              keras.layers.Dense(4)])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss=focal_loss,
                  metrics=[keras.metrics.MeanMetricWrapper(top2_accuracy, name="top2")])
    history = model.fit(x[:60], y[:60], batch_size=12, epochs=3, verbose=0)
    values = history.history["loss"] + history.history["top2"]
    values += [float(v) for v in model.evaluate(x[60:], y[60:], verbose=0)]
    logits = model.predict(x[60:64], verbose=0)
    values += [float(v) for v in logits.ravel()]
    values += [float(v) for v in ops.convert_to_numpy(focal_loss(y[60:64], logits))]
    return values
