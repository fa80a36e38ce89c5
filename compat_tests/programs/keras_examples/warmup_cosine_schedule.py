"""The WarmUpCosine learning-rate schedule of the keras.io examples ("Masked image modeling with Autoencoders",
"Learning rate warmup with cosine decay"), shrunk: a LearningRateSchedule subclass built from keras.ops
(ops.cos, ops.where on the step) with get_config, evaluated step by step as the example plots it, round-tripped
through get_config/from_config and keras.optimizers.schedules.serialize, then driving AdamW in fit, with a
"Keras debugging tips" style callback recording the optimizer's iterations and learning rate at every batch and
the logs' keys at every epoch."""

import keras
import numpy as np
from keras import layers, ops


class WarmUpCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, learning_rate_base, total_steps, warmup_learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate_base = learning_rate_base
        self.total_steps = total_steps
        self.warmup_learning_rate = warmup_learning_rate
        self.warmup_steps = warmup_steps
        self.pi = np.pi

    def __call__(self, step):
        if self.total_steps < self.warmup_steps:
            raise ValueError("Total_steps must be larger or equal to warmup_steps.")
        cos_annealed_lr = ops.cos(self.pi * (ops.cast(step, "float32") - self.warmup_steps)
                                  / float(self.total_steps - self.warmup_steps))
        learning_rate = 0.5 * self.learning_rate_base * (1 + cos_annealed_lr)
        if self.warmup_steps > 0:
            if self.learning_rate_base < self.warmup_learning_rate:
                raise ValueError("Learning_rate_base must be larger or equal to warmup_learning_rate.")
            slope = (self.learning_rate_base - self.warmup_learning_rate) / self.warmup_steps
            warmup_rate = slope * ops.cast(step, "float32") + self.warmup_learning_rate
            learning_rate = ops.where(step < self.warmup_steps, warmup_rate, learning_rate)
        return ops.where(step > self.total_steps, 0.0, learning_rate)

    def get_config(self):
        return {"learning_rate_base": self.learning_rate_base, "total_steps": self.total_steps,
                "warmup_learning_rate": self.warmup_learning_rate, "warmup_steps": self.warmup_steps}


class LearningRateRecorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rates = []
        self.epoch_keys = []

    def on_train_batch_end(self, batch, logs=None):
        optimizer = self.model.optimizer
        self.rates.append(float(ops.convert_to_numpy(optimizer.learning_rate)))
        self.rates.append(int(ops.convert_to_numpy(optimizer.iterations)))

    def on_epoch_end(self, epoch, logs=None):
        self.epoch_keys.append(str(sorted(logs)))


def main():
    keras.utils.set_random_seed(21)
    total_steps, warmup_steps = 12, 3
    scheduled_lrs = WarmUpCosine(learning_rate_base=0.01, total_steps=total_steps, warmup_learning_rate=0.0,
                                 warmup_steps=warmup_steps)
    lrs = [scheduled_lrs(step) for step in range(total_steps + 2)]
    values = [float(ops.convert_to_numpy(lr)) for lr in lrs] + [str(ops.convert_to_numpy(lrs[0]).dtype)]
    config = scheduled_lrs.get_config()
    values.append(str(sorted(config.items())))
    copy = WarmUpCosine.from_config(config)
    values.append(float(ops.convert_to_numpy(copy(5))))
    serialized = keras.optimizers.schedules.serialize(scheduled_lrs)
    values.append(str(sorted(serialized)))
    values.append(str(serialized["config"] == config))
    try:
        WarmUpCosine(0.01, 2, 0.0, 5)(1)
    except ValueError as error:
        values.append(str(error))

    rng = np.random.default_rng(21)
    x = rng.normal(size=(24, 6)).astype("float32")
    y = (x[:, :3].sum(axis=1) > 0).astype("int32")
    model = keras.Sequential([keras.Input((6,)), layers.Dense(8, activation="relu"), layers.Dropout(0.1),
                              layers.Dense(2)])
    optimizer = keras.optimizers.AdamW(learning_rate=scheduled_lrs, weight_decay=0.05)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    recorder = LearningRateRecorder()
    history = model.fit(x, y, batch_size=8, epochs=2, callbacks=[recorder], verbose=0)
    values += recorder.rates + recorder.epoch_keys
    for key in sorted(history.history):
        values += history.history[key]
    values += [float(np.sum(w)) for w in model.get_weights()]
    values.append(float(ops.convert_to_numpy(model.optimizer.learning_rate)))
    return values


if __name__ == "__main__":
    print(main())
