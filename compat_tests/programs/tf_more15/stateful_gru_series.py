"""A stateful recurrent forecaster on a sine series, as in the classic Keras stateful-LSTM notebooks: a fixed batch
size (batch_shape on the Input), stateful GRU and LSTM layers trained with shuffle=False, reset_states between
epochs, the carried state read back from the layer's ``states`` variables, and predictions with and without a
reset to show the state really carries over."""

import numpy as np
from tensorflow import keras


def build(kind):
    keras.utils.set_random_seed(7)
    inp = keras.Input(batch_shape=(4, 5, 1))
    if kind == "gru":
        x = keras.layers.GRU(6, stateful=True, name="rnn")(inp)
    else:
        x = keras.layers.LSTM(6, stateful=True, name="rnn")(inp)
    out = keras.layers.Dense(1)(x)
    model = keras.Model(inp, out)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def main():
    t = np.arange(0, 84, dtype=np.float32)
    series = np.sin(0.3 * t) + 0.1 * np.cos(1.1 * t)
    x = np.stack([series[i:i + 5] for i in range(0, 80, 5)])[..., None][:16]
    y = series[5:85:5][:16, None]
    values = []
    for kind in ("gru", "lstm"):
        model = build(kind)
        for _ in range(3):
            hist = model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
            values.append(hist.history["loss"][0])
            model.layers[1].reset_states()
        rnn = model.get_layer("rnn")
        p1 = model.predict(x[:4], batch_size=4, verbose=0)
        states = [s.numpy() for s in rnn.states]
        values += [float(v) for v in p1.ravel()]
        values += [float(np.abs(s).sum()) for s in states]
        p2 = model.predict(x[:4], batch_size=4, verbose=0)
        values.append(float(np.abs(p2 - p1).max()) > 1e-6)
        rnn.reset_states()
        values.append(float(np.abs(rnn.states[0].numpy()).sum()))
        p3 = model.predict(x[:4], batch_size=4, verbose=0)
        values.append(float(np.abs(p3 - p1).max()) < 1e-6)
        values.append(len(rnn.states))
        values.append(str(rnn.states[0].shape))
    return values
