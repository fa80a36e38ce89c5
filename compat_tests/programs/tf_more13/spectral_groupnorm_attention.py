"""A small image model from less common Keras layers, as keras.io examples combine them: SpectralNormalization
around Conv2D and Dense (its power-iteration vector u updated only in training), GroupNormalization, a
MultiHeadAttention over the two spatial axes (attention_axes=(1, 2)) with its attention scores, UnitNormalization,
and fit with a CosineDecay schedule whose learning rate the optimizer reports after each epoch."""

import numpy as np
from tensorflow import keras


class LrLogger(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rates = []

    def on_epoch_end(self, epoch, logs=None):
        self.rates.append(float(keras.ops.convert_to_numpy(self.model.optimizer.learning_rate)))


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    values = []
    x = rng.normal(size=(24, 6, 6, 2)).astype("float32")
    y = (x[..., 0].mean(axis=(1, 2)) > x[..., 1].mean(axis=(1, 2))).astype("float32")

    inputs = keras.Input((6, 6, 2))
    h = keras.layers.SpectralNormalization(keras.layers.Conv2D(8, 3, padding="same"), power_iterations=2,
                                           name="sn_conv")(inputs)
    h = keras.layers.GroupNormalization(groups=4, name="gn")(h)
    h = keras.layers.Activation("gelu")(h)
    attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, attention_axes=(1, 2), name="mha")
    h, scores = attention(h, h, return_attention_scores=True)
    h = keras.layers.GlobalAveragePooling2D()(h)
    h = keras.layers.UnitNormalization(name="unit")(h)
    outputs = keras.layers.SpectralNormalization(keras.layers.Dense(1, activation="sigmoid"), name="sn_dense")(h)
    model = keras.Model(inputs, [outputs, scores])
    values += [str(scores.shape)]
    values += [str(sorted(w.path.split("/", 1)[1] for w in model.get_layer("sn_conv").weights))]
    values += [str([w.shape for w in model.get_layer("gn").weights])]

    out, sc = model(x[:2])
    values += [float(v) for v in out.numpy().ravel()] + [float(sc.numpy().sum()), float(sc.numpy().max())]
    u_before = model.get_layer("sn_conv").vector_u.numpy().copy()
    model(x[:4], training=False)
    values += [float(np.abs(model.get_layer("sn_conv").vector_u.numpy() - u_before).max())]

    classifier = keras.Model(inputs, outputs)
    schedule = keras.optimizers.schedules.CosineDecay(0.01, decay_steps=12, alpha=0.1, warmup_target=0.02,
                                                      warmup_steps=3)
    values += [float(schedule(step)) for step in (0, 2, 3, 8, 15, 30)]
    classifier.compile(optimizer=keras.optimizers.Adam(schedule), loss="binary_crossentropy",
                       metrics=[keras.metrics.AUC(name="auc"), "accuracy"])
    logger = LrLogger()
    history = classifier.fit(x, y, batch_size=8, epochs=4, verbose=0, callbacks=[logger], shuffle=False)
    values += history.history["loss"] + history.history["auc"] + logger.rates
    values += [float(np.abs(model.get_layer("sn_conv").vector_u.numpy() - u_before).max())]
    kernel = model.get_layer("sn_conv").layer.kernel.numpy()
    values += [float(np.linalg.norm(kernel.reshape(-1, 8), 2))]
    values += [float(v) for v in classifier.predict(x[:3], verbose=0).ravel()]
    return values
