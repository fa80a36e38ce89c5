"""The keras.io example "Image classification from scratch", shrunk: data augmentation layers (RandomFlip,
RandomRotation) applied inside the model, Rescaling, a small Xception-like network (a SeparableConv2D residual block
joined with layers.add to a 1x1 strided Conv2D projection), BatchNormalization, GlobalAveragePooling2D and Dropout,
trained with Adam on BinaryCrossentropy(from_logits=True) with a BinaryAccuracy metric, then scored with
ops.sigmoid."""

import keras
import numpy as np
from keras import layers, ops


def data_augmentation(images, data_augmentation_layers):
    for layer in data_augmentation_layers:
        images = layer(images)
    return images


def make_model(input_shape, num_classes, data_augmentation_layers):
    inputs = keras.Input(shape=input_shape)
    x = data_augmentation(inputs, data_augmentation_layers)
    x = layers.Rescaling(1.0 / 255)(x)
    x = layers.Conv2D(8, 3, strides=2, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    previous_block_activation = x
    for size in [16]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(size, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])
        previous_block_activation = x
    x = layers.SeparableConv2D(24, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    units = 1 if num_classes == 2 else num_classes
    x = layers.Dropout(0.25)(x)
    outputs = layers.Dense(units, activation=None)(x)
    return keras.Model(inputs, outputs)


def main():
    keras.utils.set_random_seed(7)
    rng = np.random.default_rng(7)
    images = rng.uniform(0, 255, (32, 16, 16, 3)).astype("float32")
    labels = (images[..., 0].mean(axis=(1, 2)) > images[..., 2].mean(axis=(1, 2))).astype("float32")
    # the example builds these at import; here after the seed, so that their seed generators are reproducible
    data_augmentation_layers = [layers.RandomFlip("horizontal"), layers.RandomRotation(0.1)]
    model = make_model(input_shape=(16, 16, 3), num_classes=2, data_augmentation_layers=data_augmentation_layers)
    values = [model.count_params(), len(model.layers), str([layer.__class__.__name__ for layer in model.layers])]
    # Before fit: once Adam runs, the conv biases feeding BatchNormalization get gradients that are pure float
    # round-off (BN cancels them), which Adam scales up to full steps: weights and inference outputs after fit
    # carry that noise, the training and validation losses do not.
    predictions = keras.ops.convert_to_numpy(model(images[:4], training=False))
    values += [*predictions[:, 0].tolist(), str(predictions.shape)]
    values += [float(np.sum(w)) for w in model.get_weights()[:8]]
    model.compile(optimizer=keras.optimizers.Adam(3e-4), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(name="acc")])
    history = model.fit(images, labels, epochs=2, batch_size=16, verbose=0)
    values.append(str(sorted(history.history)))
    for key in sorted(history.history):
        values += history.history[key]
    score = keras.ops.convert_to_numpy(ops.sigmoid(model(images[:1])[0][0]))
    values.append(str(score.shape))
    augmented = data_augmentation(images[:2], data_augmentation_layers)
    values.append(str(tuple(augmented.shape)))
    return values


if __name__ == "__main__":
    print(main())
