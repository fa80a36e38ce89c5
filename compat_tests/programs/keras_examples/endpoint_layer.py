"""The keras.io example "Simple custom layer example: Endpoint layer pattern", shrunk: a LogisticEndpoint layer
that takes the targets and sample weights as inputs, computes a BinaryCrossentropy(from_logits=True) loss registered
with self.add_loss and tracks a BinaryAccuracy metric, in a functional model with three named inputs compiled
without a loss and fit on a dict of arrays; then the same model served from its inputs alone for predict."""

import keras
import numpy as np
from keras import ops


class LogisticEndpoint(keras.layers.Layer):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
        self.accuracy_fn = keras.metrics.BinaryAccuracy()

    def call(self, logits, targets=None, sample_weight=None):
        if targets is not None:
            loss = self.loss_fn(targets, logits, sample_weight)
            self.add_loss(loss)
            self.accuracy_fn.update_state(targets, logits, sample_weight)
        return ops.softmax(logits)


def main():
    keras.utils.set_random_seed(3)
    inputs = keras.Input((8,), name="inputs")
    logits = keras.layers.Dense(1)(inputs)
    targets = keras.Input((1,), name="targets")
    sample_weight = keras.Input((1,), name="sample_weight")
    preds = LogisticEndpoint()(logits, targets, sample_weight)
    model = keras.Model([inputs, targets, sample_weight], preds)
    values = [str([t.name for t in model.inputs]), str(model.output_shape), len(model.weights)]

    rng = np.random.default_rng(3)
    data = {
        "inputs": rng.random((12, 8)).astype("float32"),
        "targets": (rng.random((12, 1)) > 0.5).astype("float32"),
        "sample_weight": rng.random((12, 1)).astype("float32"),
    }
    model.compile(keras.optimizers.Adam(1e-2))
    history = model.fit(data, batch_size=4, epochs=3, verbose=0)
    values.append(str(sorted(history.history)))
    for key in sorted(history.history):
        values += history.history[key]
    values += [float(np.sum(w)) for w in model.get_weights()]
    values += [float(m) for m in model.evaluate(data, batch_size=4, verbose=0, return_dict=False) or []]
    layer = model.layers[-1]
    values += [float(layer.accuracy_fn.result()), str(layer.accuracy_fn.name)]

    inference = keras.Model(inputs, ops.sigmoid(logits))
    values += inference.predict(data["inputs"][:3], verbose=0).ravel().tolist()
    return values


if __name__ == "__main__":
    print(main())
