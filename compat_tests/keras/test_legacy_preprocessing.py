"""tf.keras.preprocessing (text, sequence, image arrays) and keras.utils' PIL/pydot helpers against real
TF 2.21's tf.keras (Keras 3.15.1)."""

import json

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same

TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cat, dog; cat?", "", "A\tnew\nline  here"]


def _tables(tokenizer):
    """The fitted tables of a Tokenizer, key-sorted (word_docs/index_docs follow set order)."""
    return {name: sorted(dict(getattr(tokenizer, name)).items(), key=repr)
            for name in ("word_counts", "word_docs", "index_docs", "word_index", "index_word")} | {
        "document_count": tokenizer.document_count}


@pytest.mark.parametrize("kwargs", [{}, {"lower": False}, {"filters": "", "split": " "}, {"split": "a"},
                                    {"filters": ".!"}])
def test_text_to_word_sequence(kwargs):
    same(lambda lib: [lib.tf.keras.preprocessing.text.text_to_word_sequence(t, **kwargs) for t in TEXTS])


@pytest.mark.parametrize("hash_function", [None, "md5", len])
def test_hashing_trick_and_one_hot(hash_function):
    def fn(lib):
        text = lib.tf.keras.preprocessing.text
        return ([text.hashing_trick(t, 17, hash_function=hash_function) for t in TEXTS],
                [text.one_hot(t, 9, lower=False) for t in TEXTS],
                text.hashing_trick("x y", 5, analyzer=lambda s: s.split() * 2, hash_function="md5"))

    same(fn)


@pytest.mark.parametrize("kwargs", [{}, {"num_words": 4}, {"oov_token": "<oov>"}, {"num_words": 5, "oov_token": "?"},
                                    {"char_level": True}, {"lower": False, "split": " "},
                                    {"analyzer": lambda s: s.split(".")}, {"oov_token": "cat"}])
def test_tokenizer(kwargs):
    def fn(lib):
        tokenizer = lib.tf.keras.preprocessing.text.Tokenizer(**kwargs)
        tokenizer.fit_on_texts(TEXTS)
        tokenizer.fit_on_texts([["The", "cat"], "more cat text"])
        probe = TEXTS + ["unknown words and the cat", ["dog", "zebra"]]
        sequences = tokenizer.texts_to_sequences(probe)
        matrices = [tokenizer.texts_to_matrix(probe, mode=mode) for mode in ("binary", "count", "freq", "tfidf")]
        config = tokenizer.get_config()
        config = {key: (json.loads(value) if key in _tables(tokenizer) else value) for key, value in config.items()}
        restored = lib.tf.keras.preprocessing.text.tokenizer_from_json(tokenizer.to_json())
        return (_tables(tokenizer), sequences, tokenizer.sequences_to_texts(sequences + [[0, 1, 2, 99]]), matrices,
                sorted(config.items(), key=repr), _tables(restored), restored.texts_to_sequences(probe),
                [tokenizer.num_words, tokenizer.oov_token, tokenizer.filters, tokenizer.split, tokenizer.lower,
                 tokenizer.char_level])

    same(fn)


def test_tokenizer_sequences_and_errors():
    def fn(lib):
        text = lib.tf.keras.preprocessing.text
        fitted = text.Tokenizer(num_words=6)
        fitted.fit_on_sequences([[1, 2, 2], [3], []])
        results = [fitted.document_count, sorted(fitted.index_docs.items()),
                   text.Tokenizer(oov_token="?").texts_to_sequences(["not fitted"]),
                   fitted.sequences_to_matrix([[1, 2, 2, 7], [], [5]], mode="tfidf")]
        for make in (lambda: text.Tokenizer().sequences_to_matrix([[1]]),
                     lambda: text.Tokenizer(num_words=3).sequences_to_matrix([[1]], mode="tfidf"),
                     lambda: fitted.sequences_to_matrix([[1]], mode="bogus"),
                     lambda: text.Tokenizer(bogus=1)):
            try:
                make()
            except Exception as error:  # both must raise the same
                results.append((type(error).__name__, str(error)))
        return results

    same(fn)


def test_sequence_module():
    def fn(lib):
        sequence = lib.tf.keras.preprocessing.sequence
        return (sequence.pad_sequences([[1, 2, 3], [4]], maxlen=2, padding="post"),
                sequence.make_sampling_table(50), sequence.make_sampling_table(7, sampling_factor=0.3))

    same(fn)


@pytest.mark.parametrize("args", [(np.arange(6).reshape(2, 3),), (np.ones((2, 3, 4)), "channels_first"),
                                  (np.ones((2, 3, 4)), None, "int32"), (np.zeros(3),), (np.zeros((2, 2)), "bad")])
def test_img_to_array(args):
    same(lambda lib: lib.tf.keras.preprocessing.image.img_to_array(*args))


def test_pydot_errors():
    def fn(lib):
        model = lib.keras.Sequential([lib.keras.Input((2,)), lib.keras.layers.Dense(1)])
        raised = []
        for call in (lambda: lib.keras.utils.plot_model(model), lambda: lib.keras.utils.model_to_dot(model)):
            with pytest.raises(ImportError) as info:
                call()
            raised.append(str(info.value))
        return raised

    same(fn)


def _image_facts(img):
    return img.mode, img.size, np.asarray(img).tolist()


@pytest.mark.parametrize("array,kwargs", [
    (np.arange(24.0).reshape(2, 4, 3), {}), (np.arange(32.0).reshape(2, 4, 4) - 7, {}),
    (np.arange(8.0).reshape(2, 4, 1), {"scale": False}), (np.arange(8.0).reshape(2, 4, 1) * 100, {"scale": False}),
    (np.arange(24.0).reshape(3, 2, 4), {"data_format": "channels_first"}), (np.zeros((2, 2, 3)), {}),
    (np.zeros((2, 2)), {}), (np.zeros((2, 2, 2)), {})])
def test_array_to_img(array, kwargs):
    pytest.importorskip("PIL")
    same(lambda lib: _image_facts(lib.keras.utils.array_to_img(array, **kwargs)))


@pytest.mark.parametrize("kwargs", [{}, {"color_mode": "grayscale"}, {"color_mode": "rgba"},
                                    {"target_size": (3, 5)}, {"target_size": (3, 5), "interpolation": "bilinear"},
                                    {"target_size": (4, 4), "interpolation": "bicubic", "keep_aspect_ratio": True},
                                    {"target_size": (6, 2), "interpolation": "lanczos", "keep_aspect_ratio": True},
                                    {"color_mode": "cmyk"}, {"target_size": (3, 5), "interpolation": "cubic"}])
@pytest.mark.parametrize("suffix", ["png", "jpg"])
def test_save_img_then_load_img(tmp_path, kwargs, suffix):
    pytest.importorskip("PIL")
    pixels = np.random.default_rng(3).random((7, 9, 3)) * 255

    def fn(lib):
        path = tmp_path / f"{lib.name}.{suffix}"
        lib.keras.utils.save_img(path, pixels)
        return _image_facts(lib.keras.utils.load_img(path, **kwargs))

    same(fn)


def test_image_helpers_without_pil(monkeypatch):
    """Without PIL they raise ImportError naming the helper, as Keras does (real Keras binds PIL when it is
    imported, so it cannot be run without PIL in this process: this checks vfw alone)."""
    import sys

    import vfw.tensorflow as tf

    monkeypatch.setitem(sys.modules, "PIL", None)
    for name, call in [("array_to_img", lambda: tf.keras.utils.array_to_img(np.zeros((2, 2, 3)))),
                       ("load_img", lambda: tf.keras.utils.load_img("/nonexistent.png")),
                       ("save_img", lambda: tf.keras.utils.save_img("/nonexistent.png", np.zeros((2, 2, 3))))]:
        with pytest.raises(ImportError, match=name):
            call()
