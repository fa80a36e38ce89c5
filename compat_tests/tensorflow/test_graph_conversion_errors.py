"""Converting a value TF does not convert (None in a shape, a dict): ValueError eagerly, TypeError while a graph is
built (tf.function), against real TensorFlow 2.21."""

import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("tensorflow")


@pytest.mark.parametrize("make", [lambda tf: tf.zeros((None, 4)), lambda tf: tf.constant([None, 2]),
                                  lambda tf: tf.ones([None]), lambda tf: tf.constant({"a": 1})],
                         ids=["zeros", "constant", "ones", "dict"])
def test_graph_constants_refuse_unconvertible_values_with_type_error(make):
    for lib in (real, vtf):
        with pytest.raises(ValueError, match="Attempt to convert a value"):
            make(lib)
        with pytest.raises(TypeError):
            lib.function(lambda lib=lib: make(lib))()
