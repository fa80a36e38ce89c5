"""Op registry: schemas, attribute validation, input checks, user-registered ops, error types."""

import pathlib

import numpy as np
import pytest

import vfw.core as core
from vfw.core import (
    Attr,
    DTypeError,
    OpAttributeError,
    OpInputError,
    ShapeError,
    TensorInfo,
    UnknownOpError,
    VfwError,
    defop,
    get_schema,
    run,
)
from vfw.core import dtypes as dt


def test_unknown_op_names_the_op():
    with pytest.raises(UnknownOpError, match="'NoSuchOp'"):
        run("NoSuchOp", np.ones(2))


def test_every_schema_is_consistent():
    names = core.op_types()
    assert len(names) > 0
    for name in names:
        schema = get_schema(name)
        assert schema.op_type == name
        assert "cpu" in schema.kernels, name
        assert schema.outputs, name
        for slot in schema.inputs + schema.outputs:
            assert schema.types[slot.type], (name, slot.name)
            assert all(isinstance(d, np.dtype) for d in schema.types[slot.type])
        for attr in schema.attrs.values():
            assert isinstance(attr, Attr)


def test_attribute_validation():
    schema = get_schema("Add")
    with pytest.raises(OpAttributeError, match="Add: unknown attribute 'alpha'"):
        schema.bind_attrs({"alpha": 1.0})


def test_input_count_and_dtype_errors():
    with pytest.raises(OpInputError, match="Add: expected 2 to 2 inputs, got 1"):
        run("Add", np.ones(2))
    with pytest.raises(DTypeError, match="Add: input 'A' has dtype bool"):
        run("Add", np.ones(2, bool), np.ones(2, bool))
    with pytest.raises(DTypeError, match="Add: input 'A' must be a numpy array, got list"):
        run("Add", [1.0], np.ones(1))


def test_kernel_failure_becomes_descriptive_shape_error():
    with pytest.raises(ShapeError, match=r"Add\(A: float32\[2, 3\], B: float32\[4\]\)"):
        run("Add", np.ones((2, 3), np.float32), np.ones(4, np.float32))


def test_dtype_check_is_cached_per_signature_but_still_applies_to_new_ones():
    add = core.make_op("Add")
    add(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(DTypeError):
        add(np.ones(2, np.float32), np.ones(2, np.float64))


def test_user_registered_op():
    @defop("TestScaleShift", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
           attrs={"scale": Attr("float", 1.0), "mode": Attr("string", "a", choices=("a", "b")),
                  "n": Attr("int", check=lambda v: None if v > 0 else "must be positive")})
    def scale_shift(scale, mode, n):
        """Y = X * scale + n."""
        return lambda x, out=None: np.add(np.multiply(x, scale), n, out=out)

    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(run("TestScaleShift", x, scale=2.0, n=1), x * 2 + 1)
    schema = get_schema("TestScaleShift")
    assert schema.doc == "Y = X * scale + n."
    with pytest.raises(OpAttributeError, match="missing required attribute 'n'"):
        run("TestScaleShift", x)
    with pytest.raises(OpAttributeError, match="'n'=0: must be positive"):
        run("TestScaleShift", x, n=0)
    with pytest.raises(OpAttributeError, match="'mode' must be one of 'a', 'b'"):
        run("TestScaleShift", x, n=1, mode="c")
    with pytest.raises(OpAttributeError, match="'scale' expects float"):
        run("TestScaleShift", x, n=1, scale="big")
    with pytest.raises(ValueError, match="already registered"):
        defop("TestScaleShift", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS})(scale_shift)
    # Shape inference falls back to running the kernel on stand-ins.
    infos = schema.infer(schema.bind_attrs({"n": 2}), [TensorInfo((4, 5), np.float64)])
    assert infos == [TensorInfo((4, 5), np.float64)]


def test_inference_with_unknown_value_input_gives_unknown_shape():
    @defop("TestFill", inputs="shape:int64", outputs="Y:float32", value_inputs=("shape",))
    def fill():
        return lambda shape, out=None: np.ones(tuple(shape), np.float32)

    schema = get_schema("TestFill")
    assert schema.infer({}, [TensorInfo((2,), np.int64)]) == [TensorInfo(None, np.float32)]
    known = TensorInfo((2,), np.int64, value=np.array([3, 4]))
    assert schema.infer({}, [known]) == [TensorInfo((3, 4), np.float32)]


def test_errors_are_builtin_subclasses():
    assert issubclass(ShapeError, ValueError) and issubclass(ShapeError, VfwError)
    assert issubclass(DTypeError, TypeError)
    assert issubclass(core.IndexOutOfRangeError, IndexError)


def test_every_registered_op_is_exercised_by_the_op_tests():
    # Each op family's tests compare kernels with an independent oracle (ONNX's reference,
    # numpy, or finite differences for gradient-only ops); an op named nowhere is untested.
    here = pathlib.Path(__file__).parent
    text = "".join(p.read_text() for folder in ("ops", "autograd") for p in (here / folder).glob("test_*.py"))
    untested = [op for op in core.op_types()
                if not op.startswith("Test") and f'"{op}"' not in text and f"'{op}'" not in text]
    assert untested == []
