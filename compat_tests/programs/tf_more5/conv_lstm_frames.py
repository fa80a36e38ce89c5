"""The Keras "Next-frame video prediction with Convolutional LSTMs" example, shrunk: moving-square frames, inputs
and targets shifted by one frame, ConvLSTM2D layers (return_sequences, padding="same", relu activation) with
BatchNormalization between them, a Conv3D sigmoid head, binary crossentropy with Adam, then an autoregressive
prediction of new frames from the model's own outputs."""

import keras
import numpy as np
from keras import layers


def make_frames(rng, n, steps, size):
    frames = np.zeros((n, steps, size, size, 1), dtype=np.float32)
    for i in range(n):
        row, col = rng.integers(0, size - 2, 2)
        d_row, d_col = rng.choice([-1, 1], 2)
        for t in range(steps):
            frames[i, t, row:row + 2, col:col + 2, 0] = 1.0
            if not 0 <= row + d_row <= size - 2:
                d_row = -d_row
            if not 0 <= col + d_col <= size - 2:
                d_col = -d_col
            row, col = row + d_row, col + d_col
    return frames


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    dataset = make_frames(rng, 20, 5, 6)
    x, y = dataset[:, 0:-1], dataset[:, 1:]

    inp = layers.Input(shape=(None, *x.shape[2:]))
    h = layers.ConvLSTM2D(filters=4, kernel_size=(3, 3), padding="same", return_sequences=True,
                          activation="relu")(inp)
    h = layers.BatchNormalization()(h)
    h = layers.ConvLSTM2D(filters=4, kernel_size=(1, 1), padding="same", return_sequences=True,
                          activation="relu")(h)
    h = layers.Conv3D(filters=1, kernel_size=(3, 3, 3), activation="sigmoid", padding="same")(h)
    model = keras.models.Model(inp, h)
    model.compile(loss=keras.losses.binary_crossentropy, optimizer=keras.optimizers.Adam())
    history = model.fit(x[:16], y[:16], batch_size=4, epochs=2, verbose=0)
    values = history.history["loss"] + [str(model.output_shape)]

    frames = dataset[16:17, :3]
    for _ in range(2):
        new_prediction = model(frames, training=False).numpy()
        predicted_frame = np.expand_dims(new_prediction[:, -1, ...], axis=0)
        frames = np.concatenate((frames, predicted_frame), axis=1)
        values += [float(predicted_frame.sum()), float(predicted_frame.max())]
    return values


if __name__ == "__main__":
    print(main())
