import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core import (
    DTypeError,
    OpAttributeError,
    ShapeError,
    TensorInfo,
    dtypes,
    get_schema,
    run,
)

F16, F32, F64, BF16 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), dtypes.bfloat16
LOW = {F16: (1e-3, 1e-5), BF16: (1e-2, 1e-4)}  # about one unit in the last place of each half type


def check_wide(op, inputs, attrs=None, n_outputs=1, out_dtypes=None, rtol=1e-5, atol=1e-6):
    """Compare with the reference run on float32-widened half inputs (and the results cast back).

    Used where the reference computes in float16/bfloat16 itself (so differs from vfw's float32 stage by
    more than rounding) or returns a dtype ONNX's type constraints do not give (``out_dtypes`` states the
    spec's dtype of each output; default: the dtype of the first input).
    """
    ours = vfw_run(op, inputs, attrs)
    wide = [x.astype(F32) if x is not None and x.dtype in (F16, BF16) else x for x in inputs]
    theirs = onnx_run(op, wide, attrs, n_outputs)
    out_dtypes = out_dtypes or [inputs[0].dtype] * n_outputs
    for i in range(n_outputs):
        want = np.dtype(out_dtypes[i])
        r, a = LOW.get(want, (rtol, atol))
        assert_same(ours[i], theirs[i].astype(want), rtol=r, atol=a, what=f"{op} output {i}")
    return ours


def stats(shape, dtype, seed):
    """Per-channel (mean, var) test inputs; var > 0."""
    return rand(shape, dtype, seed=seed), rand(shape, dtype, low=0.2, high=2.0, seed=seed + 1)


def infer_matches(op, attrs, inputs):
    schema = get_schema(op)
    infos = [None if x is None else TensorInfo(x.shape, x.dtype) for x in inputs]
    got = schema.infer(schema.bind_attrs(attrs), infos)
    real = vfw_run(op, inputs, attrs)
    for g, r in zip(got, real):
        assert (g is None) == (r is None)
        if r is not None:
            assert g == TensorInfo(r.shape, r.dtype), (g, r.shape, r.dtype)


# -- BatchNormalization ----------------------------------------------------------------------------------------

BN_SHAPES = [(4, 3), (2, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 4)]


def bn_inputs(shape, dtype, pdtype=None, sdtype=None, seed=0):
    c = shape[1]
    mean, var = stats((c,), sdtype or dtype, seed + 3)
    return [rand(shape, dtype, seed=seed), rand((c,), pdtype or dtype, seed=seed + 1),
            rand((c,), pdtype or dtype, seed=seed + 2), mean, var]


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("attrs", [{}, {"epsilon": 1e-2}, {"training_mode": 0, "momentum": 0.5}])
def test_batchnorm_inference(shape, dtype, attrs):
    ours = check_op("BatchNormalization", bn_inputs(shape, dtype), attrs, n_outputs=1)
    assert ours[1] is None and ours[2] is None


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("attrs", [{}, {"epsilon": 1e-3, "momentum": 0.7}, {"momentum": 0.0}])
def test_batchnorm_training(shape, dtype, attrs):
    check_op("BatchNormalization", bn_inputs(shape, dtype), {"training_mode": 1, **attrs}, n_outputs=3)


def test_batchnorm_training_formula():
    # Independent of the reference: batch stats with the population variance, ONNX running-stat update.
    x, scale, b, mean, var = bn_inputs((3, 2, 4, 5), F64, seed=7)
    y, rm, rv = run("BatchNormalization", x, scale, b, mean, var, training_mode=1, momentum=0.8, epsilon=1e-4)
    m, v = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    c = (slice(None), None, None)
    np.testing.assert_allclose(y, (x - m[c]) / np.sqrt(v[c] + 1e-4) * scale[c] + b[c], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rm, mean * 0.8 + m * 0.2, rtol=1e-12)
    np.testing.assert_allclose(rv, var * 0.8 + v * 0.2, rtol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4, 5), (2, 3, 2, 3, 4)])
@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("training", [0, 1])
def test_batchnorm_half(shape, dtype, training):
    check_wide("BatchNormalization", bn_inputs(shape, dtype), {"training_mode": training}, 1 + 2 * training)


@pytest.mark.parametrize("training", [0, 1])
def test_batchnorm_mixed_dtypes(training):
    # T, T1, T2 are independent. The reference returns running stats in X's dtype; ONNX says T2
    # (onnx.shape_inference agrees), so the dtypes are stated here.
    inputs = bn_inputs((2, 3, 4, 5), F16, pdtype=F32, sdtype=F64, seed=3)
    n = 1 + 2 * training
    check_wide("BatchNormalization", inputs, {"training_mode": training}, n, [F16, F64, F64][:n])
    inputs = bn_inputs((2, 3, 4), F64, pdtype=F16, sdtype=F32, seed=4)
    check_wide("BatchNormalization", inputs, {"training_mode": training}, n, [F64, F32, F32][:n])


def test_batchnorm_large_offset_is_stable():
    # Two-pass variance: a mean of 1e4 with unit spread would lose all digits to E[x^2] - E[x]^2 in float32.
    x = (rand((64, 2, 8), F32, seed=5) + np.float32(1e4)).astype(F32)
    _, _, rv = run("BatchNormalization", x, *bn_inputs((1, 2), F32)[1:], training_mode=1, momentum=0.0)
    np.testing.assert_allclose(rv, x.astype(F64).var(axis=(0, 2)), rtol=1e-4)


def test_batchnorm_empty_batch():
    check_op("BatchNormalization", bn_inputs((0, 3, 2), F32), n_outputs=1)


def test_batchnorm_bad_input():
    x, scale, b, mean, var = bn_inputs((2, 3, 4), F32)
    with pytest.raises(ShapeError, match=r"BatchNormalization: scale has shape \(4,\).*X float32\[2, 3, 4\]"):
        run("BatchNormalization", x, rand((4,)), b, mean, var)
    with pytest.raises(ShapeError, match="BatchNormalization: input_var"):
        run("BatchNormalization", x, scale, b, mean, rand((3, 1)), training_mode=1)
    with pytest.raises(ShapeError, match="BatchNormalization: X must have rank >= 2"):
        run("BatchNormalization", rand((3,)), scale, b, mean, var)
    with pytest.raises(OpAttributeError, match="BatchNormalization.*training_mode"):
        run("BatchNormalization", x, scale, b, mean, var, training_mode=2)
    with pytest.raises(DTypeError, match="BatchNormalization"):
        run("BatchNormalization", x, scale, b.astype(F64), mean, var)


@pytest.mark.parametrize("training", [0, 1])
def test_batchnorm_infer(training):
    infer_matches("BatchNormalization", {"training_mode": training}, bn_inputs((2, 3, 4), F16, sdtype=F64))


# -- LayerNormalization ----------------------------------------------------------------------------------------

LN_CASES = [((2, 3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), 0), ((2, 3, 4), -2), ((5, 6), -1), ((3, 2, 2, 5), 2)]


@pytest.mark.parametrize("shape,axis", LN_CASES)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("epsilon", [1e-5, 0.1])
def test_layernorm(shape, axis, with_bias, epsilon):
    ax = axis % len(shape)
    inputs = [rand(shape, seed=1), rand(shape[ax:], seed=2), rand(shape[ax:], seed=3) if with_bias else None]
    check_op("LayerNormalization", inputs, {"axis": axis, "epsilon": epsilon}, n_outputs=3)


@pytest.mark.parametrize("dtype", [F16, F64, BF16])
@pytest.mark.parametrize("shape,axis", LN_CASES[:3])
def test_layernorm_dtypes(dtype, shape, axis):
    # Mean and InvStdDev have the stash_type dtype (float32) for every X dtype, per ONNX's type constraint
    # U and its shape inference; the reference returns them in X's dtype.
    ax = axis % len(shape)
    inputs = [rand(shape, dtype, seed=1), rand(shape[ax:], dtype, seed=2), rand(shape[ax:], dtype, seed=3)]
    check_wide("LayerNormalization", inputs, {"axis": axis}, 3, [dtype, F32, F32],
               rtol=1e-12 if dtype == F64 else 1e-5, atol=1e-12 if dtype == F64 else 1e-6)


def test_layernorm_broadcast_scale():
    x = rand((2, 3, 4), seed=1)
    check_op("LayerNormalization", [x, rand((1, 4), seed=2), rand((4,), seed=3)], {"axis": 1}, n_outputs=3)
    # Scale may also vary along non-normalized axes (unidirectional broadcasting to X).
    check_op("LayerNormalization", [x, rand((2, 1, 4), seed=2), rand((3, 1), seed=3)], {"axis": -1}, n_outputs=3)


def test_layernorm_stash_bfloat16():
    # The reference implements stash_type=1 only; compare with numpy.
    x, s = rand((3, 8), seed=4), rand((8,), seed=5)
    y, mean, inv = run("LayerNormalization", x, s, stash_type=16)
    m = x.astype(F64).mean(-1, keepdims=True)
    i = 1 / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    assert mean.dtype == BF16 and inv.dtype == BF16 and y.dtype == F32
    np.testing.assert_allclose(y, (x - m) * i * s, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean.astype(F64), m, rtol=1e-2)
    np.testing.assert_allclose(inv.astype(F64), i, rtol=1e-2)


def test_layernorm_large_offset_is_stable():
    x = (rand((4, 256), F32, seed=6) + np.float32(3e4)).astype(F32)
    _, _, inv = run("LayerNormalization", x, np.ones(256, F32), epsilon=0.0)
    np.testing.assert_allclose(inv[:, 0], 1 / x.astype(F64).std(-1), rtol=1e-3)


def test_layernorm_empty():
    check_op("LayerNormalization", [rand((0, 3, 4)), rand((4,))], {"axis": -1}, n_outputs=3)


def test_layernorm_bad_input():
    x = rand((2, 3, 4))
    with pytest.raises(ShapeError, match=r"LayerNormalization: Scale float32\[3\].*X float32\[2, 3, 4\]"):
        run("LayerNormalization", x, rand((3,)))
    with pytest.raises(ShapeError, match="LayerNormalization: B"):
        run("LayerNormalization", x, rand((4,)), rand((5, 1, 1, 4)))
    with pytest.raises(ShapeError, match="LayerNormalization: axis=3"):
        run("LayerNormalization", x, rand((4,)), axis=3)
    with pytest.raises(OpAttributeError, match="LayerNormalization.*stash_type"):
        run("LayerNormalization", x, rand((4,)), stash_type=11)
    with pytest.raises(DTypeError, match="LayerNormalization"):
        run("LayerNormalization", x, rand((4,), F64))


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_layernorm_infer(axis):
    infer_matches("LayerNormalization", {"axis": axis}, [rand((2, 3, 4), F16), rand((4,), F16), None])


# -- GroupNormalization / InstanceNormalization ----------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 4), (2, 4, 5), (2, 4, 3, 3), (1, 4, 2, 2, 3)])
@pytest.mark.parametrize("groups", [1, 2, 4])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_groupnorm(shape, groups, dtype):
    inputs = [rand(shape, dtype, seed=1), rand((4,), dtype, seed=2), rand((4,), dtype, seed=3)]
    check_op("GroupNormalization", inputs, {"num_groups": groups, "epsilon": 1e-3})


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("groups", [1, 3, 6])
def test_groupnorm_half(dtype, groups):
    inputs = [rand((2, 6, 4, 4), dtype, seed=1), rand((6,), dtype, seed=2), rand((6,), dtype, seed=3)]
    check_wide("GroupNormalization", inputs, {"num_groups": groups})


@pytest.mark.parametrize("stash_type", [1, 10, 11, 16])
def test_groupnorm_stash_type(stash_type):
    # Deliberate deviation: stage one never runs below float32, so stash_type 10 (float16) and 16 (bfloat16)
    # compute like 1; the reference does compute in float16 there, so those compare with its stash_type=1.
    inputs = [rand((2, 4, 5), seed=1), rand((4,), seed=2), rand((4,), seed=3)]
    ours = vfw_run("GroupNormalization", inputs, {"num_groups": 2, "stash_type": stash_type})[0]
    ref_stash = stash_type if stash_type in (1, 11) else 1
    assert_same(ours, onnx_run("GroupNormalization", inputs, {"num_groups": 2, "stash_type": ref_stash})[0])


def test_groupnorm_out():
    inputs = [rand((2, 4, 5), seed=1), rand((4,), seed=2), rand((4,), seed=3)]
    out = np.empty((2, 4, 5), F32)
    assert run("GroupNormalization", *inputs, out=out, num_groups=2) is out
    assert_same(out, onnx_run("GroupNormalization", inputs, {"num_groups": 2})[0])


def test_groupnorm_bad_input():
    x, s = rand((2, 4, 5)), rand((4,))
    with pytest.raises(ShapeError, match=r"GroupNormalization: num_groups=3 does not divide the C=4 channels"):
        run("GroupNormalization", x, s, s, num_groups=3)
    with pytest.raises(ShapeError, match=r"GroupNormalization: scale has shape \(2,\).*X float32\[2, 4, 5\]"):
        run("GroupNormalization", x, rand((2,)), rand((2,)), num_groups=2)
    with pytest.raises(OpAttributeError, match="GroupNormalization.*num_groups"):
        run("GroupNormalization", x, s, s, num_groups=0)
    with pytest.raises(OpAttributeError, match="GroupNormalization.*num_groups"):
        run("GroupNormalization", x, s, s)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the reference's numpy warns on the empty spatial case
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5), (2, 3, 4, 4), (1, 3, 2, 2, 3), (2, 3, 0)])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_instancenorm(shape, dtype):
    inputs = [rand(shape, dtype, seed=1), rand((3,), dtype, seed=2), rand((3,), dtype, seed=3)]
    check_op("InstanceNormalization", inputs, {"epsilon": 1e-4})


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_instancenorm_half(dtype):
    inputs = [rand((2, 3, 4, 4), dtype, seed=1), rand((3,), dtype, seed=2), rand((3,), dtype, seed=3)]
    check_wide("InstanceNormalization", inputs)


def test_instancenorm_bad_input():
    with pytest.raises(ShapeError, match=r"InstanceNormalization: B has shape \(4,\).*X float32\[2, 3, 5\]"):
        run("InstanceNormalization", rand((2, 3, 5)), rand((3,)), rand((4,)))


def test_norm_infer():
    infer_matches("GroupNormalization", {"num_groups": 2}, [rand((2, 4, 3), F16), rand((4,), F16), rand((4,), F16)])
    infer_matches("InstanceNormalization", {}, [rand((2, 3, 5)), rand((3,)), rand((3,))])
    infer_matches("MeanVarianceNormalization", {}, [rand((2, 3, 4, 5), F64)])
    infer_matches("LpNormalization", {"p": 1}, [rand((2, 3), F16)])


# -- MeanVarianceNormalization / LpNormalization ---------------------------------------------------------------


MVN_CASES = [((2, 3, 4, 5), None), ((2, 3, 4, 5), (0, 1)), ((2, 3, 4, 5), (-1,)), ((3, 4, 5), (1, 2)),
             ((2, 3, 4, 5), (1, 2, 3))]


def mvn_numpy(x, axes):
    """ONNX's MeanVarianceNormalization function body, in float64 (empty axes reduce all, as ReduceMean)."""
    x = x.astype(F64)
    ax = (0, 2, 3) if axes is None else tuple(axes) or None
    d = x - x.mean(axis=ax, keepdims=True)
    return d / (np.sqrt((d * d).mean(axis=ax, keepdims=True)) + 1e-9)


@pytest.mark.parametrize("shape,axes", MVN_CASES)
def test_mvn(shape, axes):
    # rtol: the reference uses E[x^2] - E[x]^2 in float32, vfw the two-pass variance.
    check_op("MeanVarianceNormalization", [rand(shape, seed=1)], {"axes": axes}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape,axes", MVN_CASES + [((3, 4), ())])
def test_mvn_float64(shape, axes):
    # The reference cannot run float64 (its function body adds a float32 epsilon constant), nor build an empty
    # axes attribute, so compare with the function body computed in numpy.
    x = rand(shape, F64, seed=1)
    assert_same(run("MeanVarianceNormalization", x, axes=axes), mvn_numpy(x, axes), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_mvn_half(dtype):
    check_wide("MeanVarianceNormalization", [rand((2, 3, 4, 5), dtype, seed=1)])


def test_mvn_bad_axes():
    with pytest.raises(ShapeError, match="MeanVarianceNormalization: axes"):
        run("MeanVarianceNormalization", rand((2, 3)))
    with pytest.raises(ShapeError, match="MeanVarianceNormalization: axes"):
        run("MeanVarianceNormalization", rand((2, 3)), axes=(1, -1))


LP_CASES = [((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((5,), 0), ((0, 3), 1)]


@pytest.mark.parametrize("shape,axis", LP_CASES)
@pytest.mark.parametrize("dtype", [F32, F64])
def test_lpnorm_p2(shape, axis, dtype):
    check_op("LpNormalization", [rand(shape, dtype, seed=1)], {"axis": axis, "p": 2})


@pytest.mark.parametrize("shape,axis", LP_CASES)
@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64])
def test_lpnorm_p1(shape, axis, dtype):
    # The reference divides by sum(x) instead of sum(|x|) for p=1 (onnxruntime uses sum(|x|), as the L1 norm
    # is defined), so compare with numpy.
    x = rand(shape, dtype, seed=1)
    want = (x.astype(F64) / np.abs(x.astype(F64)).sum(axis=axis, keepdims=True)).astype(dtype)
    rtol, atol = LOW.get(np.dtype(dtype), (1e-6, 1e-7))
    assert_same(run("LpNormalization", x, axis=axis, p=1), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_lpnorm_half(dtype):
    check_wide("LpNormalization", [rand((4, 6), dtype, seed=1)], {"p": 2})


@pytest.mark.parametrize("p", [1, 2])
def test_lpnorm_zero_norm(p):
    # Spec: an all-zero slice gives zeros (not NaN).
    x = rand((3, 4), seed=2)
    x[1] = 0
    y = run("LpNormalization", x, p=p)
    assert not np.isnan(y).any() and (y[1] == 0).all()
    norm = np.linalg.norm(x[[0, 2]], ord=p, axis=1, keepdims=True)
    np.testing.assert_allclose(y[[0, 2]], x[[0, 2]] / norm, rtol=1e-6)


def test_lpnorm_out():
    x = rand((3, 4), seed=3)
    out = np.empty_like(x)
    assert run("LpNormalization", x, out=out) is out
    assert_same(out, onnx_run("LpNormalization", [x])[0])


def test_lpnorm_bad_input():
    with pytest.raises(OpAttributeError, match="LpNormalization.*'p'"):
        run("LpNormalization", rand((3, 4)), p=3)
    with pytest.raises(ShapeError, match="LpNormalization: axis=2"):
        run("LpNormalization", rand((3, 4)), axis=2)
    with pytest.raises(DTypeError, match="LpNormalization"):
        run("LpNormalization", rand((3, 4), np.int32))
