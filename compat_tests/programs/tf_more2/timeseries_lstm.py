"""The Keras "timeseries weather forecasting" example, shrunk: features normalised with training-split statistics,
keras.utils.timeseries_dataset_from_array with sampling_rate, sequence_stride and targets offset, an LSTM
regressor with Huber loss and ModelCheckpoint(save_best_only) / EarlyStopping on val_loss, then predictions."""

import os
import tempfile

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(8)
    rng = np.random.default_rng(8)
    steps = 420
    t = np.arange(steps, dtype=np.float32)
    temperature = 10 + 8 * np.sin(2 * np.pi * t / 48) + rng.normal(0, 0.5, steps)
    pressure = 1000 + 5 * np.cos(2 * np.pi * t / 96) + rng.normal(0, 0.8, steps)
    humidity = 60 + 0.5 * temperature + rng.normal(0, 2, steps)
    features = np.stack([temperature, pressure, humidity], axis=1).astype(np.float32)
    split = 300
    mean, std = features[:split].mean(axis=0), features[:split].std(axis=0)
    features = (features - mean) / std

    past, future, step, sequence_length = 24, 6, 2, 12
    start = past + future
    train_targets = features[start:start + split, 0]
    train = keras.utils.timeseries_dataset_from_array(features[:split], train_targets, sequence_length=sequence_length,
                                                      sampling_rate=step, batch_size=32)
    valid_x = features[split:-(past + future)]
    valid = keras.utils.timeseries_dataset_from_array(valid_x, features[split + start:, 0],
                                                      sequence_length=sequence_length, sampling_rate=step,
                                                      sequence_stride=3, batch_size=16)
    shuffled = keras.utils.timeseries_dataset_from_array(features[:100], None, sequence_length=5, batch_size=8,
                                                         shuffle=True, seed=3, start_index=10, end_index=90)
    values = [float(b.numpy().sum()) for b in shuffled]
    inputs, targets = next(iter(train))
    values += list(inputs.shape) + list(targets.shape) + [float(inputs.numpy().sum()), float(targets.numpy().sum())]

    model_inputs = keras.layers.Input(shape=(inputs.shape[1], inputs.shape[2]))
    lstm_out = keras.layers.LSTM(16)(model_inputs)
    model = keras.Model(model_inputs, keras.layers.Dense(1)(lstm_out))
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=5e-3), loss=keras.losses.Huber(delta=0.5),
                  metrics=[keras.metrics.RootMeanSquaredError()])
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.weights.h5")
        callbacks = [keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=0, patience=2),
                     keras.callbacks.ModelCheckpoint(monitor="val_loss", filepath=path, verbose=0,
                                                     save_weights_only=True, save_best_only=True)]
        history = model.fit(train, epochs=4, validation_data=valid, callbacks=callbacks, verbose=0)
        model.load_weights(path)
    values += [v for key in ("loss", "root_mean_squared_error", "val_loss", "val_root_mean_squared_error")
               for v in history.history[key]]
    predictions = model.predict(valid.take(2), verbose=0)
    values += [float(predictions.shape[0]), float(predictions.sum()), float(np.abs(predictions).max())]
    return values


if __name__ == "__main__":
    print(main())
