"""vfw.tensorflow's Tensor, DType, TensorShape, tf.errors and tf.constant / convert_to_tensor against real TF."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

VALUES = [1, 1.5, True, "ab", b"x", [1, 2], [1, 2.5], [[1, 2], [3, 4]], (1, 2), [], 2 ** 40, np.float64(1.5),
          np.int64(3), [np.float64(1.0)], np.arange(6).reshape(2, 3), np.array([1.5], np.float16), ["a", b"b"],
          2 ** 70, [[1], [2, 3]], None, np.array(["u"]), [True, False], complex(1, 2)]
DTYPES = [None, "float32", "int32", "float64", "int64", "bool", "string", "float16", "uint8"]


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_and_convert_to_tensor(value, dtype):
    check(lambda tf: tf.constant(value, dtype=dtype))
    check(lambda tf: tf.convert_to_tensor(value, dtype=dtype))


@pytest.mark.parametrize("value", [1, 2.5, [1, 2], np.array([1.5]), True, "a"], ids=repr)
@pytest.mark.parametrize("hint", ["float32", "int32", "bool", "int64"])
def test_convert_with_dtype_hint(value, hint):
    check(lambda tf: tf.convert_to_tensor(value, dtype_hint=hint))


def test_tensor_to_tensor_conversion():
    check(lambda tf: tf.convert_to_tensor(tf.constant(1), dtype=tf.float32))
    check(lambda tf: tf.convert_to_tensor(tf.constant(1), dtype=tf.int32))
    check(lambda tf: tf.constant(tf.constant([1, 2]), dtype=tf.float32))


@pytest.mark.parametrize("args", [(0, [2, 3]), ([1, 2], [2, 1]), ([1, 2], [3]), (1.5, [2]), ([[1, 2]], [2])])
def test_constant_with_shape(args):
    check(lambda tf: tf.constant(args[0], shape=args[1]))


@pytest.mark.parametrize("value", [1.5, 1.1, 3, True, b"x", np.float16(0.1), [1.1, 2.2], [["a", "bc"]],
                                   np.arange(12.0).reshape(3, 4), np.zeros((2, 0)), np.arange(2000.0),
                                   np.float64(1.1)], ids=repr)
def test_repr_and_str(value):
    want, got = (repr(lib.constant(value)) for lib in (real, vtf))
    assert got == want
    want, got = (str(lib.constant(value)) for lib in (real, vtf))
    assert got == want


@pytest.mark.parametrize("value", [1.5, 0.1, 3, True, b"x", np.float16(0.1), [1.1, 2.2], [["a", "bc"]],
                                   np.arange(6.0).reshape(2, 3), np.float64(1.1)], ids=repr)
@pytest.mark.parametrize("spec", ["", ".3f", ">12", "e"])
def test_format(value, spec):
    def formatted(lib):
        try:
            return format(lib.constant(value), spec)
        except (TypeError, ValueError) as e:
            return type(e).__name__
    assert formatted(vtf) == formatted(real)


def test_tensor_properties_and_protocol():
    def case(tf):
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        s = tf.constant(3)
        return (x.shape, x.dtype, x.ndim, x.get_shape(), x.device, x.numpy(), len(x), list(x), bool(tf.constant([1])),
                int(s), float(s), f"{tf.constant(1.23456):.2f}", x.numpy() is not x.numpy(), [1, 2, 3][s],
                x.ref() == x.ref(), x.ref().deref() is x)
    check(case)


@pytest.mark.parametrize("action", [lambda tf, x: x.name, lambda tf, x: hash(x), lambda tf, x: len(tf.constant(1)),
                                    lambda tf, x: bool(x), lambda tf, x: iter(tf.constant(1)),
                                    lambda tf, x: [1][tf.constant(1.0)], lambda tf, x: x.set_shape([3])])
def test_tensor_misuse(action):
    check(lambda tf: action(tf, tf.constant([1.0, 2.0])))


def test_numpy_copy_is_independent():
    for lib in (real, vtf):
        x = lib.constant([1.0, 2.0])
        a = x.numpy()
        a[0] = 5
        assert x.numpy()[0] == 1.0


NAMES = ["float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64", "bool", "string", "complex64", "complex128", "half", "double", "qint8", "resource"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects(name):
    def case(tf):
        d = getattr(tf, name)
        props = [d.name, repr(d), str(d), f"{d}", d.as_datatype_enum, d.is_floating, d.is_integer, d.is_unsigned,
                 d.is_complex, d.is_bool, d.is_quantized, d.is_numpy_compatible,
                 d == name if name != "double" else True, d.base_dtype.name, d.real_dtype.name,
                 hash(d) == hash(tf.as_dtype(d.name))]
        for attr in ("size", "min", "max", "limits"):
            try:
                props.append(getattr(d, attr))
            except (TypeError, ValueError, KeyError) as e:
                props.append(type(e).__name__)
        return props
    check(case)


@pytest.mark.parametrize("value", ["float32", "half", np.float64, np.dtype("int8"), float, bool, 1, 9, "foo", int,
                                   np.dtype("U2")], ids=repr)
def test_as_dtype(value):
    check(lambda tf: tf.as_dtype(value))


def test_dtype_comparisons():
    check(lambda tf: [tf.float32 == np.float32, tf.float32 == "float32", tf.float32 != tf.float64,
                      tf.float32.is_compatible_with(tf.float32), tf.float32 == 3, tf.dtypes.as_dtype("bool").name,
                      tf.float32.as_numpy_dtype is np.float32, tf.string.as_numpy_dtype is object])


def test_tensor_shape():
    def case(tf):
        s, u = tf.TensorShape([None, 3]), tf.TensorShape(None)
        return (s.rank, s.ndims, len(s), s[0], s[1], s[0:1], s.as_list(), s.is_fully_defined(), s.num_elements(),
                u.rank, repr(u), str(u), repr(s), str(s), str(tf.TensorShape([2])), s.is_compatible_with([2, 3]),
                s.is_compatible_with([2, 4]), s.merge_with([2, None]), s.concatenate([4]),
                s == tf.TensorShape([None, 3]), s == [None, 3], tf.TensorShape([2, 3]) == (2, 3),
                s.most_specific_compatible_shape([2, 3]),
                repr(tf.TensorShape([])), list(s), bool(tf.TensorShape([])), bool(u), s.with_rank(2),
                tf.TensorShape([2, 3]) + [4], u.is_compatible_with([1, 2]), tf.TensorShape([4]).num_elements())
    check(case)


@pytest.mark.parametrize("action", [lambda s: tf_unknown(s).as_list(), lambda s: len(tf_unknown(s)),
                                    lambda s: s.merge_with([1, 4]), lambda s: s[5], lambda s: s.with_rank(3),
                                    lambda s: type(s)([1.5])])
def test_tensor_shape_errors(action):
    check(lambda tf: action(tf.TensorShape([None, 3])))


def tf_unknown(shape):
    return type(shape)(None)


def test_errors_module():
    def case(tf):
        e = tf.errors.InvalidArgumentError(None, None, "msg")
        return (str(e), e.message, e.op, e.node_def, e.error_code, tf.errors.INVALID_ARGUMENT, tf.errors.NOT_FOUND,
                isinstance(e, tf.errors.OpError), issubclass(tf.errors.OutOfRangeError, tf.errors.OpError),
                tf.errors.OutOfRangeError(None, None, "x").error_code)
    check(case)
