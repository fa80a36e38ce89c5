"""Attention against ONNX's reference evaluator (opset 25)."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, onnx_run, rand, vfw_run
from vfw.core import OpAttributeError, ShapeError, run

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def compare(inputs, attrs, n_outputs=4, rtol=1e-5, atol=1e-6, outputs=None):
    ours = vfw_run("Attention", inputs, attrs)
    theirs = onnx_run("Attention", inputs, attrs, n_outputs)
    for k in outputs if outputs is not None else range(n_outputs):
        assert_same(ours[k], theirs[k], rtol, atol, what=f"Attention output {k}")


def qkv(batch=2, heads=4, kv_heads=4, q_len=3, kv_len=5, size=8, v_size=6, dtype=F32, seed=0):
    return (rand((batch, heads, q_len, size), dtype, seed=seed), rand((batch, kv_heads, kv_len, size), dtype,
                                                                       seed=seed + 1),
            rand((batch, kv_heads, kv_len, v_size), dtype, seed=seed + 2))


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_heads_and_output_modes(mode, kv_heads):
    attrs = {"qk_matmul_output_mode": mode, "scale": 0.3}
    compare([*qkv(kv_heads=kv_heads)], attrs, outputs=[0, 3])


@pytest.mark.parametrize("mask_kind", ["bool", "float", "short"])
@pytest.mark.parametrize("causal", [0, 1])
def test_masks_and_causal(mask_kind, causal):
    q, k, v = qkv(q_len=4, kv_len=6)
    if mask_kind == "bool":
        mask = rand((4, 6), np.bool_, seed=9)
    elif mask_kind == "float":
        mask = rand((2, 1, 4, 6), seed=9)
    else:  # shorter than the keys: padded with -inf
        mask = rand((4, 4), seed=9)
    compare([q, k, v, mask], {"is_causal": causal, "qk_matmul_output_mode": 2}, outputs=[0, 3])


def test_past_cache_and_causal_offset():
    q, k, v = qkv(q_len=2, kv_len=2)
    past_k, past_v = rand((2, 4, 3, 8), seed=5), rand((2, 4, 3, 6), seed=6)
    compare([q, k, v, None, past_k, past_v], {"is_causal": 1})


@pytest.mark.parametrize("window", [(2, 0), (1, 1), (-1, 0), (0, -1)])
def test_sliding_window_and_nonpad(window):
    q, k, v = qkv(q_len=3, kv_len=7)
    attrs = {"left_window_size": window[0], "right_window_size": window[1], "is_causal": int(window[1] == 0)}
    compare([q, k, v], attrs, n_outputs=1)
    compare([q, k, v, None, None, None, np.array([5, 2], np.int64)], attrs, n_outputs=1)


def test_three_d_inputs_and_softcap():
    q, k, v = rand((2, 3, 12), seed=1), rand((2, 5, 6), seed=2), rand((2, 5, 4), seed=3)
    compare([q, k, v], {"q_num_heads": 4, "kv_num_heads": 2, "softcap": 2.0}, n_outputs=1)
    compare([q, k, v], {"q_num_heads": 4, "kv_num_heads": 2, "softcap": 2.0, "qk_matmul_output_mode": 1},
            outputs=[3])


def test_fully_masked_rows_are_zero():
    q, k, v = qkv(q_len=2, kv_len=3)
    mask = np.array([[False, False, False], [True, False, True]])
    y = run("Attention", q, k, v, mask)[0]
    assert np.all(y[:, :, 0] == 0) and np.all(np.isfinite(y))
    compare([q, k, v, mask], {}, n_outputs=1)


def test_float64_and_softmax_precision():
    q, k, v = qkv(dtype=F64)
    compare([q, k, v], {}, n_outputs=1, rtol=1e-12, atol=1e-12)
    compare([q, k, v], {"softmax_precision": F32}, n_outputs=1, rtol=1e-6, atol=1e-6)


def test_float16_computes_in_float32_and_rounds_once():
    # The engine's rule for half types; ONNX's reference rounds to float16 after every step instead.
    q, k, v = qkv(dtype=F16)
    ours = run("Attention", q, k, v, is_causal=1)[0]
    exact = onnx_run("Attention", [q.astype(F32), k.astype(F32), v.astype(F32)], {"is_causal": 1})[0]
    assert_same(ours, exact.astype(F16), rtol=1e-3, atol=1e-3)


def test_errors():
    q, k, v = qkv()
    with pytest.raises(OpAttributeError, match="q_num_heads"):
        run("Attention", q[:, 0], k[:, 0], v[:, 0])
    with pytest.raises(ShapeError, match="do not fit"):
        run("Attention", q, k[:, :3], v[:, :3])
    with pytest.raises(ShapeError, match="past_key and past_value"):
        run("Attention", q, k, v, None, k)
