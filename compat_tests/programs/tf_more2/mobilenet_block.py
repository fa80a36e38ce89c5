"""A MobileNetV2-style image classifier (keras.applications' block structure, built by hand): a strided Conv2D
stem, inverted residual blocks (1x1 expand, DepthwiseConv2D, BatchNormalization, ReLU(max_value=6), 1x1 linear
projection, Add skips), a SeparableConv2D, GlobalAveragePooling2D, Dropout, then model.summary() text, fit with
a validation split, count_params and the BatchNormalization moving statistics."""

import numpy as np
from tensorflow import keras
from tensorflow.keras import layers


def inverted_residual(x, expansion, filters, stride, name):
    channels = x.shape[-1]
    h = layers.Conv2D(channels * expansion, 1, padding="same", use_bias=False, name=f"{name}_expand")(x)
    h = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=f"{name}_expand_bn")(h)
    h = layers.ReLU(6.0, name=f"{name}_expand_relu")(h)
    if stride == 2:
        h = layers.ZeroPadding2D(padding=((0, 1), (0, 1)), name=f"{name}_pad")(h)
    h = layers.DepthwiseConv2D(3, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{name}_depthwise")(h)
    h = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=f"{name}_depthwise_bn")(h)
    h = layers.ReLU(max_value=6, name=f"{name}_depthwise_relu")(h)
    h = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=f"{name}_project")(h)
    h = layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=f"{name}_project_bn")(h)
    if stride == 1 and channels == filters:
        return layers.Add(name=f"{name}_add")([x, h])
    return h


def build(num_classes):
    inputs = keras.Input(shape=(16, 16, 3))
    x = layers.Rescaling(1.0 / 127.5, offset=-1)(inputs)
    x = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False, name="Conv1")(x)
    x = layers.BatchNormalization(name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    x = inverted_residual(x, 1, 8, 1, "block_0")
    x = inverted_residual(x, 3, 12, 2, "block_1")
    x = inverted_residual(x, 3, 12, 1, "block_2")
    x = layers.SeparableConv2D(16, 3, padding="same", depth_multiplier=2, activation="relu6", name="sep")(x)
    x = layers.GlobalAveragePooling2D(keepdims=False)(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(num_classes, activation="softmax", name="predictions")(x)
    return keras.Model(inputs, outputs, name="tiny_mobilenet")


def main():
    keras.utils.set_random_seed(17)
    rng = np.random.default_rng(17)
    labels = rng.integers(0, 3, 96)
    images = rng.uniform(0, 255, (96, 16, 16, 3)).astype(np.float32)
    images[..., 0] += 40.0 * labels[:, None, None]  # a learnable colour cue
    images = np.clip(images, 0, 255)
    model = build(3)
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line), line_length=100)
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3, momentum=0.9),
                  loss=keras.losses.SparseCategoricalCrossentropy(), metrics=["sparse_categorical_accuracy"])
    history = model.fit(images, labels, batch_size=16, epochs=3, validation_split=0.25, verbose=0)
    values = ["\n".join(lines)]
    values += [v for key in ("loss", "sparse_categorical_accuracy", "val_loss", "val_sparse_categorical_accuracy")
               for v in history.history[key]]
    values += [float(model.count_params()), float(len(model.trainable_weights)),
               float(len(model.non_trainable_weights))]
    bn = model.get_layer("block_1_depthwise_bn")
    values += [float(np.sum(bn.moving_mean.numpy())), float(np.sum(bn.moving_variance.numpy()))]
    values += [float(model.predict(images[:8], verbose=0).sum()), float(model(images[:4], training=False)[0, 0])]
    return values


if __name__ == "__main__":
    print(main())
