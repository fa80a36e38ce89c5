"""The TF "time series forecasting" tutorial, shrunk: a WindowGenerator class building windows with
tf.keras.utils.timeseries_dataset_from_array and split_window (tf.stack of label columns, TensorShape set_shape),
single-step Dense/Conv1D models fit by compile_and_fit with EarlyStopping, a multi-output linear baseline, and
the multi-step autoregressive FeedBack model (LSTMCell wrapped in keras.layers.RNN(return_state=True) for warmup,
then one cell step per predicted time step, predictions stacked and transposed)."""

import numpy as np
import tensorflow as tf

MAX_EPOCHS = 2


class WindowGenerator:
    def __init__(self, input_width, label_width, shift, train_df, val_df, label_columns=None, columns=()):
        self.train_df, self.val_df = train_df, val_df
        self.label_columns = label_columns
        self.column_indices = {name: i for i, name in enumerate(columns)}
        self.input_width, self.label_width, self.shift = input_width, label_width, shift
        self.total_window_size = input_width + shift
        self.input_slice = slice(0, input_width)
        self.input_indices = np.arange(self.total_window_size)[self.input_slice]
        self.label_start = self.total_window_size - self.label_width
        self.labels_slice = slice(self.label_start, None)
        self.label_indices = np.arange(self.total_window_size)[self.labels_slice]

    def __repr__(self):
        return "\n".join([f"Total window size: {self.total_window_size}", f"Input indices: {self.input_indices}",
                          f"Label indices: {self.label_indices}", f"Label column name(s): {self.label_columns}"])

    def split_window(self, features):
        inputs = features[:, self.input_slice, :]
        labels = features[:, self.labels_slice, :]
        if self.label_columns is not None:
            labels = tf.stack([labels[:, :, self.column_indices[name]] for name in self.label_columns], axis=-1)
        inputs.set_shape([None, self.input_width, None])
        labels.set_shape([None, self.label_width, None])
        return inputs, labels

    def make_dataset(self, data, shuffle):
        data = np.array(data, dtype=np.float32)
        ds = tf.keras.utils.timeseries_dataset_from_array(data=data, targets=None,
                                                          sequence_length=self.total_window_size, sequence_stride=1,
                                                          shuffle=shuffle, seed=4, batch_size=32)
        return ds.map(self.split_window)

    @property
    def train(self):
        return self.make_dataset(self.train_df, shuffle=True)

    @property
    def val(self):
        return self.make_dataset(self.val_df, shuffle=False)


def compile_and_fit(model, window, patience=2):
    early_stopping = tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience, mode="min")
    model.compile(loss=tf.keras.losses.MeanSquaredError(), optimizer=tf.keras.optimizers.Adam(0.01),
                  metrics=[tf.keras.metrics.MeanAbsoluteError()])
    return model.fit(window.train, epochs=MAX_EPOCHS, validation_data=window.val, callbacks=[early_stopping],
                     verbose=0)


class FeedBack(tf.keras.Model):
    def __init__(self, units, out_steps, num_features):
        super().__init__()
        self.out_steps, self.units = out_steps, units
        self.lstm_cell = tf.keras.layers.LSTMCell(units)
        self.lstm_rnn = tf.keras.layers.RNN(self.lstm_cell, return_state=True)
        self.dense = tf.keras.layers.Dense(num_features)

    def warmup(self, inputs):
        x, *state = self.lstm_rnn(inputs)
        return self.dense(x), state

    def call(self, inputs, training=None):
        predictions = []
        prediction, state = self.warmup(inputs)
        predictions.append(prediction)
        for _ in range(1, self.out_steps):
            x, state = self.lstm_cell(prediction, states=state, training=training)
            prediction = self.dense(x)
            predictions.append(prediction)
        return tf.transpose(tf.stack(predictions), [1, 0, 2])


def main():
    tf.keras.utils.set_random_seed(71)
    rng = np.random.default_rng(71)
    t = np.arange(200, dtype=np.float32)
    columns = ["T", "p", "rh"]
    series = np.stack([np.sin(t / 12) + 0.1 * rng.normal(size=200), np.cos(t / 30) + 0.1 * rng.normal(size=200),
                       0.5 * np.sin(t / 12 + 1) + 0.1 * rng.normal(size=200)], axis=1).astype(np.float32)
    train_df, val_df = series[:140], series[140:]
    mean, std = train_df.mean(0), train_df.std(0)
    train_df, val_df = (train_df - mean) / std, (val_df - mean) / std
    values = []

    single = WindowGenerator(1, 1, 1, train_df, val_df, label_columns=["T"], columns=columns)
    wide = WindowGenerator(6, 1, 1, train_df, val_df, label_columns=["T"], columns=columns)
    values += [repr(wide)]
    inputs, labels = next(iter(wide.train))
    values += [str(inputs.shape), str(labels.shape), float(tf.reduce_sum(inputs)), float(tf.reduce_sum(labels)),
               str(wide.train.element_spec[0].shape)]

    dense = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)])
    history = compile_and_fit(dense, single)
    values += history.history["loss"] + history.history["val_mean_absolute_error"]
    conv = tf.keras.Sequential([tf.keras.layers.Conv1D(8, kernel_size=(6,), activation="relu"),
                                tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)])
    history = compile_and_fit(conv, wide)
    values += history.history["loss"] + history.history["val_loss"] + [float(v) for v in conv.evaluate(
        wide.val, verbose=0)]

    out_steps = 3
    multi = WindowGenerator(8, out_steps, out_steps, train_df, val_df, columns=columns)
    linear = tf.keras.Sequential([tf.keras.layers.Lambda(lambda x: x[:, -1:, :]),
                                  tf.keras.layers.Dense(out_steps * 3, kernel_initializer=tf.initializers.zeros()),
                                  tf.keras.layers.Reshape([out_steps, 3])])
    history = compile_and_fit(linear, multi)
    values += history.history["loss"]
    feedback = FeedBack(units=8, out_steps=out_steps, num_features=3)
    multi_inputs, _ = next(iter(multi.train))
    prediction, state = feedback.warmup(multi_inputs)
    values += [str(prediction.shape), len(state), str(feedback(multi_inputs).shape)]
    history = compile_and_fit(feedback, multi)
    values += history.history["loss"] + history.history["val_mean_absolute_error"]
    values += [float(v) for v in feedback.predict(multi_inputs[:2], verbose=0).ravel()[:8]]
    return values


if __name__ == "__main__":
    print(main())
