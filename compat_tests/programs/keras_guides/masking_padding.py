"""The keras.io guide "Understanding masking and padding": pad_sequences (post/pre padding, truncating, value),
Embedding(mask_zero=True) and its compute_mask, the Masking layer and the _keras_mask of its output, masks
propagated through functional and Sequential models into LSTM, passing mask tensors by hand to an LSTM, a layer
that generates a mask (compute_mask), a layer that modifies the time dimension (TemporalSplit), an opt-in
supports_masking layer, and a custom layer that consumes the mask (TemporalSoftmax)."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class MyLayer(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.embedding = layers.Embedding(input_dim=50, output_dim=4, mask_zero=True)
        self.lstm = layers.LSTM(6)

    def call(self, inputs):
        x = self.embedding(inputs)
        mask = self.embedding.compute_mask(inputs)
        return self.lstm(x, mask=mask)


class TemporalSplit(keras.layers.Layer):
    def call(self, inputs):
        return tf.split(inputs, 2, axis=1)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        return tf.split(mask, 2, axis=1)


class CustomEmbedding(keras.layers.Layer):
    def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.mask_zero = mask_zero

    def build(self, input_shape):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim), initializer="random_normal",
                                          dtype="float32")

    def call(self, inputs):
        return tf.nn.embedding_lookup(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, 0)


class MyActivation(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return tf.nn.relu(inputs)


class TemporalSoftmax(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        assert mask is not None
        broadcast_float_mask = tf.expand_dims(tf.cast(mask, "float32"), -1)
        inputs_exp = tf.exp(inputs) * broadcast_float_mask
        inputs_sum = tf.reduce_sum(inputs_exp * broadcast_float_mask, axis=-1, keepdims=True)
        return inputs_exp / inputs_sum


def main():
    keras.utils.set_random_seed(17)
    values = []
    raw_inputs = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]
    padded_inputs = keras.utils.pad_sequences(raw_inputs, padding="post")
    values += [str(padded_inputs), str(padded_inputs.dtype)]
    values += [str(keras.utils.pad_sequences(raw_inputs, maxlen=4, truncating="post", value=-1))]
    values += [str(keras.utils.pad_sequences(raw_inputs))]

    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)
    values += [str(masked_output._keras_mask.numpy()), str(embedding.compute_mask(padded_inputs).numpy())]
    masking_layer = layers.Masking()
    unmasked_embedding = tf.cast(tf.tile(tf.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), tf.float32)
    masked_embedding = masking_layer(unmasked_embedding)
    values += [str(masked_embedding._keras_mask.numpy())]

    model = keras.Sequential([keras.Input((None,)), layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
                              layers.LSTM(8)])
    values += [float(np.sum(model(padded_inputs)))]
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(8)(x)
    model = keras.Model(inputs, outputs)
    values += [float(np.sum(model(padded_inputs)))]

    layer = MyLayer()
    x = np.random.default_rng(17).random((6, 9)) * 50
    x = x.astype("int32")
    x[:, 6:] = 0
    values += [float(np.sum(layer(x)))]

    first_half, second_half = TemporalSplit()(masked_embedding)
    values += [str(first_half._keras_mask.numpy()), str(second_half._keras_mask.numpy())]
    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = np.random.default_rng(1).random((3, 10)) * 9
    x = x.astype("int32")
    y = layer(x)
    mask = layer.compute_mask(x)
    values += [str(mask.numpy()), str(y._keras_mask.numpy())]

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)
    outputs = layers.LSTM(4)(x)
    model = keras.Model(inputs, outputs)
    y = model(padded_inputs)
    values += [float(np.sum(y))]

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)
    model = keras.Model(inputs, outputs)
    y = model(np.random.default_rng(2).integers(0, 10, size=(32, 100)))
    values += [str(tuple(y.shape)), float(np.nansum(y)), float(np.isnan(y).sum())]  # 0/0 at masked steps

    model = keras.Sequential([keras.Input((None,), dtype="int32"),
                              layers.Embedding(input_dim=20, output_dim=4, mask_zero=True),
                              layers.GRU(5), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(17)
    data = keras.utils.pad_sequences([list(rng.integers(1, 20, size=n)) for n in rng.integers(2, 9, size=24)],
                                     padding="post")
    targets = (data > 0).sum(axis=1, keepdims=True).astype("float32") / 8
    values += model.fit(data, targets, batch_size=8, epochs=2, verbose=0).history["loss"]
    return values


if __name__ == "__main__":
    print(main())
