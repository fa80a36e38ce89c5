"""A two-headed functional model (a regression head and a classification head) with a registered custom layer
(@keras.saving.register_keras_serializable, add_weight, get_config), compiled with loss and loss_weights dicts and
per-output metrics; fit with EarlyStopping(restore_best_weights=True) watching a per-output validation metric in
mode="max", ReduceLROnPlateau on the validation loss and ModelCheckpoint(save_best_only=True) to a .keras file;
the history's per-output keys, the restored weights, and keras.models.load_model of the best checkpoint (the
registered layer found by name) evaluated with return_dict=True."""

import os
import tempfile

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="programs7")
class ScaledResidual(keras.layers.Layer):
    def __init__(self, init_scale=0.5, **kwargs):
        super().__init__(**kwargs)
        self.init_scale = init_scale

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(input_shape[-1],),
                                     initializer=keras.initializers.Constant(self.init_scale))

    def call(self, inputs):
        return inputs + self.scale * keras.ops.tanh(inputs)

    def get_config(self):
        return {**super().get_config(), "init_scale": self.init_scale}


def main():
    keras.utils.set_random_seed(23)
    rng = np.random.default_rng(23)
    x = rng.normal(size=(120, 6)).astype(np.float32)
    y_value = (x[:, :2].sum(axis=1, keepdims=True) + 0.1 * rng.normal(size=(120, 1))).astype(np.float32)
    y_class = (x[:, 2] > x[:, 3]).astype(np.int32) + (x[:, 4] > 1).astype(np.int32)

    inputs = keras.Input(shape=(6,), name="features")
    trunk = ScaledResidual(0.3, name="residual")(keras.layers.Dense(10, activation="relu")(inputs))
    value = keras.layers.Dense(1, name="value")(trunk)
    label = keras.layers.Dense(3, activation="softmax", name="label")(trunk)
    model = keras.Model(inputs, {"value": value, "label": label})
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss={"value": "mse", "label": "sparse_categorical_crossentropy"},
                  loss_weights={"value": 0.5, "label": 2.0},
                  metrics={"value": ["mae"], "label": ["accuracy"]})

    path = os.path.join(tempfile.mkdtemp(), "best.keras")
    callbacks = [keras.callbacks.EarlyStopping(monitor="val_label_accuracy", mode="max", patience=1,
                                               restore_best_weights=True),
                 keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=1, min_lr=1e-3),
                 keras.callbacks.ModelCheckpoint(path, monitor="val_loss", save_best_only=True)]
    history = model.fit(x[:96], {"value": y_value[:96], "label": y_class[:96]}, batch_size=32, epochs=4,
                        validation_data=(x[96:], {"value": y_value[96:], "label": y_class[96:]}),
                        callbacks=callbacks, verbose=0)
    values = [str(sorted(history.history)), len(history.epoch)]
    for key in sorted(history.history):
        values += history.history[key]
    values += [float(v) for v in model.get_layer("residual").scale.numpy()]
    values += [str(keras.saving.get_registered_name(ScaledResidual))]

    best = keras.models.load_model(path)
    results = best.evaluate(x[96:], {"value": y_value[96:], "label": y_class[96:]}, verbose=0, return_dict=True)
    values += [str(sorted(results))] + [results[k] for k in sorted(results)]
    values += [type(best.get_layer("residual")).__name__, float(best.get_layer("residual").init_scale)]
    predicted = model.predict(x[:3], verbose=0)
    values += [str(sorted(predicted))] + [float(v) for v in predicted["label"].ravel()]
    return values


if __name__ == "__main__":
    print(main())
