"""Tabular models from the Keras examples "Classification with Gated Residual and Variable Selection Networks" and
"Deep & Cross Network", shrunk: a GatedLinearUnit layer (Dense * sigmoid Dense), a GatedResidualNetwork (ELU Dense,
Dropout, GLU, projection when widths differ, LayerNormalization of the residual sum), a VariableSelection layer
stacking per-feature GRNs and weighting them by a softmax over features (tf.stack, tf.expand_dims,
tf.squeeze(tf.matmul(...))), then a Cross layer (x0 * Dense(x) + x) stacked with a deep tower; both fit on dict
inputs with an Embedding for a categorical column."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


class GatedLinearUnit(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.linear = keras.layers.Dense(units)
        self.sigmoid = keras.layers.Dense(units, activation="sigmoid")

    def call(self, inputs):
        return self.linear(inputs) * self.sigmoid(inputs)


class GatedResidualNetwork(keras.layers.Layer):
    def __init__(self, units, dropout_rate):
        super().__init__()
        self.units = units
        self.elu_dense = keras.layers.Dense(units, activation="elu")
        self.linear_dense = keras.layers.Dense(units)
        self.dropout = keras.layers.Dropout(dropout_rate)
        self.gated_linear_unit = GatedLinearUnit(units)
        self.layer_norm = keras.layers.LayerNormalization()
        self.project = keras.layers.Dense(units)

    def call(self, inputs):
        x = self.elu_dense(inputs)
        x = self.linear_dense(x)
        x = self.dropout(x)
        if inputs.shape[-1] != self.units:
            inputs = self.project(inputs)
        x = inputs + self.gated_linear_unit(x)
        return self.layer_norm(x)


class VariableSelection(keras.layers.Layer):
    def __init__(self, num_features, units, dropout_rate):
        super().__init__()
        self.grns = [GatedResidualNetwork(units, dropout_rate) for _ in range(num_features)]
        self.grn_concat = GatedResidualNetwork(num_features, dropout_rate)
        self.softmax = keras.layers.Dense(num_features, activation="softmax")

    def call(self, inputs):
        v = keras.layers.concatenate(inputs)
        v = self.grn_concat(v)
        v = tf.expand_dims(self.softmax(v), axis=-1)
        x = tf.stack([grn(inputs[i]) for i, grn in enumerate(self.grns)], axis=1)
        return tf.squeeze(tf.matmul(v, x, transpose_a=True), axis=1)


class Cross(keras.layers.Layer):
    def build(self, input_shape):
        self.dense = keras.layers.Dense(input_shape[-1], kernel_initializer="glorot_normal")
        self.dense.build(input_shape)

    def call(self, x0, x):
        return x0 * self.dense(x) + x


def encoded_inputs():
    inputs = {"age": keras.Input((1,), name="age"), "job": keras.Input((1,), name="job", dtype="int32")}
    job = keras.layers.Embedding(5, 4)(inputs["job"])
    return inputs, [inputs["age"], keras.layers.Flatten()(job)]


def main():
    keras.utils.set_random_seed(43)
    rng = np.random.default_rng(43)
    n = 64
    data = {"age": rng.normal(size=(n, 1)).astype(np.float32), "job": rng.integers(0, 5, size=(n, 1)).astype(np.int32)}
    target = ((data["age"][:, 0] > 0) ^ (data["job"][:, 0] == 2)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((data, target)).batch(32)

    inputs, features = encoded_inputs()
    selected = VariableSelection(len(features), 6, 0.1)(features)
    model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(selected))
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss=keras.losses.BinaryCrossentropy(),
                  metrics=[keras.metrics.BinaryAccuracy()])
    history = model.fit(ds, epochs=2, verbose=0)
    values = history.history["loss"] + history.history["binary_accuracy"]
    values.append(len(model.trainable_weights))

    inputs, features = encoded_inputs()
    x0 = keras.layers.concatenate(features)
    cross = x0
    for _ in range(2):
        cross = Cross()(x0, cross)
    deep = keras.layers.Dense(8, activation="relu")(x0)
    merged = keras.layers.concatenate([cross, deep])
    dcn = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(merged))
    dcn.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy",
                metrics=[keras.metrics.AUC(name="auc")])
    history = dcn.fit(ds, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["auc"]
    values += [float(v) for v in dcn({k: v[:5] for k, v in data.items()}).numpy().ravel()]
    return values


if __name__ == "__main__":
    print(main())
