"""EfficientNet-style MBConv blocks as in the Keras "Image classification via fine-tuning with EfficientNet"
example's backbone, built by hand: an expansion 1x1 Conv2D + BatchNormalization + swish, a DepthwiseConv2D (a
VarianceScaling depthwise_initializer), squeeze-and-excitation (GlobalAveragePooling2D, Reshape, two 1x1 Conv2D
with swish and sigmoid, Multiply), a projection, Dropout(noise_shape=(None, 1, 1, 1)) and Add on the residual, a
Rescaling stem, top_dropout, categorical crossentropy with label_smoothing and top-k accuracy, then inference-mode
outputs and moving statistics."""

import keras
import numpy as np
from keras import layers


def mb_conv(inputs, filters_in, filters_out, expand_ratio, strides, se_ratio, drop_rate, name):
    filters = filters_in * expand_ratio
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=name + "expand_conv")(inputs)
    x = layers.BatchNormalization(name=name + "expand_bn")(x)
    x = layers.Activation("swish", name=name + "expand_activation")(x)
    x = layers.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False,
                               depthwise_initializer=keras.initializers.VarianceScaling(2.0, "fan_out", "normal"),
                               name=name + "dwconv")(x)
    x = layers.BatchNormalization(name=name + "bn")(x)
    x = layers.Activation("swish", name=name + "activation")(x)
    filters_se = max(1, int(filters_in * se_ratio))
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation="swish", name=name + "se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid", name=name + "se_expand")(se)
    x = layers.multiply([x, se], name=name + "se_excite")
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False, name=name + "project_conv")(x)
    x = layers.BatchNormalization(name=name + "project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def main():
    keras.utils.set_random_seed(99)
    rng = np.random.default_rng(99)
    images = rng.uniform(0, 255, (48, 16, 16, 3)).astype(np.float32)
    labels = (images[..., 0].mean(axis=(1, 2)) > images[..., 2].mean(axis=(1, 2))).astype(np.int64) + \
        2 * (images[:, :8].mean(axis=(1, 2, 3)) > 127.5)
    one_hot = keras.utils.to_categorical(labels, 4)

    inputs = layers.Input(shape=(16, 16, 3))
    x = layers.Rescaling(1.0 / 255)(inputs)
    x = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False, name="stem_conv")(x)
    x = layers.BatchNormalization(name="stem_bn")(x)
    x = layers.Activation("swish", name="stem_activation")(x)
    x = mb_conv(x, 8, 8, 2, 1, 0.25, 0.2, "block1a_")
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    x = layers.Dropout(0.2, name="top_dropout")(x)
    outputs = layers.Dense(4, activation="softmax", name="pred")(x)
    model = keras.Model(inputs, outputs, name="EfficientNet")
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-2),
                  loss=keras.losses.CategoricalCrossentropy(label_smoothing=0.1),
                  metrics=["accuracy", keras.metrics.TopKCategoricalAccuracy(k=2, name="top2")])
    history = model.fit(images[:40], one_hot[:40], epochs=2, batch_size=8, verbose=0)
    values = history.history["loss"] + history.history["accuracy"] + history.history["top2"]
    values += [str(len(model.trainable_weights)), str(model.count_params())]

    values += [float(v) for v in model(images[40:42], training=False).numpy().ravel()]
    values += [float(v) for v in model.get_layer("block1a_bn").moving_mean.numpy()[:4]]
    return values


if __name__ == "__main__":
    print(main())
