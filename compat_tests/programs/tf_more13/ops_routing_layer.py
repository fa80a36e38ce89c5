"""A mixture-of-experts style custom layer written with keras.ops only (the backend-agnostic style of keras.io
examples): einsum expert projections, top_k routing, one_hot masks, segment_sum of token loads, logsumexp router
z-loss, a cond on the training flag, and sort/argsort/searchsorted/quantile in a stats helper; trained by fit with
add_loss, then saved to .keras and reloaded with the layer registered as a serializable custom object."""

import os
import tempfile

import keras
import numpy as np
from keras import ops


@keras.saving.register_keras_serializable(package="tf_more13")
class TopKRouter(keras.layers.Layer):
    def __init__(self, num_experts=4, units=6, k=2, **kwargs):
        super().__init__(**kwargs)
        self.num_experts, self.units, self.k = num_experts, units, k

    def build(self, input_shape):
        d = input_shape[-1]
        self.router = self.add_weight(shape=(d, self.num_experts), initializer="glorot_uniform", name="router")
        self.experts = self.add_weight(shape=(self.num_experts, d, self.units), initializer="glorot_uniform",
                                       name="experts")

    def call(self, x, training=None):
        logits = ops.matmul(x, self.router)
        z_loss = ops.mean(ops.square(ops.logsumexp(logits, axis=-1)))
        self.add_loss(1e-3 * z_loss)
        top_values, top_index = ops.top_k(logits, k=self.k)
        gates = ops.softmax(top_values, axis=-1)
        mask = ops.one_hot(top_index, self.num_experts)  # (batch, k, experts)
        weights = ops.einsum("bk,bke->be", gates, mask)
        expert_out = ops.einsum("bd,edu->beu", x, self.experts)
        mixed = ops.einsum("be,beu->bu", weights, expert_out)
        noise = ops.cond(training is True, lambda: 0.01 * ops.ones_like(mixed), lambda: ops.zeros_like(mixed))
        return mixed + noise

    def loads(self, x):
        _, top_index = ops.top_k(ops.matmul(x, self.router), k=1)
        expert = ops.reshape(top_index, (-1,))
        return ops.segment_sum(ops.ones_like(expert, dtype="float32"), expert, num_segments=self.num_experts)

    def get_config(self):
        return {**super().get_config(), "num_experts": self.num_experts, "units": self.units, "k": self.k}


def stats(v):
    s = ops.sort(v)
    order = ops.argsort(-v)
    pos = ops.searchsorted(s, ops.convert_to_tensor([-0.5, 0.0, 0.5]))
    q = ops.quantile(v, ops.convert_to_tensor([0.1, 0.5, 0.9]), method="linear")
    return ([float(t) for t in ops.convert_to_numpy(s[:3])] + [int(t) for t in ops.convert_to_numpy(order[:3])]
            + [int(t) for t in ops.convert_to_numpy(pos)] + [float(t) for t in ops.convert_to_numpy(q)])


def main():
    keras.utils.set_random_seed(44)
    rng = np.random.default_rng(44)
    values = []
    x = rng.normal(size=(48, 5)).astype("float32")
    y = (x[:, 0] * x[:, 1] > 0).astype("int64")

    inputs = keras.Input((5,))
    router = TopKRouter(name="router")
    h = router(inputs)
    outputs = keras.layers.Dense(2, activation="softmax")(keras.layers.Activation("relu")(h))
    model = keras.Model(inputs, outputs)
    values += [len(model.losses)]
    values += [float(v) for v in ops.convert_to_numpy(router.loads(x))]
    model.compile(optimizer=keras.optimizers.Adam(0.03), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=12, epochs=3, verbose=0, shuffle=False)
    values += history.history["loss"] + history.history["accuracy"]
    values += [float(v) for v in ops.convert_to_numpy(router.loads(x))]
    values += stats(ops.convert_to_tensor(x[:, 2]))

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "router.keras")
        model.save(path)
        reloaded = keras.models.load_model(path)
    layer = reloaded.get_layer("router")
    values += [type(layer).__name__, str(sorted(layer.get_config().items()))[:200]]
    values += [float(np.abs(reloaded.predict(x, verbose=0) - model.predict(x, verbose=0)).max())]
    values += [float(v) for v in reloaded.predict(x[:2], verbose=0).ravel()]
    return values
