"""tf.make_tensor_proto / tf.make_ndarray against real TF 2.21: field choices, text format, wire bytes,
round trips and errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

CASES = {
    "float_scalar": (1.0, {}),
    "float_list": ([1.0, 2.5, -3.0], {}),
    "int64_array": (np.arange(6).reshape(2, 3), {}),
    "fill": (3, {"shape": [2, 2]}),
    "bools": ([True, False], {}),
    "strings": (["a", b"b\nc\x01"], {}),
    "complex64": (np.array([1 + 2j], np.complex64), {}),
    "complex128_many": (np.array([1 + 2j, 3 - 1j], np.complex128), {}),
    "half": (np.array([1.5], np.float16), {}),
    "half_many": (np.array([1.5, -2.0], np.float16), {}),
    "dtype_given": ([1, 2], {"dtype": "float32"}),
    "uint32": (np.array([7], np.uint32), {}),
    "fewer_values": ([1.0, 2.0], {"shape": [4]}),
    "float_small": (np.array([0.1], np.float32), {}),
    "verify_shape": (1.0, {"shape": [2], "verify_shape": True}),
    "too_many": ([1, 2, 3], {"shape": [2]}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_make_tensor_proto(name):
    values, kwargs = CASES[name]

    def fn(tf):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(tf, kw["dtype"])
        proto = tf.make_tensor_proto(values, **kw)
        return [str(proto), proto.dtype, [d.size for d in proto.tensor_shape.dim], proto.tensor_content,
                list(proto.float_val), list(proto.int_val), list(proto.string_val), list(proto.half_val),
                proto.SerializeToString(), tf.make_ndarray(proto)]
    check(fn)


def test_from_tensor():
    check(lambda tf, x: tf.make_ndarray(tf.make_tensor_proto(x)), np.arange(4, dtype=np.int32).reshape(2, 2))
    check(lambda tf, x: str(tf.make_tensor_proto(tf.constant(x))), np.array([1.5, 2.0], np.float32))
