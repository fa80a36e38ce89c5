import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core import run
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, ShapeError
from vfw.core.registry import TensorInfo, get_schema

BF16 = np.dtype(ml_dtypes.bfloat16)


def check_half(op, inputs, attrs=None, rtol=2e-3, atol=1e-3):
    """Compare a half-precision run with the oracle run in float32 and rounded once.

    vfw multiplies half floats in float32 and rounds once; the reference computes in float16
    (several ulps off on long dot products), so the float32 oracle is the fair reference.
    """
    dtype = inputs[0].dtype
    ours = vfw_run(op, inputs, attrs)[0]
    theirs = onnx_run(op, [None if x is None else x.astype(np.float32) for x in inputs], attrs)[0]
    assert_same(ours, theirs.astype(dtype), rtol=rtol, atol=atol, what=op)


def infer_matches(op, inputs, attrs=None):
    schema = get_schema(op)
    real = vfw_run(op, inputs, attrs)[0]
    infos = [None if x is None else TensorInfo(x.shape, x.dtype) for x in inputs]
    assert schema.infer(schema.bind_attrs(attrs or {}), infos) == [TensorInfo(real.shape, real.dtype)]


# -- MatMul ------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)), ((7,), (2, 7, 3)), ((2, 3, 7), (7,)), ((0, 4), (4, 5)), ((3, 0), (0, 5)),
    ((1, 1), (1, 1)), ((2, 0, 3), (3, 2)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64])
def test_matmul_matches_onnx(shapes, dtype):
    a, b = rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)
    check_op("MatMul", [a, b])
    infer_matches("MatMul", [a, b])


@pytest.mark.parametrize("dtype", [np.float16, BF16])
@pytest.mark.parametrize("shapes", [((3, 40), (40, 5)), ((64,), (64,)), ((2, 3, 33), (33,))])
def test_matmul_half(dtype, shapes):
    a, b = rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)
    check_half("MatMul", [a, b], rtol=1e-2 if dtype == BF16 else 2e-3, atol=1e-2)


def test_matmul_out_and_scalar_result():
    a, b = rand((3, 4)), rand((4, 5))
    out = np.empty((3, 5), np.float32)
    assert run("MatMul", a, b, out=out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-6)
    out16 = np.empty((3, 5), np.float16)
    assert run("MatMul", a.astype(np.float16), b.astype(np.float16), out=out16) is out16
    dot = run("MatMul", rand((4,)), rand((4,), seed=3))
    assert type(dot) is np.ndarray and dot.shape == () and dot.dtype == np.float32


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((5,), (4, 5))])
def test_matmul_inner_mismatch_names_shapes(sa, sb):
    with pytest.raises(ShapeError, match=r"MatMul: inner dimensions differ: A float32\[.*\] @ B float32\["):
        run("MatMul", rand(sa), rand(sb))
    schema = get_schema("MatMul")
    with pytest.raises(ShapeError, match="MatMul: inner dimensions differ"):
        schema.infer({}, [TensorInfo(sa, np.float32), TensorInfo(sb, np.float32)])


def test_matmul_bad_inputs():
    with pytest.raises(ShapeError, match=r"MatMul: batch dimensions of A float32\[2, 3, 4\] .*\[3, 4, 5\]"):
        run("MatMul", rand((2, 3, 4)), rand((3, 4, 5)))
    with pytest.raises(ShapeError, match="MatMul: inputs must have rank >= 1"):
        run("MatMul", np.array(2.0, np.float32), rand((2,)))
    with pytest.raises(DTypeError, match="MatMul"):
        run("MatMul", rand((2, 2)), rand((2, 2), np.float64))
    with pytest.raises(DTypeError, match="MatMul"):
        run("MatMul", rand((2, 2), np.int8), rand((2, 2), np.int8))


def test_matmul_infer_unknown_dims():
    schema = get_schema("MatMul")
    got = schema.infer({}, [TensorInfo((None, 3, 4), np.float32), TensorInfo((4, None), np.float32)])
    assert got == [TensorInfo((None, 3, None), np.float32)]
    assert schema.infer({}, [TensorInfo((4,), np.float32), TensorInfo((4,), np.float32)])[0].shape == ()


# -- Gemm --------------------------------------------------------------------------------
@pytest.mark.parametrize("trans_a", [0, 1])
@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("c_shape", [None, (), (1,), (5,), (1, 5), (3, 1), (3, 5)])
@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (0.5, -2.0), (2.0, 0.0)])
def test_gemm_matches_onnx(trans_a, trans_b, c_shape, alpha, beta):
    a = rand((4, 3) if trans_a else (3, 4), seed=1)
    b = rand((5, 4) if trans_b else (4, 5), seed=2)
    c = None if c_shape is None else rand(c_shape, seed=3)
    attrs = {"transA": trans_a, "transB": trans_b, "alpha": alpha, "beta": beta}
    check_op("Gemm", [a, b, c], attrs)
    infer_matches("Gemm", [a, b, c], attrs)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.uint32, np.uint64])
@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (2.0, 3.0), (0.5, 1.5)])
def test_gemm_dtypes(dtype, alpha, beta):
    # Integer results with fractional scales are computed in float64 and truncated, like ONNX.
    a, b, c = rand((3, 4), dtype, seed=1), rand((5, 4), dtype, seed=2), rand((5,), dtype, seed=3)
    check_op("Gemm", [a, b, c], {"transB": 1, "alpha": alpha, "beta": beta})


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_gemm_half(dtype):
    a, b, c = rand((6, 50), dtype, seed=1), rand((50, 4), dtype, seed=2), rand((4,), dtype, seed=3)
    check_half("Gemm", [a, b, c], {"alpha": 0.5, "beta": 2.0}, rtol=1e-2 if dtype == BF16 else 2e-3, atol=1e-2)
    check_half("Gemm", [a.T.copy(), b, None], {"transA": 1}, rtol=1e-2 if dtype == BF16 else 2e-3, atol=1e-2)


def test_gemm_out_and_beta_zero():
    a, b = rand((3, 4)), rand((4, 5))
    out = np.empty((3, 5), np.float32)
    assert run("Gemm", a, b, rand((5,)), out=out, alpha=2.0) is out
    # beta=0 leaves C unread, so NaN in it does not reach the output (BLAS convention).
    c = np.full((3, 5), np.nan, np.float32)
    np.testing.assert_allclose(run("Gemm", a, b, c, beta=0.0), a @ b, rtol=1e-6)


def test_gemm_bad_inputs():
    with pytest.raises(ShapeError, match=r"Gemm: A and B must be 2-D, got A float32\[2, 3, 4\]"):
        run("Gemm", rand((2, 3, 4)), rand((4, 5)))
    with pytest.raises(ShapeError, match="Gemm: A and B must be 2-D"):
        run("Gemm", rand((3, 4)), rand((4,)))
    with pytest.raises(ShapeError, match="Gemm: inner dimensions differ"):
        run("Gemm", rand((3, 4)), rand((5, 4)))
    with pytest.raises(ShapeError, match=r"Gemm: C float32\[4\] cannot be broadcast to the output shape \(3, 5\)"):
        run("Gemm", rand((3, 4)), rand((4, 5)), rand((4,)))
    with pytest.raises(ShapeError, match="Gemm: C"):
        run("Gemm", rand((3, 4)), rand((4, 5)), rand((1, 3, 5)))
    with pytest.raises(OpAttributeError, match="Gemm"):
        run("Gemm", rand((3, 4)), rand((4, 5)), transA=2)
    schema = get_schema("Gemm")
    with pytest.raises(ShapeError, match="Gemm"):
        schema.infer(schema.bind_attrs({}), [TensorInfo((3, 4), np.float32), TensorInfo((3, 4), np.float32), None])


# -- Einsum ------------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),            # matrix multiply
    ("ij,jk", [(3, 4), (4, 5)]),                # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),   # batched
    ("ii->", [(4, 4)]),                         # trace
    ("ii", [(4, 4)]),                           # implicit trace
    ("ii->i", [(4, 4)]),                        # diagonal
    ("ij->ji", [(3, 4)]),                       # transpose
    ("ij", [(3, 4)]),                           # implicit identity
    ("ba", [(3, 4)]),                           # implicit transpose (output sorted: ab)
    ("i,j->ij", [(3,), (4,)]),                  # outer
    ("i,i->", [(5,), (5,)]),                    # dot
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),  # ellipsis with broadcasting
    ("...ij->...ji", [(2, 3, 4, 5)]),
    ("i...->...", [(3, 2, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij...,jk...", [(3, 4, 2), (4, 5, 1)]),    # implicit, ellipsis first in the output
    ("Ab,bA->A", [(3, 4), (4, 3)]),             # upper and lower case are distinct
    ("bA,Ab", [(3, 4), (4, 3)]),                # implicit: 'A' sorts before 'b'
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),  # three operands
    ("i j , j k -> i k", [(2, 3), (3, 4)]),     # spaces
    ("ij->", [(0, 3)]),                         # empty
    ("ijk->", [(2, 3, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_einsum_matches_onnx(equation, shapes, dtype):
    inputs = [rand(s, dtype, seed=i) for i, s in enumerate(shapes)]
    out = check_op("Einsum", inputs, {"equation": equation})[0]
    infer_matches("Einsum", inputs, {"equation": equation})
    for x in inputs:
        assert not np.may_share_memory(out, x)


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int64, np.uint64])
def test_einsum_dtypes(dtype):
    check_op("Einsum", [rand((2, 3), dtype), rand((3, 2), dtype, seed=1)], {"equation": "ij,jk->ik"})
    check_op("Einsum", [rand((3, 3), dtype)], {"equation": "ii->"})


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_einsum_half(dtype):
    a, b = rand((2, 30, 20), dtype), rand((2, 20, 5), dtype, seed=1)
    check_half("Einsum", [a, b], {"equation": "bij,bjk->bik"}, rtol=1e-2 if dtype == BF16 else 2e-3, atol=1e-2)


def test_einsum_large_uses_blas_path():
    # Large two-operand products take numpy's optimized (tensordot) path; same results.
    a, b = rand((64, 128), np.float64), rand((128, 96), np.float64, seed=1)
    check_op("Einsum", [a, b], {"equation": "ij,jk->ik"}, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("equation,shapes,error,match", [
    ("ij,jk->ik", [(3, 4)], OpInputError, "2 input terms, got 1"),
    ("ij->i", [(3, 4, 5)], ShapeError, r"rank 3 but term 'ij'"),
    ("ij,jk->ik", [(3, 4), (5, 6)], ShapeError, r"label 'j' .* size 4 in input 0 float32\[3, 4\] but 5"),
    ("ii->i", [(3, 4)], ShapeError, "label 'i'"),
    ("...ij->...", [(2,)], ShapeError, r"rank 1 < 2 labels of term '\.\.\.ij'"),
    ("...i,...i->...", [(2, 3), (4, 3)], ShapeError, "'...' dimensions"),
    ("...ij->ij", [(2, 3, 4)], ShapeError, "must contain '...'"),
])
def test_einsum_bad_shapes(equation, shapes, error, match):
    with pytest.raises(error, match="Einsum: .*" + match):
        vfw_run("Einsum", [rand(s) for s in shapes], {"equation": equation})


@pytest.mark.parametrize("equation", ["ij->k", "ij->ii", "i.j->ij", "i1->i", "....i->i", "ij->i->j", "i...j...->"])
def test_einsum_bad_equations(equation):
    with pytest.raises(OpAttributeError, match="Einsum"):
        vfw_run("Einsum", [rand((2, 2))], {"equation": equation})


def test_einsum_infer_unknown_dims():
    schema = get_schema("Einsum")
    attrs = schema.bind_attrs({"equation": "...ij,jk->...ik"})
    got = schema.infer(attrs, [TensorInfo((None, 3, 4), np.float32), TensorInfo((4, None), np.float32)])
    assert got == [TensorInfo((None, 3, None), np.float32)]
