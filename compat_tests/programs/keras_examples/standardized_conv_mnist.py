"""The keras.io examples "Customizing the convolution operation of a Conv2D layer" and "Simple MNIST convnet",
shrunk: Conv2D subclasses standardizing their kernel with ops.moments, one overriding convolution_op and one
overriding call (ops.conv plus self.bias), in the MNIST convnet (MaxPooling2D, Flatten, Dropout, softmax Dense),
labels one-hot encoded with keras.utils.to_categorical, trained with categorical_crossentropy / adam / accuracy
and validation_split, then evaluated."""

import keras
import numpy as np
from keras import layers, ops


class StandardizedConv2DWithOverride(layers.Conv2D):
    def convolution_op(self, inputs, kernel):
        mean, var = ops.moments(kernel, axes=[0, 1, 2], keepdims=True)
        return ops.conv(inputs, (kernel - mean) / ops.sqrt(var + 1e-10), padding="valid",
                        strides=list(self.strides), data_format="channels_last")


class StandardizedConv2DWithCall(layers.Conv2D):
    def call(self, inputs):
        mean, var = ops.moments(self.kernel, axes=[0, 1, 2], keepdims=True)
        result = ops.conv(inputs, (self.kernel - mean) / ops.sqrt(var + 1e-10), padding="valid",
                          strides=list(self.strides), data_format="channels_last")
        if self.use_bias:
            result = result + self.bias
        return result


def main():
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    num_classes = 10
    input_shape = (12, 12, 1)
    x_train = rng.integers(0, 256, (40, 12, 12)).astype("uint8")
    y_train = rng.integers(0, num_classes, 40)
    x_test = rng.integers(0, 256, (10, 12, 12)).astype("uint8")
    y_test = rng.integers(0, num_classes, 10)

    x_train = x_train.astype("float32") / 255
    x_test = x_test.astype("float32") / 255
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)
    values = [str(x_train.shape), str(y_train.shape), str(y_train.dtype), float(y_train[:3].argmax(axis=1).sum())]

    model = keras.Sequential([keras.Input(shape=input_shape),
                              StandardizedConv2DWithCall(8, kernel_size=(3, 3), activation="relu"),
                              layers.MaxPooling2D(pool_size=(2, 2)),
                              StandardizedConv2DWithOverride(16, kernel_size=(3, 3), activation="relu"),
                              layers.MaxPooling2D(pool_size=(2, 2)),
                              layers.Flatten(), layers.Dropout(0.5),
                              layers.Dense(num_classes, activation="softmax")])
    values += [model.count_params(), str(model.output_shape)]
    values += model.predict(x_test[:2], verbose=0).ravel().tolist()

    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=16, epochs=2, validation_split=0.1, verbose=0)
    values.append(str(sorted(history.history)))
    for key in sorted(history.history):
        values += history.history[key]
    score = model.evaluate(x_test, y_test, verbose=0)
    values += score
    values += [float(np.sum(w)) for w in model.get_weights()]
    values += model.predict(x_test[:2], verbose=0).ravel().tolist()
    return values


if __name__ == "__main__":
    print(main())
