"""tf.experimental.ExtensionType basics and tf.nest's expand_composites, against real TF."""

import typing

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _classes(tf):
    """The same extension types, defined over either library."""
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor
        name: str = "m"

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)

        def total(self):
            return tf.reduce_sum(tf.where(self.mask, self.values, tf.zeros_like(self.values)))

    class Record(tf.experimental.ExtensionType):
        parts: tuple[tf.Tensor, ...]
        sizes: typing.Mapping[str, int]
        extra: typing.Optional[tf.Tensor] = None  # noqa: UP045  (TF refuses `X | None` annotations)
        scale: float = 1.5

    class Scalars(tf.experimental.ExtensionType):
        x: float
        y: int = 2
        t: tf.Tensor = 0

    class Wrapper(tf.experimental.ExtensionType):
        inner: Scalars
        pair: tuple[int, int] = (0, 0)

        def __init__(self, value):
            self.inner = Scalars(value)
            self.pair = (1, 2)

    class FloatOnly(tf.experimental.ExtensionType):
        t: tf.Tensor

        def __validate__(self):
            assert self.t.dtype.is_floating, "need float"

    return {"MaskedTensor": MaskedTensor, "Record": Record, "Scalars": Scalars, "Wrapper": Wrapper,
            "FloatOnly": FloatOnly}


def _masked(tf, values=(1, 2, 3), mask=(True, False, True), **kwargs):
    return _classes(tf)["MaskedTensor"](list(values), list(mask), **kwargs)


def test_fields_and_repr():
    check(lambda tf: (_masked(tf).values, _masked(tf).mask, _masked(tf).name, repr(_masked(tf))))
    check(lambda tf: repr(_classes(tf)["Record"]((1, 2.0), {"x": 1})))
    check(lambda tf: repr(_classes(tf)["Record"]([np.float32(1)], {}, extra=[3.0], scale=2.0)))
    check(lambda tf: repr(_classes(tf)["Wrapper"](3.0)))
    check(lambda tf: str(_classes(tf)["FloatOnly"]([1.0])))


@pytest.mark.parametrize("args", [(1,), (1.5, 3.0), (True,), ("a",), (1.0, True), (1.0, 2, "a"),
                                  (1.0, 2, [1, "a"])], ids=repr)
def test_field_conversion(args):
    check(lambda tf: repr(_classes(tf)["Scalars"](*args)))


def test_constructor_errors():
    check(lambda tf: _masked(tf, mask=(True, False)))
    check(lambda tf: _classes(tf)["MaskedTensor"]([1, 2, 3]))
    check(lambda tf: _masked(tf, name=3))
    check(lambda tf: _classes(tf)["Scalars"](x=1.0, z=2))
    check(lambda tf: _classes(tf)["FloatOnly"]([1]))
    check(lambda tf: tf.experimental.ExtensionType())
    check(lambda tf: _classes(tf)["Record"](1, {}))
    check(lambda tf: _classes(tf)["Record"]((1,), {"x": 1.5}))


def test_immutable_and_unhashable():
    def mutate(tf):
        value = _masked(tf)
        value.values = tf.constant([4, 5, 6])
    check(mutate)

    def delete(tf):
        del _classes(tf)["Scalars"](1.0).x
    check(delete)
    check(lambda tf: hash(_masked(tf)))


def test_equality():
    check(lambda tf: _masked(tf) == _masked(tf))
    check(lambda tf: _masked(tf) == _masked(tf, values=(1, 2, 4)))
    check(lambda tf: _masked(tf) != _masked(tf, values=(1, 2, 4)))
    check(lambda tf: _masked(tf) == _masked(tf, values=(1, 2), mask=(True, True)))
    check(lambda tf: _masked(tf) == _classes(tf)["Scalars"](1.0))
    check(lambda tf: repr(_classes(tf)["Wrapper"](3.0) == _classes(tf)["Wrapper"](3.0)))


def test_type_spec():
    check(lambda tf: (repr(_masked(tf)._type_spec), type(_masked(tf)._type_spec).__name__))
    check(lambda tf: repr(_classes(tf)["Wrapper"](3.0)._type_spec))
    check(lambda tf: isinstance(_masked(tf)._type_spec, tf.experimental.ExtensionTypeSpec))
    check(lambda tf: isinstance(_masked(tf)._type_spec, tf.TypeSpec))


def test_nest_expand_composites():
    check(lambda tf: tf.nest.flatten(_masked(tf), expand_composites=True))
    check(lambda tf: len(tf.nest.flatten(_masked(tf))))
    check(lambda tf: tf.nest.flatten(_classes(tf)["Record"]((1, 2.0), {"x": 1}, extra=[1.0]), expand_composites=True))
    check(lambda tf: tf.nest.flatten(_classes(tf)["Wrapper"](3.0), expand_composites=True))
    check(lambda tf: repr(tf.nest.map_structure(lambda t: t * 2, _masked(tf), expand_composites=True)))
    check(lambda tf: repr(tf.nest.pack_sequence_as(_masked(tf), [tf.constant([7, 8, 9]), tf.constant([True] * 3)],
                                                   expand_composites=True)))
    check(lambda tf: tf.nest.pack_sequence_as(_masked(tf), [tf.constant([7])], expand_composites=True))


def test_nest_expand_sparse_tensors():
    def sparse(tf):
        return tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    check(lambda tf: tf.nest.flatten(sparse(tf), expand_composites=True))
    check(lambda tf: tf.nest.flatten({"a": _masked(tf), "b": [sparse(tf), 3]}, expand_composites=True))
    check(lambda tf: tf.sparse.to_dense(tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.float32 else t,
                                                              sparse(tf), expand_composites=True)))
    check(lambda tf: len(tf.nest.flatten(sparse(tf))))


def test_in_tf_function():
    def fn(tf):
        total = tf.function(lambda value: value.total())
        return total(_masked(tf)), total(_masked(tf, values=(5, 6), mask=(False, True)))
    check(fn)


@pytest.mark.parametrize("annotation", ["tuple[tf.Tensor, ...]", "tuple[int, int]", "typing.Tuple[int, ...]", "list",
                                        "typing.List[int]", "dict", "typing.Mapping[str, int]", "typing.Any",
                                        "object", "tf.TensorShape", "tf.DType", "typing.Union[int, str]", "None",
                                        "tf.Tensor | None"])
def test_supported_annotations(annotation):
    def define(tf):
        class Holder(tf.experimental.ExtensionType):
            __annotations__ = {"x": eval(annotation, {"tf": tf, "typing": typing})}  # noqa: S307
        return Holder.__name__
    check(define)


@pytest.mark.parametrize("value", [[2, 3], None, (None, 4), "x"], ids=repr)
def test_shape_and_dtype_fields(value):
    def build(tf):
        class Described(tf.experimental.ExtensionType):
            shape: tf.TensorShape
            dtype: tf.DType = tf.float32
        return repr(Described(value)), repr(Described([1], "int32"))
    check(build)
