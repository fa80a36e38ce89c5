"""tf.experimental.Optional, tf.OptionalSpec and iterator.get_next_as_optional() against real TF."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

VALUES = [1, 2.5, np.arange(6.0).reshape(2, 3), (1, np.array([1.0, 2.0])), {"a": 1, "b": (2.0, "x")},
          [1, 2], np.array([True, False])]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_from_value(value):
    check(lambda tf, v: tf.experimental.Optional.from_value(v).get_value(), value)
    check(lambda tf, v: tf.experimental.Optional.from_value(v).has_value(), value)
    check(lambda tf, v: repr(tf.experimental.Optional.from_value(v).element_spec), value)
    check(lambda tf, v: repr(tf.experimental.Optional.from_value(v)._type_spec), value)


@pytest.mark.parametrize("value", [None, ()], ids=repr)
def test_from_nothing_raises(value):
    check(lambda tf: tf.experimental.Optional.from_value(value))


def _spec(tf):
    return (tf.TensorSpec([2], tf.float32), {"k": tf.TensorSpec([], tf.int64)})


def test_empty():
    check(lambda tf: tf.experimental.Optional.empty(_spec(tf)).has_value())
    check(lambda tf: repr(tf.experimental.Optional.empty(_spec(tf)).element_spec))
    check(lambda tf: tf.experimental.Optional.empty(_spec(tf)).get_value())
    check(lambda tf: tf.experimental.Optional.empty(None).has_value())
    check(lambda tf: tf.experimental.Optional.empty(None).get_value())


def test_abstract_and_isinstance():
    check(lambda tf: tf.experimental.Optional())
    check(lambda tf: isinstance(tf.experimental.Optional.from_value(1), tf.experimental.Optional))
    check(lambda tf: tf.OptionalSpec(tf.TensorSpec([2])).value_type is type(tf.experimental.Optional.from_value(1)))


def test_optional_spec():
    check(lambda tf: repr(tf.OptionalSpec(_spec(tf))))
    check(lambda tf: tf.OptionalSpec(_spec(tf)) == tf.OptionalSpec(_spec(tf)))
    check(lambda tf: hash(tf.OptionalSpec(_spec(tf))) == hash(tf.OptionalSpec(_spec(tf))))
    check(lambda tf: tf.OptionalSpec(tf.TensorSpec([2])) == tf.OptionalSpec(tf.TensorSpec([3])))
    check(lambda tf: tf.OptionalSpec(_spec(tf))._element_spec == _spec(tf))
    check(lambda tf: repr(tf.OptionalSpec.from_value(tf.experimental.Optional.from_value(1.0))))
    check(lambda tf: isinstance(tf.OptionalSpec(_spec(tf)), tf.TypeSpec))


@pytest.mark.parametrize("other", [[None], [2], [3], []], ids=repr)
def test_optional_spec_compatibility(other):
    def fn(tf):
        spec = tf.OptionalSpec(tf.TensorSpec([2], tf.float32))
        other_spec = tf.OptionalSpec(tf.TensorSpec(other, tf.float32))
        return (spec.is_compatible_with(other_spec), other_spec.is_compatible_with(spec),
                spec.is_compatible_with(tf.experimental.Optional.from_value(tf.zeros(other))),
                repr(spec.most_specific_common_supertype([other_spec])))
    check(fn)
    check(lambda tf: tf.OptionalSpec(tf.TensorSpec([2])).is_compatible_with(tf.OptionalSpec(tf.TensorSpec([2],
                                                                                                         tf.int32))))


def test_in_tf_function():
    def fn(tf, empty, x):
        optional = (tf.experimental.Optional.empty((tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32)))
                    if empty else tf.experimental.Optional.from_value((3, tf.constant([1.0, 2.0]))))

        @tf.function
        def read_or_zero(opt):
            return tf.cond(opt.has_value(), lambda: opt.get_value()[0] + 1, lambda: 0)

        @tf.function
        def read_if_positive(opt, x):
            return tf.cond(x > 0, lambda: opt.get_value()[1], lambda: tf.constant([7.0, 7.0]))

        return read_or_zero(optional), read_or_zero(optional), read_if_positive(optional, x)
    for empty in (False, True):
        check(fn, empty, np.array(-1))
        check(fn, empty, np.array(1))
    check(lambda tf: tf.function(lambda o: o.get_value())(tf.experimental.Optional.empty(tf.TensorSpec([]))))


def test_get_next_as_optional():
    def fn(tf):
        iterator = iter(tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [[1.0], [2.0]])))
        results = []
        for _ in range(3):
            optional = iterator.get_next_as_optional()
            results.append((optional.has_value(), repr(optional.element_spec)))
        results.append(iter(tf.data.Dataset.range(3)).get_next_as_optional().get_value())
        return results
    check(fn)
    check(lambda tf: iter(tf.data.Dataset.range(0)).get_next_as_optional().get_value())


def test_namespaces():
    for name in ("Optional",):
        assert hasattr(real.experimental, name) and hasattr(vtf.experimental, name)
    assert hasattr(real, "OptionalSpec") and hasattr(vtf, "OptionalSpec")
    assert vtf.data.experimental.Optional is vtf.experimental.Optional


@pytest.mark.parametrize("other", ["tuple", "list", "int"])
def test_optional_spec_nested_supertype(other):
    def fn(tf):
        spec = tf.OptionalSpec((tf.TensorSpec([2]), tf.TensorSpec([1])))
        pair = [tf.TensorSpec([3], tf.int32 if other == "int" else tf.float32), tf.TensorSpec([1])]
        return repr(spec.most_specific_common_supertype([tf.OptionalSpec(pair if other == "list" else tuple(pair))]))
    check(fn)
