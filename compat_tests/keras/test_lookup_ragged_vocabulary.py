"""StringLookup / IntegerLookup on tf.RaggedTensor inputs (as the text generation tutorial looks up
tf.strings.unicode_split characters) against real TF 2.21's tf.keras: ragged results for "int", inverted lookups
and "one_hot", dense rows for "multi_hot" and "count"; eagerly and inside a tf.function.  Also what
get_vocabulary returns (Python special tokens, numpy scalar tokens, as printed) and the vocabulary_dtype check."""

import pytest

from compat_tests.keras.building_blocks_harness import same


def _plain(value):
    return value.to_list() if hasattr(value, "to_list") else value.numpy()


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_string_lookup_of_ragged_characters(mode):
    def fn(lib):
        layer = lib.tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode=mode)
        chars = lib.tf.strings.unicode_split(["abcd", "b", "", "dca"], "UTF-8")
        return _plain(layer(chars)), layer.vocabulary_size()

    same(fn)


def test_inverse_and_integer_lookup_of_ragged_ids():
    def fn(lib):
        tf = lib.tf
        ids = tf.RaggedTensor.from_row_lengths(tf.constant([1, 2, 3, 0, 9], "int64"), [3, 0, 2])
        inverse = tf.keras.layers.StringLookup(vocabulary=["x", "y", "z"], invert=True)
        integers = tf.keras.layers.IntegerLookup(vocabulary=[4, 5, 9], num_oov_indices=2)
        return _plain(inverse(ids)), _plain(integers(ids)), _plain(integers(ids).to_tensor())

    same(fn)


def test_ragged_lookup_inside_a_function():
    def fn(lib):
        tf = lib.tf
        layer = tf.keras.layers.StringLookup(vocabulary=["a", "b"], mask_token=None)

        @tf.function
        def ids(texts):
            return layer(tf.strings.unicode_split(texts, "UTF-8")).to_tensor()

        return ids(tf.constant(["abz", "b"])).numpy(), ids(tf.constant(["ba", "a", "zzz"])).numpy()

    same(fn)


@pytest.mark.parametrize("make", [
    lambda L: L.IntegerLookup(vocabulary=[4, 5]),
    lambda L: L.IntegerLookup(vocabulary=[4, 5], mask_token=0, invert=True),
    lambda L: L.IntegerLookup(num_oov_indices=0),
    lambda L: L.StringLookup(vocabulary=["x", "y"]),
    lambda L: L.StringLookup(mask_token=""),
])
def test_get_vocabulary_item_types(make):
    def fn(lib):
        layer = make(lib.tf.keras.layers)
        if not layer.vocabulary_size() or layer.vocabulary_size() <= 2:
            layer.adapt(["b", "a", "b"] if isinstance(layer, lib.tf.keras.layers.StringLookup) else [7, 3, 7])
        vocabulary = layer.get_vocabulary()
        return ([type(t).__name__ for t in vocabulary], str(vocabulary),
                str(layer.get_vocabulary(include_special_tokens=False)))

    same(fn)


def test_integer_lookup_takes_only_int64_vocabularies():
    same(lambda lib: lib.tf.keras.layers.IntegerLookup(vocabulary=[1], vocabulary_dtype="int32"))
