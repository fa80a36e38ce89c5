"""tf.experimental.dlpack against real TF: capsules exchanged with real torch and numpy, both directions."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

torch = pytest.importorskip("torch")

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "complex64", "complex128"]


def _values(tf, dtype):
    return tf.cast(tf.reshape(tf.range(6), [2, 3]) % 2 if dtype == "bool" else tf.reshape(tf.range(6), [2, 3]),
                   dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_dlpack_consumed_by_torch(dtype):
    results = []
    for tf in (real, vtf):
        consumed = torch.utils.dlpack.from_dlpack(tf.experimental.dlpack.to_dlpack(_values(tf, dtype)))
        results.append((consumed.dtype, consumed.shape, consumed.to(torch.complex128).numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_array_equal(results[1][2], results[0][2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(dtype):
    check(lambda tf: tf.experimental.dlpack.from_dlpack(tf.experimental.dlpack.to_dlpack(_values(tf, dtype))))


def test_to_dlpack_consumed_by_numpy():
    class Producer:
        def __init__(self, capsule):
            self.capsule = capsule

        def __dlpack__(self, **kwargs):
            return self.capsule

        def __dlpack_device__(self):
            return (1, 0)

    for tf in (real, vtf):
        array = np.from_dlpack(Producer(tf.experimental.dlpack.to_dlpack(tf.constant([[1.5, 2.0]]))))
        np.testing.assert_array_equal(array, np.array([[1.5, 2.0]], np.float32))


TORCH_VALUES = {
    "float": lambda: torch.arange(6.0).reshape(2, 3),
    "bool": lambda: torch.tensor([True, False]),
    "scalar": lambda: torch.tensor(3.0),
    "empty": lambda: torch.zeros(0, 3),
    "complex": lambda: torch.tensor([1 + 2j]),
    "bfloat16": lambda: torch.tensor([1.5, -2.0], dtype=torch.bfloat16),
    "int64": lambda: torch.arange(4),
    "transposed": lambda: torch.arange(6.0).reshape(2, 3).t(),
    "sliced": lambda: torch.arange(6).reshape(2, 3)[:, 1:],
    "float8": lambda: torch.zeros(2, dtype=torch.float8_e4m3fn),
}


@pytest.mark.parametrize("name", TORCH_VALUES)
def test_from_torch_capsule(name):
    check(lambda tf: tf.experimental.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(TORCH_VALUES[name]())))


def test_from_numpy_capsule_and_sharing():
    check(lambda tf: tf.experimental.dlpack.from_dlpack(np.arange(4.0).__dlpack__()))
    for tf in (real, vtf):
        source = torch.arange(3.0)
        tensor = tf.experimental.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(source))
        source[0] = 9.0  # the tensor views the producer's memory, as TF's
        np.testing.assert_array_equal(tensor.numpy(), [9.0, 1.0, 2.0])


def test_errors():
    def consumed_twice(tf):
        capsule = tf.experimental.dlpack.to_dlpack(tf.constant([1.0]))
        torch.utils.dlpack.from_dlpack(capsule)
        return tf.experimental.dlpack.from_dlpack(capsule)
    check(consumed_twice)
    for value in (np.arange(3.0), 5, torch.arange(3.0)):
        check(lambda tf, v: tf.experimental.dlpack.from_dlpack(v), v=value)  # kwargs stay unconverted
    check(lambda tf: tf.experimental.dlpack.to_dlpack(np.arange(3.0)))
    check(lambda tf: tf.experimental.dlpack.to_dlpack([1.0, 2.0]))
    check(lambda tf: tf.experimental.dlpack.to_dlpack(tf.Variable([1.0])))


def test_string_refused():
    # (real TF aborts the process on a string tensor; vfw refuses it with InvalidArgumentError)
    with pytest.raises(vtf.errors.InvalidArgumentError, match="string"):
        vtf.experimental.dlpack.to_dlpack(vtf.constant(["a"]))
