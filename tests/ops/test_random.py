"""Random ops: distributions (statistical tests), streams and seeds, dtypes and shapes.

ONNX does not define the random stream, so values are never compared with the
reference evaluator; dtypes and shapes are, and Dropout's inference mode is
compared exactly.  Statistical bounds are about 6 standard errors wide, with
fixed seeds, so they neither flake nor hide a wrong distribution.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, vfw_run
from vfw.core import DTypeError, OpAttributeError, OpInputError, ShapeError, TensorInfo, get_schema, make_op
from vfw.core.ops import random as vrandom

FLOAT_DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
N = 200_000


@pytest.fixture(autouse=True)
def _restore_engine_state():
    state = vrandom.get_state()
    yield
    vrandom.set_state(state)


def run1(op, inputs=(), **attrs):
    return vfw_run(op, list(inputs), attrs)[0]


def assert_mean_std(x, mean, std):
    x = x.astype(np.float64).ravel()
    se = std / np.sqrt(x.size)
    assert abs(x.mean() - mean) < 6 * se + 1e-3 * std, (x.mean(), mean)
    assert abs(x.std() - std) < 6 * std / np.sqrt(2 * x.size) + 1e-3 * std, (x.std(), std)


# -- RandomNormal / RandomUniform and their Like forms -------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (5,)])
def test_random_dtype_shape_match_onnx(dtype, shape):
    for op in ("RandomNormal", "RandomUniform"):
        attrs = {"shape": shape, "dtype": np.dtype(dtype), "seed": 3.0}
        ours = run1(op, **attrs)
        # the reference evaluator cannot make bfloat16 here, onnx.helper cannot make an empty 'shape'
        if dtype is not ml_dtypes.bfloat16 and shape:
            theirs = onnx_run(op, [], attrs)[0]
            assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
        assert (ours.dtype, ours.shape) == (np.dtype(dtype), shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_random_normal_statistics(dtype):
    x = run1("RandomNormal", shape=(N,), dtype=np.dtype(dtype), mean=1.5, scale=2.0, seed=1.0)
    assert_mean_std(x, 1.5, 2.0)
    # a normal shape: about 68.3% within one sigma
    inside = np.mean(np.abs(x.astype(np.float64) - 1.5) < 2.0)
    assert abs(inside - 0.6827) < 0.006
    default = run1("RandomNormal", shape=(N,), seed=2.0)
    assert default.dtype == np.float32
    assert_mean_std(default, 0.0, 1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_random_uniform_statistics(dtype):
    lo, hi = -2.0, 3.0
    x = run1("RandomUniform", shape=(N,), dtype=np.dtype(dtype), low=lo, high=hi, seed=4.0)
    assert lo <= x.min() and x.max() <= hi
    assert_mean_std(x, (lo + hi) / 2, (hi - lo) / np.sqrt(12))
    counts = np.histogram(x.astype(np.float64), bins=10, range=(lo, hi))[0]
    assert np.all(np.abs(counts - N / 10) < 6 * np.sqrt(N / 10))
    default = run1("RandomUniform", shape=(N,), seed=5.0)
    assert default.dtype == np.float32 and 0 <= default.min() and default.max() < 1
    assert_mean_std(default, 0.5, 1 / np.sqrt(12))


def test_degenerate_parameters():
    np.testing.assert_array_equal(run1("RandomNormal", shape=(4,), mean=2.0, scale=0.0), np.full(4, 2, np.float32))
    np.testing.assert_array_equal(run1("RandomUniform", shape=(4,), low=1.0, high=1.0), np.ones(4, np.float32))


@pytest.mark.parametrize("in_dtype", [np.float16, np.float64, np.int32, np.uint8, np.bool_])
def test_like_dtype_shape_match_onnx(in_dtype):
    x = np.zeros((3, 4), in_dtype)
    for op in ("RandomNormalLike", "RandomUniformLike"):
        for attrs in ({"dtype": np.dtype(np.float64)}, {"dtype": np.dtype(np.float16), "seed": 1.0}, {}):
            if not attrs and np.dtype(in_dtype).kind != "f":
                with pytest.raises(DTypeError, match=f"{op}: input has dtype"):
                    run1(op, [x], **attrs)
                continue
            ours = run1(op, [x], **attrs)
            theirs = onnx_run(op, [x], attrs)[0]
            assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)


def test_like_statistics():
    x = np.zeros((400, 500), np.float32)
    assert_mean_std(run1("RandomNormalLike", [x], mean=-1.0, scale=0.5), -1.0, 0.5)
    y = run1("RandomUniformLike", [x], low=10.0, high=12.0)
    assert 10 <= y.min() and y.max() <= 12
    assert_mean_std(y, 11.0, 2 / np.sqrt(12))


# -- streams and seeds ---------------------------------------------------------------------

CASES = [
    ("RandomNormal", [], {"shape": (50,)}),
    ("RandomUniform", [], {"shape": (50,)}),
    ("RandomNormalLike", [np.zeros(50, np.float32)], {}),
    ("RandomUniformLike", [np.zeros(50, np.float64)], {}),
    ("Multinomial", [np.zeros((5, 4), np.float32)], {"sample_size": 20}),
    ("Bernoulli", [np.full(50, 0.5, np.float32)], {}),
    ("Dropout", [np.ones(50, np.float32), np.array(0.5, np.float32), np.array(True)], {}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_seed_attribute_reproducible_per_bound_op(case):
    op, inputs, attrs = case
    seeded = dict(attrs, seed=7 if op == "Dropout" else 7.0)
    a, b = make_op(op, seeded), make_op(op, seeded)
    first = [np.asarray(a(*inputs)[0] if op == "Dropout" else a(*inputs)) for _ in range(2)]
    second = [np.asarray(b(*inputs)[0] if op == "Dropout" else b(*inputs)) for _ in range(2)]
    for x, y in zip(first, second):  # a fresh op with the same seed replays the same stream
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0], first[1])  # successive calls continue the stream
    other = make_op(op, dict(attrs, seed=8 if op == "Dropout" else 8.0))
    out = other(*inputs)
    assert not np.array_equal(first[0], out[0] if op == "Dropout" else out)
    # seeded ops ignore the engine state
    vrandom.seed(1)
    c = make_op(op, seeded)
    np.testing.assert_array_equal(np.asarray(c(*inputs)[0] if op == "Dropout" else c(*inputs)), first[0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_engine_seed_reproducible(case):
    op, inputs, attrs = case

    def draw():
        out = vfw_run(op, inputs, attrs)[0]
        return out, vfw_run(op, inputs, attrs)[0]

    vrandom.seed(123)
    a1, a2 = draw()
    vrandom.seed(123)
    b1, b2 = draw()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)
    vrandom.seed(124)
    assert not np.array_equal(draw()[0], a1)


def test_engine_state_api():
    gen = vrandom.default_generator()
    assert isinstance(gen, np.random.Generator)
    vrandom.seed(5)
    assert vrandom.default_generator() is gen  # reseeded in place: held references stay valid
    first = gen.random(3)
    vrandom.seed(5)
    np.testing.assert_array_equal(gen.random(3), first)
    state = vrandom.get_state()
    x = run1("RandomNormal", shape=(6,))
    vrandom.set_state(state)
    np.testing.assert_array_equal(run1("RandomNormal", shape=(6,)), x)
    vrandom.seed(-1)  # reduced modulo 2**64, like torch.manual_seed
    y = gen.random(2)
    vrandom.seed(2**64 - 1)
    np.testing.assert_array_equal(gen.random(2), y)
    with pytest.raises(TypeError, match="seed must be an integer"):
        vrandom.seed(1.5)


def test_float_seeds_distinct():
    outs = [run1("RandomUniform", shape=(8,), seed=s) for s in (1.0, 1.5, 2.0, -1.5)]
    for i in range(len(outs)):
        for j in range(i):
            assert not np.array_equal(outs[i], outs[j])


# -- Multinomial ----------------------------------------------------------------------------


def _ort_multinomial(x, attrs):
    ort = pytest.importorskip("onnxruntime")
    from onnx import helper

    from vfw.core import dtypes as dt

    node = helper.make_node("Multinomial", ["x"], ["y"], **{k: (dt.onnx_code(v) if k == "dtype" else v)
                                                          for k, v in attrs.items()})
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", dt.onnx_code(x.dtype), x.shape)],
                              [helper.make_tensor_value_info("y", dt.onnx_code(attrs.get("dtype", np.int32)), None)])
    # onnxruntime implements Multinomial up to opset 21 (the op is unchanged since 7)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("in_dtype", [np.float32, np.float64, np.float16])
def test_multinomial_dtype_shape(dtype, in_dtype):
    x = np.zeros((3, 5), in_dtype)
    attrs = {"sample_size": 7, "dtype": np.dtype(dtype)}
    ours = run1("Multinomial", [x], **attrs)
    assert (ours.dtype, ours.shape) == (np.dtype(dtype), (3, 7))
    if in_dtype == np.float32:
        # the reference evaluator has no Multinomial, onnxruntime only a float32 one
        theirs = _ort_multinomial(x, attrs)
        assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
    default = run1("Multinomial", [x])
    assert (default.dtype, default.shape) == (np.int32, (3, 1))


@pytest.mark.parametrize("in_dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_multinomial_frequencies(in_dtype):
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.0, 0.05, 0.25], [0.0, 0.0, 1.0, 0.0]])
    with np.errstate(divide="ignore"):
        logits = (np.log(probs) + np.array([[3.0], [-2.0], [0.5]])).astype(in_dtype)  # unnormalized
    n = 50_000
    idx = run1("Multinomial", [logits], sample_size=n, seed=11.0)
    assert idx.min() >= 0 and idx.max() < 4
    p = np.exp(logits.astype(np.float64))
    p /= p.sum(1, keepdims=True)
    for row in range(3):
        freq = np.bincount(idx[row], minlength=4) / n
        assert np.all(np.abs(freq - p[row]) <= 6 * np.sqrt(p[row] * (1 - p[row]) / n) + 1e-12), (row, freq)
    assert not np.isin(idx[1], [1]).any() and np.all(idx[2] == 2)  # zero-probability classes never drawn


def test_multinomial_many_rows_and_extreme_logits():
    # rows far apart in scale, one class dominating each: exercises the row-offset search
    logits = np.full((1000, 6), -50.0, np.float32)
    logits[np.arange(1000), np.arange(1000) % 6] = 50.0
    idx = run1("Multinomial", [logits], sample_size=5, seed=3.0)
    np.testing.assert_array_equal(idx, np.repeat((np.arange(1000) % 6)[:, None], 5, axis=1))
    assert run1("Multinomial", [np.zeros((0, 3), np.float32)], sample_size=4).shape == (0, 4)
    assert run1("Multinomial", [np.zeros((2, 3), np.float32)], sample_size=0).shape == (2, 0)


def test_multinomial_bad_input():
    with pytest.raises(ShapeError, match=r"Multinomial: input must be 2-D .* got shape \[6\]"):
        run1("Multinomial", [np.zeros(6, np.float32)])
    with pytest.raises(OpInputError, match="Multinomial: every row"):
        run1("Multinomial", [np.array([[0.0, 1.0], [-np.inf, -np.inf]], np.float32)])
    with pytest.raises(OpInputError, match="Multinomial: every row"):
        run1("Multinomial", [np.array([[0.0, np.nan]], np.float32)])
    with pytest.raises(ShapeError, match="Multinomial: input has no classes"):
        run1("Multinomial", [np.zeros((2, 0), np.float32)])
    with pytest.raises(OpAttributeError, match="Multinomial: attribute 'dtype'"):
        run1("Multinomial", [np.zeros((2, 3), np.float32)], dtype=np.dtype(np.float32))
    with pytest.raises(OpAttributeError, match="Multinomial: attribute 'sample_size'"):
        run1("Multinomial", [np.zeros((2, 3), np.float32)], sample_size=-1)


# -- Bernoulli ------------------------------------------------------------------------------


@pytest.mark.parametrize("in_dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("dtype", [None, np.bool_, np.int8, np.int64, np.uint8, np.float32, np.float64])
def test_bernoulli_dtype_shape_match_onnx(in_dtype, dtype):
    p = np.full((3, 2), 0.5, in_dtype)
    attrs = {} if dtype is None else {"dtype": np.dtype(dtype)}
    ours = run1("Bernoulli", [p], **attrs)
    theirs = onnx_run("Bernoulli", [p], attrs)[0]
    assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
    assert set(np.unique(ours).tolist()) <= {0, 1}


@pytest.mark.parametrize("in_dtype", [np.float32, np.float64, ml_dtypes.bfloat16])
def test_bernoulli_frequencies(in_dtype):
    p = np.array([0.0, 0.05, 0.3, 0.5, 0.9, 1.0]).astype(in_dtype)
    n = 40_000
    x = run1("Bernoulli", [np.broadcast_to(p, (n, 6)).copy()], seed=2.0)
    assert x.dtype == np.dtype(in_dtype)
    freq = x.astype(np.float64).mean(0)
    q = p.astype(np.float64)
    assert np.all(np.abs(freq - q) <= 6 * np.sqrt(q * (1 - q) / n)), freq
    assert freq[0] == 0 and freq[-1] == 1


def test_bernoulli_bad_input():
    with pytest.raises(OpInputError, match=r"Bernoulli: input probabilities must lie in \[0, 1\]"):
        run1("Bernoulli", [np.array([0.5, 1.5], np.float32)])
    with pytest.raises(OpInputError, match="Bernoulli: .* and NaN"):
        run1("Bernoulli", [np.array([0.5, np.nan], np.float32)])
    with pytest.raises(DTypeError, match="Bernoulli: input 'input' has dtype int32"):
        run1("Bernoulli", [np.array([0, 1], np.int32)])


# -- Dropout --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_dropout_inference_matches_onnx(dtype):
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(dtype)
    for extra in ([], [np.array(0.3, np.float32)], [np.array(0.3, np.float32), np.array(False)],
                  [None, np.array(False)], [np.array(0.0, np.float64), np.array(True)]):
        if dtype is ml_dtypes.bfloat16:  # the reference evaluator cannot run Dropout on bfloat16
            out, mask = vfw_run("Dropout", [x] + extra)
            assert_same(out, x)
            assert mask.dtype == np.bool_ and mask.all()
        else:
            check_op("Dropout", [x] + extra, rtol=0, atol=0)


def test_dropout_inference_empty_and_scalar():
    for x in (np.zeros((0, 3), np.float32), np.array(2.5, np.float64)):
        check_op("Dropout", [x], rtol=0, atol=0)
        out, mask = vfw_run("Dropout", [x, np.array(0.5, np.float32), np.array(True)])
        assert (out.dtype, out.shape, mask.dtype, mask.shape) == (x.dtype, x.shape, np.bool_, x.shape)
        if x.ndim == 0:
            assert out == (x * 2 if mask else 0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("ratio", [0.1, 0.5, 0.75])
def test_dropout_training(dtype, ratio):
    x = np.random.default_rng(1).uniform(0.5, 2.0, (200, 250)).astype(dtype)
    out, mask = vfw_run("Dropout", [x, np.array(ratio, np.float32), np.array(True)], {"seed": 4})
    assert out.dtype == np.dtype(dtype) and out.shape == x.shape
    assert mask.dtype == np.bool_ and mask.shape == x.shape
    expected = (x.astype(np.float64) * mask / (1 - ratio)).astype(dtype)
    tol = 1e-6 if dtype in (np.float32, np.float64) else 1e-2
    assert_same(out, expected, rtol=tol, atol=0)
    keep = mask.mean()
    assert abs(keep - (1 - ratio)) < 6 * np.sqrt(ratio * (1 - ratio) / mask.size)


def test_dropout_ratio_edge_cases():
    x = np.random.default_rng(2).standard_normal((30, 40)).astype(np.float32)
    on = np.array(True)
    # default ratio 0.5
    out, mask = vfw_run("Dropout", [x, None, on], {"seed": 1})
    assert abs(mask.mean() - 0.5) < 0.05
    np.testing.assert_allclose(out, x * mask * 2, rtol=1e-6)
    # ratio 0: a copy
    out, mask = vfw_run("Dropout", [x, np.array(0.0, np.float32), on])
    np.testing.assert_array_equal(out, x)
    assert mask.all() and out is not x
    # ratio 1 (outside ONNX's [0, 1), allowed as in PyTorch): everything dropped
    out, mask = vfw_run("Dropout", [x, np.array(1.0, np.float32), on])
    assert out.dtype == x.dtype and not out.any() and not mask.any()
    # ratio given as a 1-element tensor
    out, mask = vfw_run("Dropout", [x, np.array([0.25], np.float64), np.array([True])], {"seed": 1})
    np.testing.assert_allclose(out, x * mask / 0.75, rtol=1e-6)


def test_dropout_bad_input():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(OpInputError, match=r"Dropout: ratio must lie in \[0, 1\], got 1.5"):
        vfw_run("Dropout", [x, np.array(1.5, np.float32), np.array(True)])
    with pytest.raises(OpInputError, match=r"Dropout: ratio must lie in \[0, 1\], got -0.1"):
        vfw_run("Dropout", [x, np.array(-0.1, np.float32), np.array(True)])
    with pytest.raises(ShapeError, match=r"Dropout: 'ratio' must be a scalar, got shape \[2\]"):
        vfw_run("Dropout", [x, np.array([0.1, 0.2], np.float32), np.array(True)])
    with pytest.raises(ShapeError, match=r"Dropout: 'training_mode' must be a scalar"):
        vfw_run("Dropout", [x, None, np.array([True, False])])
    with pytest.raises(DTypeError, match="Dropout: input 'training_mode' has dtype int64"):
        vfw_run("Dropout", [x, None, np.array(1)])


# -- attributes and inference -------------------------------------------------------------


def test_bad_attributes():
    with pytest.raises(OpAttributeError, match="RandomNormal: attribute 'dtype'"):
        run1("RandomNormal", shape=(2,), dtype=np.dtype(np.int32))
    with pytest.raises(OpAttributeError, match="RandomNormal: missing required attribute 'shape'"):
        run1("RandomNormal")
    with pytest.raises(OpAttributeError, match="RandomUniform: attribute 'shape'"):
        run1("RandomUniform", shape=(2, -1))
    with pytest.raises(OpAttributeError, match=r"RandomUniform: low \(2.0\) must not exceed high \(1.0\)"):
        run1("RandomUniform", shape=(2,), low=2.0, high=1.0)
    with pytest.raises(OpAttributeError, match="RandomNormalLike: scale must be non-negative"):
        run1("RandomNormalLike", [np.zeros(2, np.float32)], scale=-1.0)
    with pytest.raises(OpAttributeError, match="RandomUniformLike: attribute 'dtype'"):
        run1("RandomUniformLike", [np.zeros(2, np.float32)], dtype=np.dtype(np.int64))


INFER_CASES = [
    ("RandomNormal", [], {"shape": (2, 3), "dtype": np.dtype(np.float16)}),
    ("RandomUniform", [], {"shape": ()}),
    ("RandomNormalLike", [np.zeros((4, 1), np.int32)], {"dtype": np.dtype(np.float64)}),
    ("RandomUniformLike", [np.zeros((0, 2), np.float16)], {}),
    ("Multinomial", [np.zeros((3, 4), np.float32)], {"sample_size": 5, "dtype": np.dtype(np.int64)}),
    ("Bernoulli", [np.full((2, 2), 0.5, np.float64)], {}),
    ("Bernoulli", [np.full((2, 2), 0.5, np.float32)], {"dtype": np.dtype(np.bool_)}),
    ("Dropout", [np.zeros((2, 5), np.float16), np.array(0.2, np.float32), np.array(True)], {}),
]


@pytest.mark.parametrize("case", INFER_CASES, ids=lambda c: c[0])
def test_infer(case):
    op, inputs, attrs = case
    schema = get_schema(op)
    ours = vfw_run(op, inputs, attrs)
    infos = [None if x is None else TensorInfo(x.shape, x.dtype) for x in inputs]
    assert schema.infer(schema.bind_attrs(attrs), infos) == [TensorInfo(y.shape, y.dtype) for y in ours]


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1])
def test_engine_generator_seeds_a_classic_mersenne_twister(seed):
    # numpy's legacy RandomState seeds MT19937 with the classic init_genrand, as torch does.
    key = np.random.RandomState(seed).get_state()[1]
    np.testing.assert_array_equal(vrandom.mt19937_state(seed)["state"]["key"], key)
    vrandom.seed(seed)
    np.testing.assert_array_equal(vrandom.default_generator().bit_generator.random_raw(5),
                                  np.random.RandomState(seed).randint(0, 2**32, 5, dtype=np.uint64))
