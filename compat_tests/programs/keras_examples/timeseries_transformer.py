"""The keras.io example "Timeseries classification with a Transformer model", shrunk: transformer_encoder blocks
(LayerNormalization(epsilon=1e-6), MultiHeadAttention with dropout, a Conv1D(kernel_size=1) feed-forward pair,
residual adds) over univariate series, GlobalAveragePooling1D(data_format="channels_last"), an MLP head with
Dropout and a softmax output, trained with sparse_categorical_crossentropy / Adam / sparse_categorical_accuracy,
validation_split and an EarlyStopping(restore_best_weights=True) callback, then evaluated."""

import keras
import numpy as np
from keras import layers


def transformer_encoder(inputs, head_size, num_heads, ff_dim, dropout=0):
    x = layers.LayerNormalization(epsilon=1e-6)(inputs)
    x = layers.MultiHeadAttention(key_dim=head_size, num_heads=num_heads, dropout=dropout)(x, x)
    x = layers.Dropout(dropout)(x)
    res = x + inputs

    x = layers.LayerNormalization(epsilon=1e-6)(res)
    x = layers.Conv1D(filters=ff_dim, kernel_size=1, activation="relu")(x)
    x = layers.Dropout(dropout)(x)
    x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
    return x + res


def build_model(input_shape, head_size, num_heads, ff_dim, num_transformer_blocks, mlp_units, n_classes, dropout=0,
                mlp_dropout=0):
    inputs = keras.Input(shape=input_shape)
    x = inputs
    for _ in range(num_transformer_blocks):
        x = transformer_encoder(x, head_size, num_heads, ff_dim, dropout)

    x = layers.GlobalAveragePooling1D(data_format="channels_last")(x)
    for dim in mlp_units:
        x = layers.Dense(dim, activation="relu")(x)
        x = layers.Dropout(mlp_dropout)(x)
    outputs = layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs)


def main():
    keras.utils.set_random_seed(13)
    rng = np.random.default_rng(13)
    x_train = rng.normal(size=(32, 10)).astype("float32")
    y_train = rng.choice([-1, 1], size=32)
    x_test = rng.normal(size=(8, 10)).astype("float32")
    y_test = rng.choice([-1, 1], size=8)
    x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
    x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))
    n_classes = len(np.unique(y_train))
    y_train[y_train == -1] = 0
    y_test[y_test == -1] = 0

    model = build_model(x_train.shape[1:], head_size=8, num_heads=2, ff_dim=4, num_transformer_blocks=1,
                        mlp_units=[8], mlp_dropout=0.4, dropout=0.25, n_classes=n_classes)
    model.compile(loss="sparse_categorical_crossentropy", optimizer=keras.optimizers.Adam(learning_rate=1e-3),
                  metrics=["sparse_categorical_accuracy"])
    values = [model.count_params(), str([layer.name for layer in model.layers])]
    values += keras.ops.convert_to_numpy(model(x_test[:2])).ravel().tolist()
    callbacks = [keras.callbacks.EarlyStopping(patience=2, restore_best_weights=True)]
    history = model.fit(x_train, y_train, validation_split=0.25, epochs=2, batch_size=8, callbacks=callbacks,
                        verbose=0)
    for key in sorted(history.history):
        values += history.history[key]
    values += model.evaluate(x_test, y_test, verbose=0)
    values += [float(np.sum(w)) for w in model.get_weights()[:6]]
    return values


if __name__ == "__main__":
    print(main())
