"""keras.layers.TextVectorization against real Keras 3.15.1: vocabularies, outputs, errors, training, saving."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

LIBS = ((real_tf, keras), (vtf, vtf.keras))
TEXTS = np.array(["The cat sat.", "the DOG, the cat!", "a bird", "Dog dog dog?", "<br />Cat-dog"], dtype=object)


def _both(fn):
    """``fn(tf, keras)`` in real Keras and in vfw: results (or error types) as comparable Python values."""
    out = []
    for tf, k in LIBS:
        try:
            value = fn(tf, k)
        except Exception as e:  # noqa: BLE001  (the error type is compared)
            value = ("error", type(e).__name__)
        out.append(value)
    return out


def _value(x):
    if hasattr(x, "to_list"):
        return ("ragged", x.to_list())
    if hasattr(x, "numpy"):
        return (x.dtype.name, tuple(x.shape), x.numpy().tolist())
    return x


def _layer(tf, k, data, **kwargs):
    layer = k.layers.TextVectorization(**kwargs)
    if data is not None:
        layer.adapt(data(tf) if callable(data) else data)
    return layer


CASES = [
    ({}, TEXTS),
    ({"max_tokens": 5, "output_sequence_length": 4}, lambda tf: tf.data.Dataset.from_tensor_slices(TEXTS).batch(2)),
    ({"output_sequence_length": 2}, lambda tf: tf.data.Dataset.from_tensor_slices(TEXTS)),
    ({"output_mode": "tf_idf", "ngrams": 2}, list(TEXTS)),
    ({"output_mode": "multi_hot", "standardize": "lower"}, TEXTS),
    ({"output_mode": "count", "max_tokens": 10, "pad_to_max_tokens": True, "split": "character"}, TEXTS),
    ({"standardize": "strip_punctuation", "ngrams": (1, 3)}, lambda tf: tf.constant(TEXTS[:, None])),
    ({"standardize": None, "split": None}, TEXTS),
    ({"ragged": True}, TEXTS),
    ({"vocabulary": ["cat", "dog", "the"]}, None),
    ({"vocabulary": ["", "[UNK]", "cat", "dog"], "output_sequence_length": 3}, None),
    ({"output_mode": "tf_idf", "vocabulary": ["cat", "dog"], "idf_weights": [0.5, 1.5]}, None),
    ({"output_mode": "multi_hot", "vocabulary": ["cat", "dog"]}, None),
]


@pytest.mark.parametrize("kwargs,data", CASES)
def test_vocabulary_and_outputs(kwargs, data):
    def run(tf, k):
        layer = _layer(tf, k, data, **kwargs)
        return (list(layer.get_vocabulary()), list(layer.get_vocabulary(include_special_tokens=False)),
                layer.vocabulary_size(), _value(layer(TEXTS)), _value(layer(tf.constant(TEXTS[:2, None]))),
                {key: v for key, v in layer.get_config().items() if key != "name"})
    want, got = _both(run)
    np.testing.assert_equal(got, want)


def test_callable_standardize_and_split():
    def run(tf, k):
        layer = k.layers.TextVectorization(
            standardize=lambda x: tf.strings.regex_replace(tf.strings.lower(x), "<br />", " "),
            split=lambda x: tf.strings.split(x, "-"), output_sequence_length=3)
        layer.adapt(TEXTS)
        return list(layer.get_vocabulary()), _value(layer(TEXTS))
    want, got = _both(run)
    np.testing.assert_equal(got, want)


@pytest.mark.parametrize("kwargs", [
    {"standardize": "upper"}, {"split": "comma"}, {"output_mode": "bad"}, {"ngrams": 1.5},
    {"output_mode": "count", "output_sequence_length": 3}, {"output_mode": "count", "ragged": True},
    {"vocabulary": ["a", "a"]}, {"vocabulary": ["a", "[UNK]"]}, {"max_tokens": 3, "vocabulary": ["a", "b"]},
    {"output_mode": "tf_idf", "vocabulary": ["a"]}, {"vocabulary": ["a"], "idf_weights": [1.0]},
])
def test_errors(kwargs):
    want, got = _both(lambda tf, k: k.layers.TextVectorization(**kwargs).get_vocabulary())
    assert got == want


def test_errors_at_use():
    cases = [lambda tf, k: _layer(tf, k, None, vocabulary=["a"]).adapt(TEXTS),
             lambda tf, k: _layer(tf, k, None)(tf.constant([["a", "b"]])),
             lambda tf, k: _layer(tf, k, None, output_mode="count")(TEXTS)]
    for case in cases:
        want, got = _both(case)
        assert got == want


def test_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("cat\ndog\nbird\n")
    want, got = _both(lambda tf, k: (list(_layer(tf, k, None, vocabulary=str(path)).get_vocabulary()),
                                     _value(_layer(tf, k, None, vocabulary=str(path))(TEXTS))))
    np.testing.assert_equal(got, want)


def _imdb_style(tf, k, weights, path):
    rng = np.random.RandomState(0)
    words = "good bad movie great awful plot acting fun boring love hate".split()
    texts = np.array([" ".join(rng.choice(words, rng.randint(3, 9))) + "." for _ in range(48)])
    labels = np.array([float("good" in t or "great" in t) for t in texts], np.float32)
    vectorize = k.layers.TextVectorization(max_tokens=20, output_sequence_length=8)
    vectorize.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(16))
    model = k.Sequential([k.Input(shape=(), dtype="string"), vectorize, k.layers.Embedding(20, 4),
                          k.layers.GlobalAveragePooling1D(), k.layers.Dense(1, activation="sigmoid")])
    if weights:
        model.set_weights(weights)
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(tf.data.Dataset.from_tensor_slices((texts, labels)).batch(16), epochs=2, verbose=0).history
    mapped = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(16).map(lambda x, y: (vectorize(x), y))
    first = next(iter(mapped))[0].numpy()
    model.save(path)
    loaded = k.models.load_model(path)
    same = np.allclose(loaded.predict(tf.constant(texts[:4]), verbose=0), model.predict(tf.constant(texts[:4]),
                                                                                        verbose=0))
    return model.get_weights(), history, first, list(loaded.layers[0].get_vocabulary()), same


def test_imdb_style_model_trains_like_keras(tmp_path):
    weights, want_history, want_first, want_vocab, want_same = _imdb_style(real_tf, keras, None,
                                                                          str(tmp_path / "real.keras"))
    keras.utils.set_random_seed(0)
    start = keras.Sequential([keras.Input(shape=(8,), dtype="int64"), keras.layers.Embedding(20, 4),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1, activation="sigmoid")])
    initial = start.get_weights()
    want = _imdb_style(real_tf, keras, initial, str(tmp_path / "real2.keras"))
    got = _imdb_style(vtf, vtf.keras, initial, str(tmp_path / "vfw.keras"))
    for w, g in zip(want[0], got[0]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for key in want[1]:
        np.testing.assert_allclose(got[1][key], want[1][key], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[2], want[2])
    assert got[3] == want[3] and got[4] and want[4]
