"""``fit`` of Embedding models against real Keras 3.15.1: the Embedding's gradient is a tf.IndexedSlices and the
optimizers apply it row-wise, in traced steps (one graph, new ids every batch) and eager ones."""

import numpy as np
import pytest

from compat_tests.keras.training_harness import assert_close, history, twin

RNG = np.random.default_rng(3)
TOKENS = RNG.integers(0, 12, (40, 6))  # repeated ids within and across samples
LABELS = (TOKENS == 3).any(axis=1).astype(np.float32)[:, None]


def embedding_model(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((6,), dtype="int64"), keras.layers.Embedding(12, 4),
                             keras.layers.Flatten(), keras.layers.Dense(1, activation="sigmoid")])


OPTIMIZERS = {
    "adam": lambda keras: keras.optimizers.Adam(0.01),
    "rmsprop": lambda keras: keras.optimizers.RMSprop(0.01),
    "adagrad": lambda keras: keras.optimizers.Adagrad(0.1),
    "sgd_momentum_clipnorm": lambda keras: keras.optimizers.SGD(0.1, momentum=0.5, clipnorm=0.5),
    "adamw": lambda keras: keras.optimizers.AdamW(0.01, weight_decay=0.1),
}


@pytest.mark.parametrize("run_eagerly", [False, True])
@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_embedding_fit_matches_keras(optimizer, run_eagerly):
    def train(lib, model):
        model.compile(optimizer=OPTIMIZERS[optimizer](lib.keras), loss="binary_crossentropy", run_eagerly=run_eagerly)
        result = history(model.fit(TOKENS, LABELS, batch_size=8, epochs=2, shuffle=False, verbose=0))
        return result, model.get_weights()

    real, mine = twin(embedding_model, train)
    assert_close(real, mine)


def test_rows_no_batch_looked_up_keep_their_values_with_rmsprop():
    tokens = TOKENS % 10  # ids 10 and 11 never appear

    def train(lib, model):
        before = model.get_weights()[0]
        model.compile(optimizer=lib.keras.optimizers.RMSprop(0.01), loss="binary_crossentropy")
        model.fit(tokens, LABELS, batch_size=8, epochs=1, shuffle=False, verbose=0)
        return before, model.get_weights()[0]

    real, mine = twin(embedding_model, train)
    assert_close(real, mine)
    np.testing.assert_array_equal(mine[1][10:], mine[0][10:])
