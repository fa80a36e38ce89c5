"""Learning-rate schedules and weighting: CosineDecay with linear warmup read back through
model.optimizer.learning_rate, a keras.ops custom loss function, class_weight and sample_weight in fit,
sample_weight in evaluate, and the model.summary() text."""

import keras
import numpy as np
from keras import ops


def focal_mse(y_true, y_pred):
    error = ops.square(y_true - ops.sigmoid(y_pred))
    return ops.mean(error * (1.0 + ops.abs(y_true - 0.5)), axis=-1)


def main():
    keras.utils.set_random_seed(23)
    rng = np.random.default_rng(23)
    x = rng.standard_normal((120, 6)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0.8).astype(np.float32)[:, None]  # imbalanced
    schedule = keras.optimizers.schedules.CosineDecay(initial_learning_rate=0.0, decay_steps=20, alpha=0.1,
                                                      warmup_target=0.05, warmup_steps=5)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(10, activation="relu", name="hidden"),
                              keras.layers.Dense(1, name="logit")], name="weighted")
    model.compile(optimizer=keras.optimizers.Adam(schedule), loss=focal_mse, metrics=["mse"])
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line))
    summary = "\n".join(lines)
    history = model.fit(x, y, batch_size=20, epochs=2, class_weight={0: 1.0, 1: 3.0}, verbose=0)
    values = history.history["loss"] + history.history["mse"]
    values += [float(ops.convert_to_numpy(model.optimizer.learning_rate)), float(model.optimizer.iterations),
               float(schedule(3)), float(schedule(12)), float(schedule(40))]
    sample_weight = np.where(y[:, 0] > 0, 2.0, 0.5).astype(np.float32)
    history = model.fit(x, y, sample_weight=sample_weight, batch_size=30, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"] + [float(ops.convert_to_numpy(model.optimizer.learning_rate))]
    values += model.evaluate(x, y, sample_weight=sample_weight, verbose=0)
    values += [summary, float(model.count_params())]
    return values


if __name__ == "__main__":
    print(main())
