"""The keras.io guide "Transfer learning & fine-tuning": trainable/non-trainable weights of Dense and
BatchNormalization layers, setting layer.trainable = False (weights move to non_trainable_weights and stop
updating in fit), recursive trainable on nested models, the typical workflow (a frozen base model called with
training=False inside a new model, train the head, then unfreeze and fine-tune with a low learning rate and
recompile), BatchNormalization staying in inference mode when frozen, and data augmentation layers in front."""

import numpy as np
from tensorflow import keras


def _summary(model):
    lines = []
    model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
    return "\n".join(lines)


def _counts(layer):
    return [float(len(layer.weights)), float(len(layer.trainable_weights)), float(len(layer.non_trainable_weights))]


def make_base_model():
    inputs = keras.Input(shape=(12, 12, 3))
    x = keras.layers.Conv2D(8, 3, padding="same")(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.Conv2D(8, 3, padding="same")(x)
    x = keras.layers.BatchNormalization()(x)
    outputs = keras.layers.Activation("relu")(x)
    return keras.Model(inputs, outputs, name="base")


def main():
    keras.utils.set_random_seed(77)
    rng = np.random.default_rng(77)
    values = []
    layer = keras.layers.Dense(3)
    layer.build((None, 4))
    values += _counts(layer)
    layer = keras.layers.BatchNormalization()
    layer.build((None, 4))
    values += _counts(layer)
    layer = keras.layers.Dense(3)
    layer.build((None, 4))
    layer.trainable = False
    values += _counts(layer)

    layer1 = keras.layers.Dense(3, activation="relu")
    layer2 = keras.layers.Dense(3, activation="sigmoid")
    model = keras.Sequential([keras.Input(shape=(3,)), layer1, layer2])
    layer1.trainable = False
    initial_layer1_weights_values = layer1.get_weights()
    model.compile(optimizer="adam", loss="mse")
    model.fit(rng.random((2, 3)), rng.random((2, 3)), verbose=0)
    final_layer1_weights_values = layer1.get_weights()
    values += [float(np.max(np.abs(a - b))) for a, b in zip(initial_layer1_weights_values,
                                                             final_layer1_weights_values)]

    inner_model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(3, activation="relu"),
                                    keras.layers.Dense(3, activation="relu")])
    model = keras.Sequential([keras.Input(shape=(3,)), inner_model, keras.layers.Dense(3, activation="sigmoid")])
    model.trainable = False
    values += [str(inner_model.trainable), str(inner_model.layers[0].trainable)]

    base_model = make_base_model()
    x_train = rng.random((32, 12, 12, 3)).astype("float32")
    base_model.compile(optimizer="adam", loss="mse")
    base_model.fit(x_train, rng.random((32, 6, 6, 8)).astype("float32"), batch_size=16, epochs=1, verbose=0)
    base_model.trainable = False
    values += _counts(base_model)

    data_augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
    inputs = keras.Input(shape=(12, 12, 3))
    x = data_augmentation(inputs)
    scale_layer = keras.layers.Rescaling(scale=1 / 127.5, offset=-1)
    x = scale_layer(x)
    x = base_model(x, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    outputs = keras.layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)
    values += [_summary(model)]

    y_train = (x_train.mean(axis=(1, 2, 3)) > 0.5).astype("float32")
    x_val, y_val = x_train[:8], y_train[:8]
    model.compile(optimizer=keras.optimizers.Adam(), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy()])
    moving_mean_before = base_model.layers[2].moving_mean.numpy()
    history = model.fit(x_train, y_train, batch_size=8, epochs=2, validation_data=(x_val, y_val), verbose=0)
    values += history.history["loss"] + history.history["val_loss"]
    values += [float(np.max(np.abs(base_model.layers[2].moving_mean.numpy() - moving_mean_before)))]

    base_model.trainable = True
    lines = []
    model.summary(show_trainable=True, print_fn=lambda line, *args, **kwargs: lines.append(line))
    values += ["\n".join(lines)]
    lines = []
    model.summary(expand_nested=True, print_fn=lambda line, *args, **kwargs: lines.append(line))
    values += ["\n".join(lines)]
    model.compile(optimizer=keras.optimizers.Adam(1e-5), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy()])
    history = model.fit(x_train, y_train, batch_size=8, epochs=1, validation_data=(x_val, y_val), verbose=0)
    values += history.history["loss"] + history.history["val_binary_accuracy"]
    values += [float(np.max(np.abs(base_model.layers[2].moving_mean.numpy() - moving_mean_before)))]
    values += _counts(model) + [float(v) for v in model.evaluate(x_val, y_val, verbose=0)]
    return values


if __name__ == "__main__":
    print(main())
