"""``model.fit`` epoch time in vfw.tensorflow's Keras against real Keras 3 / TF, in one process.

Issue 8's cases: the MLP 784-512-512-10 and the small CNN on 28x28x1 images (Conv-Pool x2 +
Dense), trained with Adam and sparse categorical crossentropy (logits) plus accuracy, batch 128,
one epoch (``verbose=0``) over the same random data, after a warm-up epoch (which traces the
steps).  Target: vfw/tf <= 2.  ``python -m benchmarks.keras_fit``.
"""

import os

import numpy as np

from benchmarks.timing import interleaved_medians, print_table

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import keras as real_keras
except ImportError:
    real_keras = None


def _mlp(keras):
    return keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"),
                             keras.layers.Dense(512, activation="relu"), keras.layers.Dense(10)])


def _cnn(keras):
    layers = keras.layers
    return keras.Sequential([keras.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
                             layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(), layers.Flatten(),
                             layers.Dense(10)])


def _cases(samples):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, samples)
    return {
        f"MLP 784-512-512-10, {samples} samples": (_mlp, rng.random((samples, 784), dtype=np.float32), labels),
        f"CNN 28x28x1 (Conv-Pool x2 + Dense), {samples} samples": (
            _cnn, rng.random((samples, 28, 28, 1), dtype=np.float32), labels),
    }


def _epoch(keras, build, x, y):
    """A compiled model's one-epoch ``fit`` (warmed up once), or None when a layer is missing."""
    try:
        model = build(keras)
    except AttributeError:
        return None
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=128, epochs=1, verbose=0)
    return lambda: model.fit(x, y, batch_size=128, epochs=1, verbose=0)


def run_benchmark(rounds=15, samples=6400, quick=False):
    """Rows ``[case, vfw s/epoch, tf s/epoch, vfw/tf]`` (a tenth of the samples if ``quick``)."""
    import vfw.tensorflow as vtf

    rows = []
    for name, (build, x, y) in _cases(samples // 10 if quick else samples).items():
        candidates = {"vfw": _epoch(vtf.keras, build, x, y)}
        if real_keras is not None:
            candidates["tf"] = _epoch(real_keras, build, x, y)
        candidates = {k: v for k, v in candidates.items() if v is not None}
        if "vfw" not in candidates:
            rows.append([name, "n/a (layer missing)", "", ""])
            continue
        times = interleaved_medians(candidates, rounds=max(3, rounds // 5), target=0.5)
        tf_s = times.get("tf", float("nan"))
        rows.append([name, round(times["vfw"], 3), round(tf_s, 3), round(times["vfw"] / tf_s, 2)])
    return ["case", "vfw s/epoch", "tf s/epoch", "vfw/tf"], rows


if __name__ == "__main__":
    print_table("keras Model.fit epoch time, vfw.tensorflow vs real Keras/TF", *run_benchmark())
