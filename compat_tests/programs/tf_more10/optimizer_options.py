"""Less common Keras optimizers and optimizer options, as Kaggle notebooks tune them: Adafactor, Ftrl (with l1/l2
shrinkage), Adagrad, AdamW with exclude_from_weight_decay(var_names=...), SGD with weight_decay and global_clipnorm,
Adam with gradient_accumulation_steps, RMSprop with use_ema (ema_momentum, ema_overwrite_frequency) and
finalize_variable_values; each drives a copy of one small model from the same initial weights through an eager
GradientTape loop with apply_gradients, on losses rarely used (LogCosh, Poisson, CategoricalHinge, Tversky); a final
fit with use_ema and a custom LearningRateSchedule subclass reports the optimizer's iterations and learning rate."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


class HalvingSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, initial, every):
        self.initial = initial
        self.every = every

    def __call__(self, step):
        halvings = tf.math.floordiv(tf.cast(step, tf.float32), float(self.every))
        return self.initial * tf.pow(0.5, halvings)

    def get_config(self):
        return {"initial": self.initial, "every": self.every}


def build_model():
    return keras.Sequential([keras.Input((5,)), layers.Dense(8, activation="relu", name="hidden"),
                             layers.LayerNormalization(name="norm"), layers.Dense(3, name="head")])


OPTIMIZERS = {
    "adafactor": lambda: keras.optimizers.Adafactor(learning_rate=0.05),
    "ftrl": lambda: keras.optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.01,
                                          l2_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.01),
    "adagrad": lambda: keras.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.2),
    "adamw": lambda: keras.optimizers.AdamW(learning_rate=0.02, weight_decay=0.1),
    "sgd": lambda: keras.optimizers.SGD(learning_rate=0.05, momentum=0.8, weight_decay=0.01, global_clipnorm=0.5),
    "accumulating": lambda: keras.optimizers.Adam(learning_rate=0.02, gradient_accumulation_steps=2),
    "ema": lambda: keras.optimizers.RMSprop(learning_rate=0.01, use_ema=True, ema_momentum=0.9,
                                            ema_overwrite_frequency=2),
}

LOSSES = [keras.losses.LogCosh(), keras.losses.Poisson(), keras.losses.CategoricalHinge(),
          keras.losses.Tversky(alpha=0.3, beta=0.7)]


def main():
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(24, 5)).astype(np.float32)
    y = keras.utils.to_categorical((x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 0.3), 3)

    template = build_model()
    initial = template.get_weights()
    values = []
    for index, (name, make) in enumerate(OPTIMIZERS.items()):
        model = build_model()
        model.set_weights(initial)
        optimizer = make()
        if name == "adamw":
            optimizer.exclude_from_weight_decay(var_names=["bias", "gamma", "beta"])
        loss_fn = LOSSES[index % len(LOSSES)]
        for start in range(0, 24, 12):
            xb, yb = x[start:start + 12], y[start:start + 12]
            with tf.GradientTape() as tape:
                out = model(xb, training=True)
                if isinstance(loss_fn, (keras.losses.Poisson, keras.losses.Tversky)):
                    out = tf.nn.softmax(out)
                loss = loss_fn(yb, out)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            values.append(float(loss))
        if name == "ema":
            optimizer.finalize_variable_values(model.trainable_variables)
        values.append(int(optimizer.iterations.numpy()))
        values += [float(np.sum(np.abs(w))) for w in model.get_weights()]

    model = build_model()
    model.set_weights(initial)
    optimizer = keras.optimizers.Adam(learning_rate=HalvingSchedule(0.02, 2), use_ema=True, ema_momentum=0.5)
    model.compile(optimizer=optimizer, loss=keras.losses.CategoricalCrossentropy(from_logits=True),
                  metrics=["categorical_accuracy"])
    history = model.fit(x, y, batch_size=12, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"] + history.history["categorical_accuracy"]
    values += [int(optimizer.iterations.numpy()), float(optimizer.learning_rate.numpy())]
    values.append(str(sorted(optimizer.get_config())))
    values += [float(np.sum(w)) for w in model.get_weights()]
    return values
