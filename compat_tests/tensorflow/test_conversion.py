"""tf.convert_to_tensor against real TF: Python data (dtype inference, mixed types, ranges, requested dtypes and
hints), lists holding tensors (packed as TF packs them, differentiably) and TF's conversion error texts."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, real, vtf

# Python and numpy data TF converts by its own sequence rules (the first leaf decides the dtype).
DATA = [1.5, 3, True, 2 ** 31, -2 ** 31, 2 ** 63, 1e300, 3.5e38, float("inf"), float("nan"), [float("nan"), 1e300],
        [1, 2.5], [2.5, 1], [True, 1], [1, True], [True, 2.5], [1, 1j], [1j, 2.0], [1j, True], [1.0, "a"], ["a", 1],
        [1, None], [None, 1], [1, [2]], [[1], 2], [[1, 2], (3, 4)], [[], []], [2 ** 31, 1], [1, 2 ** 63],
        [1, -2 ** 63], [np.int64(1), 2], [np.uint8(1)], [np.int64(2 ** 40)], [np.float16(1), 2.0],
        [2.0, np.float16(1)], [1, np.float64(2)], [np.float64(2), 1], [np.float32(1), np.float64(2)],
        [np.float16(1), 1e5], [np.float32(1), 1e300], [1.0, np.float64(1e300)], [np.bool_(False), 1],
        [np.array([1, 2]), [3, 4]], [[1, 2], np.array([3, 4])], [np.ones(2, np.float32), np.ones(2)],
        [np.ones(2, np.int8), [1.5, 2]], [np.array(1.5), 2], [np.array(2), 2.5], [np.ones(2), "a"],
        [np.array(["a", "b"]), ["c", "d"]], [[1.0, 2.0], [3.0, 4.0]], [[1, 2], [3, 2 ** 40]], [[1, 2], [3]],
        np.array([1, "a"], dtype=object), np.array(["2020-01-01"], "datetime64[D]"), np.float64(2)]
DTYPES = [None, "float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "uint64", "bool",
          "string", "complex64"]


def _negative_ints(value):
    if isinstance(value, (list, tuple)):
        return any(_negative_ints(v) for v in value)
    return type(value) is int and value < 0


def _skip_tf_system_error(value, dtype):
    if dtype == "uint64" and _negative_ints(value):
        pytest.skip("TF raises SystemError from inside its C conversion of negative ints to uint64")


@pytest.mark.parametrize("value", DATA, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
def test_python_data(value, dtype):
    _skip_tf_system_error(value, dtype)
    check(lambda tf: tf.convert_to_tensor(value, dtype=dtype))


@pytest.mark.parametrize("value", [3, 3.5, True, 300, [1, 2.5], [1.5, 2], [True, 1], [1e300], 2 ** 40,
                                   np.ones(2, np.float32), np.ones(2, np.int64), np.float32(1.5), np.int64(2)],
                         ids=repr)
@pytest.mark.parametrize("hint", ["float64", "float16", "int32", "int8", "bool"])
def test_python_data_with_hint(value, hint):
    check(lambda tf: tf.convert_to_tensor(value, dtype_hint=hint))


@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 - 1, [1, 2 ** 63], -1, [-1]], ids=repr)
@pytest.mark.parametrize("dtype", ["uint64", "uint32", "int64", "float64"])
def test_integer_ranges(value, dtype):
    _skip_tf_system_error(value, dtype)
    check(lambda tf: tf.convert_to_tensor(value, dtype=dtype))


def test_large_python_int_to_float():
    check(lambda tf: tf.convert_to_tensor(2 ** 70, tf.float32))
    check(lambda tf: tf.convert_to_tensor(10 ** 400, tf.float64))
    check(lambda tf: tf.convert_to_tensor([1.0, 10 ** 40]))


# -- lists holding tensors are packed --------------------------------------------------------------------------
def _pair(tf):
    return tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])


PACKED = {
    "tensors": lambda tf: tf.convert_to_tensor(list(_pair(tf))),
    "tuple": lambda tf: tf.convert_to_tensor(_pair(tf)),
    "scalars": lambda tf: tf.convert_to_tensor([tf.constant(1.0), tf.constant(2.0)]),
    "tensor and number": lambda tf: tf.convert_to_tensor([tf.constant(1.0), 2.0]),
    "number first": lambda tf: tf.convert_to_tensor([2, tf.constant(1.0)]),
    "int tensor and int": lambda tf: tf.convert_to_tensor([tf.constant(1), 2]),
    "int64 tensor and big int": lambda tf: tf.convert_to_tensor([tf.constant(1, tf.int64), 2 ** 40]),
    "int32 tensor and big int": lambda tf: tf.convert_to_tensor([2 ** 40, tf.constant(1)]),
    "uint8 tensor wraps": lambda tf: tf.convert_to_tensor([tf.constant(1, tf.uint8), 300]),
    "float16 overflows": lambda tf: tf.convert_to_tensor([tf.constant(1.0, tf.float16), 1e6]),
    "bool number": lambda tf: tf.convert_to_tensor([True, tf.constant(1.0)]),
    "float into int tensor": lambda tf: tf.convert_to_tensor([3.5, tf.constant(1)]),
    "int into bool tensor": lambda tf: tf.convert_to_tensor([1, tf.constant(True)]),
    "text into float tensor": lambda tf: tf.convert_to_tensor(["a", tf.constant(1.0)]),
    "strings": lambda tf: tf.convert_to_tensor([tf.constant("a"), "b"]),
    "nested": lambda tf: tf.convert_to_tensor([[_pair(tf)[0], [5.0, 6.0]], list(_pair(tf))]),
    "nested scalars": lambda tf: tf.convert_to_tensor([[tf.constant(1.0), 2.0], [3.0, tf.constant(4.0)]]),
    "nested tuples": lambda tf: tf.convert_to_tensor(((_pair(tf)[0],), (_pair(tf)[1],))),
    "first tensor decides": lambda tf: tf.convert_to_tensor([[1, 2], [tf.constant(1.0), 3]]),
    "numpy inside": lambda tf: tf.convert_to_tensor([_pair(tf)[0], np.array([1.0, 2.0])]),
    "numpy ints inside": lambda tf: tf.convert_to_tensor([np.ones(2, np.int64), _pair(tf)[0]]),
    "variables": lambda tf: tf.convert_to_tensor([tf.Variable([1.0, 2.0]), tf.Variable([1.0, 3.0])]),
    "variable and number": lambda tf: tf.convert_to_tensor([tf.Variable(1.0), 2.0]),
    "2-D tensors": lambda tf: tf.convert_to_tensor([tf.ones((2, 3)), tf.zeros((2, 3))]),
    "one element": lambda tf: tf.convert_to_tensor([tf.constant(1.0)]),
    "dtypes differ": lambda tf: tf.convert_to_tensor([tf.constant(1.0, tf.float64), tf.constant(1.0)]),
    "dtypes differ inside": lambda tf: tf.convert_to_tensor([[tf.constant(1.0), tf.constant(2.0, tf.float64)]]),
    "dtypes differ with a number": lambda tf: tf.convert_to_tensor([tf.constant(1.0, tf.float64),
                                                                    tf.constant(1.0), 3.0]),
    "int tensor and float list": lambda tf: tf.convert_to_tensor([tf.constant([1, 2]), [1.5, 2.5]]),
    "shapes differ": lambda tf: tf.convert_to_tensor([_pair(tf)[0], tf.constant([1.0])]),
    "shapes differ with a list": lambda tf: tf.convert_to_tensor([_pair(tf)[0], [1.0]]),
    "shapes differ with a number": lambda tf: tf.convert_to_tensor([_pair(tf)[0], 1.0]),
    "empty list inside": lambda tf: tf.convert_to_tensor([_pair(tf)[0], []]),
    "None inside": lambda tf: tf.convert_to_tensor([_pair(tf)[0], None]),
    "object inside": lambda tf: tf.convert_to_tensor([_pair(tf)[0], object()]),
    "dtype casts": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype=tf.float64),
    "dtype casts to int": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype=tf.int32),
    "dtype casts to bool": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype=tf.bool),
    "dtype casts to uint8": lambda tf: tf.convert_to_tensor([tf.constant(-1.7), 2], dtype=tf.uint8),
    "dtype cast to string": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype=tf.string),
    "dtype with a list": lambda tf: tf.convert_to_tensor([_pair(tf)[0], [1.5, 2.5]], dtype=tf.float64),
    "dtype with an int tensor": lambda tf: tf.convert_to_tensor([tf.constant([1, 2]), [1.5, 2.5]], dtype=tf.float32),
    "dtype refuses a number": lambda tf: tf.convert_to_tensor([tf.constant(1.7), 2.5], dtype=tf.int32),
    "dtype as the tensors'": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype=tf.float32),
    "hint casts": lambda tf: tf.convert_to_tensor(list(_pair(tf)), dtype_hint=tf.float64),
    "hint casts ints": lambda tf: tf.convert_to_tensor([tf.constant(1), 2], dtype_hint=tf.float64),
    "hint casts floats": lambda tf: tf.convert_to_tensor([tf.constant(1.5), 2], dtype_hint=tf.int32),
    "hint falls back": lambda tf: tf.convert_to_tensor([tf.constant(1.5), 2.5], dtype_hint=tf.int32),
    "hint to string": lambda tf: tf.convert_to_tensor([_pair(tf)[0], 2.0], dtype_hint=tf.string),
    "hint and shapes differ": lambda tf: tf.convert_to_tensor([_pair(tf)[0], 2.0], dtype_hint=tf.int32),
    "constant refuses": lambda tf: tf.constant([tf.constant(1.0), 2.0]),
    "constant refuses tensors": lambda tf: tf.constant(list(_pair(tf))),
    "constant refuses with a dtype": lambda tf: tf.constant([[1.0, tf.constant(2.0)]], dtype=tf.float64),
    "constant refuses variables": lambda tf: tf.constant([tf.Variable(1.0), 2.0]),
    "constant refuses numpy and tensors": lambda tf: tf.constant([np.ones(2), tf.ones(2)]),
}


@pytest.mark.parametrize("name", PACKED)
def test_lists_holding_tensors(name):
    check(PACKED[name])


# Ops convert their list arguments with convert_to_tensor, so lists of tensors work everywhere.
OPS = {
    "add": lambda tf, a, b: tf.add([a, b], 1.0),
    "reduce_sum": lambda tf, a, b: tf.reduce_sum([a, b]),
    "matmul": lambda tf, a, b: tf.matmul([a, b], [a, b]),
    "embedding_lookup of a tuple": lambda tf, a, b: tf.nn.embedding_lookup((a, b), [1, 0]),
    "embedding_lookup of a tuple, ids out of range": lambda tf, a, b: tf.nn.embedding_lookup((a, b), [0, 1, 2, 3]),
    "embedding_lookup of a list (shards)": lambda tf, a, b: tf.nn.embedding_lookup([a, b], [0, 1, 2, 3]),
    "stack": lambda tf, a, b: tf.stack([a, [5.0, 6.0]]),
    "concat of packed": lambda tf, a, b: tf.concat([[a, b], [b, a]], 0),
    "zeros_like": lambda tf, a, b: tf.zeros_like([a, b]),
    "Variable": lambda tf, a, b: tf.Variable([a, b]).read_value(),
    "assign": lambda tf, a, b: tf.Variable(tf.zeros((2, 2))).assign([a, b]).read_value(),
    "reshape with a tensor dim": lambda tf, a, b: tf.reshape(tf.concat([a, b], 0), [tf.constant(2), -1]),
    "fill with a tensor dim": lambda tf, a, b: tf.fill([tf.constant(2), 2], 1.0),
}


@pytest.mark.parametrize("name", OPS)
def test_ops_take_lists_of_tensors(name):
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    check(OPS[name], a, b)


def test_packing_is_differentiable():
    a, b = np.array([1.0, -2.0], np.float32), np.array([3.0, 0.5], np.float32)
    check_grad(lambda tf, x, y: tf.convert_to_tensor([x, y]) * tf.convert_to_tensor([[y], [x]]), a, b)
    check_grad(lambda tf, x, y: tf.reduce_sum(tf.convert_to_tensor([[x[0], 2.0], [y[1], x[1]]]) ** 2), a, b)
    check_grad(lambda tf, x, y: tf.convert_to_tensor([x, y], dtype=tf.float64), a, b)
    check_grad(lambda tf, x, y: tf.nn.embedding_lookup((x, y), [1, 0, 1]), a, b)


# -- the texts of TF's conversion errors ----------------------------------------------------------------------
def _message(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value)


MESSAGES = {
    "float": lambda tf: tf.convert_to_tensor("a", tf.float32),
    "double": lambda tf: tf.convert_to_tensor(1j, tf.float64),
    "half": lambda tf: tf.convert_to_tensor("a", tf.float16),
    "int32": lambda tf: tf.convert_to_tensor(1.5, tf.int32),
    "bool": lambda tf: tf.convert_to_tensor(3, tf.bool),
    "complex from bool": lambda tf: tf.convert_to_tensor(True, tf.complex64),
    "a list": lambda tf: tf.convert_to_tensor([1, 2.5], tf.int32),
    "bytes": lambda tf: tf.convert_to_tensor([b"a"], tf.float32),
    "assign": lambda tf: tf.Variable(1.0).assign("a"),
    "assign_add": lambda tf: tf.Variable(1.0).assign_add("a"),
    "operator": lambda tf: tf.constant(1) * 1.5,
    "mixed types": lambda tf: tf.convert_to_tensor([1.0, "a"]),
    "mixed with a dtype": lambda tf: tf.convert_to_tensor(["a", 1.5], tf.string),
    "bool and int": lambda tf: tf.convert_to_tensor([True, 1]),
    "None inside": lambda tf: tf.convert_to_tensor([1, None]),
    "out of range float": lambda tf: tf.convert_to_tensor(1e300),
    "out of range int": lambda tf: tf.convert_to_tensor(2 ** 63, tf.int64),
    "ragged": lambda tf: tf.convert_to_tensor([[1, 2], 3]),
    "unsupported": lambda tf: tf.convert_to_tensor([None, 1], tf.float32),
    "object array": lambda tf: tf.convert_to_tensor(np.array([1, "a"], dtype=object)),
    "tensor dtype": lambda tf: tf.convert_to_tensor(tf.constant(1.0), tf.float64),
}


@pytest.mark.parametrize("name", MESSAGES)
def test_conversion_error_texts(name):
    want = _message(real, MESSAGES[name])
    got = _message(vtf, MESSAGES[name])
    if name == "tensor dtype":  # the message ends with the tensor's repr, which names each library's class
        want, got = (want[0], want[1].split(":")[0]), (got[0], got[1].split(":")[0])
    assert got == want


def test_packing_error_texts():
    def mixed(tf):
        return tf.convert_to_tensor([tf.constant(1.0, tf.float64), tf.constant(1.0), 3.0])

    kind, text = _message(vtf, mixed)
    assert (kind, text.split(" (Tensor is:")[0]) == ("TypeError", "Cannot convert a list containing a tensor of "
                                                    "dtype <dtype: 'float32'> to <dtype: 'float64'>")
    assert _message(real, mixed)[1].startswith(text.split(" (Tensor is:")[0])
    kind, text = _message(vtf, lambda tf: tf.convert_to_tensor([tf.constant([1.0, 2.0]), [1.0]]))
    assert kind == "InvalidArgumentError"
    assert text == ("Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [1] [Op:Pack] "
                    "name: ")
