"""The tensorflow.org tutorials "Time series forecasting" and "Text classification with an RNN", shrunken: a
WindowGenerator class whose split_window slices a batch of windows, stacks the label columns with tf.stack and
calls set_shape, make_dataset through tf.keras.utils.timeseries_dataset_from_array and Dataset.map, a Baseline
model and a Dense/LSTM model fitted on it; then an Embedding(mask_zero=True) + Bidirectional(LSTM) classifier on
padded integer sequences with predict on a padded and an unpadded sample."""

import numpy as np
import tensorflow as tf


class WindowGenerator:
    def __init__(self, input_width, label_width, shift, train_df, column_names, label_columns=None):
        self.train_df = train_df
        self.label_columns = label_columns
        if label_columns is not None:
            self.label_columns_indices = {name: i for i, name in enumerate(label_columns)}
        self.column_indices = {name: i for i, name in enumerate(column_names)}
        self.input_width = input_width
        self.label_width = label_width
        self.shift = shift
        self.total_window_size = input_width + shift
        self.input_slice = slice(0, input_width)
        self.input_indices = np.arange(self.total_window_size)[self.input_slice]
        self.label_start = self.total_window_size - self.label_width
        self.labels_slice = slice(self.label_start, None)
        self.label_indices = np.arange(self.total_window_size)[self.labels_slice]

    def __repr__(self):
        return "\n".join([f"Total window size: {self.total_window_size}",
                          f"Input indices: {self.input_indices}",
                          f"Label indices: {self.label_indices}",
                          f"Label column name(s): {self.label_columns}"])

    def split_window(self, features):
        inputs = features[:, self.input_slice, :]
        labels = features[:, self.labels_slice, :]
        if self.label_columns is not None:
            labels = tf.stack([labels[:, :, self.column_indices[name]] for name in self.label_columns], axis=-1)
        inputs.set_shape([None, self.input_width, None])
        labels.set_shape([None, self.label_width, None])
        return inputs, labels

    def make_dataset(self, data):
        data = np.array(data, dtype=np.float32)
        ds = tf.keras.utils.timeseries_dataset_from_array(data=data, targets=None,
                                                          sequence_length=self.total_window_size, sequence_stride=1,
                                                          shuffle=False, batch_size=8)
        return ds.map(self.split_window)

    @property
    def train(self):
        return self.make_dataset(self.train_df)


class Baseline(tf.keras.Model):
    def __init__(self, label_index=None):
        super().__init__()
        self.label_index = label_index

    def call(self, inputs):
        if self.label_index is None:
            return inputs
        result = inputs[:, :, self.label_index]
        return result[:, :, tf.newaxis]


def main():
    tf.keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    values = []
    t = np.arange(60, dtype=np.float32)
    table = np.stack([np.sin(t / 5) + 0.1 * rng.normal(size=60), np.cos(t / 7), rng.normal(size=60)], axis=1)
    columns = ["T (degC)", "p (mbar)", "wv (m/s)"]

    w2 = WindowGenerator(input_width=6, label_width=1, shift=1, train_df=table, column_names=columns,
                         label_columns=["T (degC)"])
    values += [repr(w2)]
    example_window = tf.stack([np.array(table[:w2.total_window_size]), np.array(table[10:10 + w2.total_window_size]),
                               np.array(table[20:20 + w2.total_window_size])])
    example_inputs, example_labels = w2.split_window(example_window)
    values += [str(example_window.shape), str(example_inputs.shape), str(example_labels.shape)]
    values += [str(w2.train.element_spec)]
    for example_inputs, example_labels in w2.train.take(1):
        values += [str(example_inputs.shape), str(example_labels.shape)]

    single_step = WindowGenerator(input_width=1, label_width=1, shift=1, train_df=table, column_names=columns,
                                  label_columns=["T (degC)"])
    baseline = Baseline(label_index=single_step.column_indices["T (degC)"])
    baseline.compile(loss=tf.keras.losses.MeanSquaredError(), metrics=[tf.keras.metrics.MeanAbsoluteError()])
    values += baseline.evaluate(single_step.train, verbose=0)

    lstm_model = tf.keras.models.Sequential([tf.keras.layers.LSTM(8, return_sequences=True),
                                             tf.keras.layers.Dense(units=1)])
    wide = WindowGenerator(input_width=8, label_width=8, shift=1, train_df=table, column_names=columns,
                           label_columns=["T (degC)"])
    lstm_model.compile(loss=tf.keras.losses.MeanSquaredError(), optimizer=tf.keras.optimizers.Adam(),
                       metrics=[tf.keras.metrics.MeanAbsoluteError()])
    history = lstm_model.fit(wide.train, epochs=1, verbose=0)
    values += history.history["loss"] + history.history["mean_absolute_error"]
    wide_inputs, wide_labels = wide.split_window(tf.stack([np.array(table[:9])]))
    values += [str(lstm_model(wide_inputs).shape), str(wide_labels.shape)]

    # "Text classification with an RNN" on integer sequences (vocabulary of 30, 0 = padding)
    lengths = rng.integers(3, 10, size=32)
    sequences = np.zeros((32, 10), dtype=np.int64)
    for i, n in enumerate(lengths):
        sequences[i, :n] = rng.integers(1, 30, size=n)
    labels = (sequences[:, 0] > 15).astype(np.int64)
    model = tf.keras.Sequential([
        tf.keras.layers.Embedding(input_dim=30, output_dim=8, mask_zero=True),
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(8)),
        tf.keras.layers.Dense(8, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
    values += [str([layer.supports_masking for layer in model.layers])]
    sample = np.array([[5, 9, 12, 3]])
    predictions = model.predict(sample, verbose=0)
    padded = model.predict(np.concatenate([sample, np.zeros((1, 6), dtype=np.int64)], axis=1), verbose=0)
    values += [float(predictions[0][0]), float(padded[0][0])]
    model.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True), optimizer=tf.keras.optimizers.Adam(1e-2),
                  metrics=["accuracy"])
    dataset = tf.data.Dataset.from_tensor_slices((sequences, labels)).batch(16)
    history = model.fit(dataset, epochs=1, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    test_loss, test_acc = model.evaluate(dataset, verbose=0)
    values += [test_loss, test_acc]
    return values
