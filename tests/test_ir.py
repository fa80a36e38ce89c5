"""numpy <-> TensorProto and Python <-> Argument conversions, checked against numpy and onnx."""

import ml_dtypes
import numpy as np
import onnx.numpy_helper
import pytest

from vfw.core import ir
from vfw.core.errors import OpAttributeError

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64, np.bool_, ml_dtypes.bfloat16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4)])
def test_tensor_round_trip(dtype, shape):
    array = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    back = ir.proto_to_tensor(ir.tensor_to_proto(array, "t"))
    assert back.dtype == np.dtype(dtype) and back.shape == shape
    np.testing.assert_array_equal(back, array)
    assert back.flags.writeable


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16])
def test_tensor_bytes_match_onnx_layout(dtype):
    # Same data_type codes and raw little-endian layout as ONNX's TensorProto.
    array = np.arange(6).astype(dtype).reshape(2, 3)
    ours = ir.tensor_to_proto(array)
    theirs = onnx.numpy_helper.from_array(array)
    assert ours.data_type == theirs.data_type
    assert list(ours.dims) == list(theirs.dims)
    assert ours.raw_data == theirs.raw_data


def test_non_contiguous_and_big_endian_inputs():
    array = np.arange(12, dtype=">i4").reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(ir.proto_to_tensor(ir.tensor_to_proto(array)), array)


def test_string_tensor():
    array = np.array([["a", "bc"], ["", "d"]], dtype=object)
    back = ir.proto_to_tensor(ir.tensor_to_proto(array))
    assert back.dtype == object and back.tolist() == array.tolist()


def test_opdef_attributes_round_trip():
    op = ir.make_opdef("Resize", ["x", None, "scales"], ["y"], mode="linear", axes=[2, 3], cubic_coeff_a=-0.75)
    assert list(op.input) == ["x", "", "scales"]
    assert ir.opdef_attrs(op) == {"mode": "linear", "axes": (2, 3), "cubic_coeff_a": -0.75}


def test_unstorable_argument_is_a_clear_error():
    with pytest.raises(OpAttributeError, match="'k'.*mixed"):
        ir.make_argument("k", [1, "a"])
    with pytest.raises(OpAttributeError, match="'k'.*dict"):
        ir.make_argument("k", {})
