"""Quantized tensors and fake quantization against real torch 2.13: levels (torch's rounding, bit for bit),
parameters, reprs, the functions that run on quantized tensors, errors, and fake quantization's gradient."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad

pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")


def _values(seed=0, n=4000):
    """Values on a fine grid (many exact ties of x / scale) and normal draws."""
    rng = np.random.default_rng(seed)
    grid = rng.integers(-3000, 3000, n // 2) / 200
    return np.concatenate([grid, rng.standard_normal(n - n // 2) * 5]).astype(np.float32)


def _describe(torch, q):
    """Everything a quantized tensor shows, in comparable form."""
    params = ((q.q_scale(), q.q_zero_point()) if q.qscheme() == torch.per_tensor_affine else
              (q.q_per_channel_scales(), q.q_per_channel_zero_points(), q.q_per_channel_axis()))
    return q.int_repr(), q.dequantize(), params, repr(q), str(q.dtype), str(q.qscheme()), q.is_quantized


@pytest.mark.parametrize("dtype", ["quint8", "qint8", "qint32"])
@pytest.mark.parametrize("scale,zero_point", [(0.1, 3), (0.05, 10), (0.3, 0), (0.0173, 7), (1 / 3, 5)])
def test_quantize_per_tensor_levels(dtype, scale, zero_point):
    x = _values()
    check(lambda torch, x: _describe(torch, torch.quantize_per_tensor(x, scale, zero_point, getattr(torch, dtype)))[:3],
          x, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["quint8", "qint8", "qint32"])
def test_quantize_per_tensor_tensor_overload_and_repr(dtype):
    x = np.array([-1.0, 0.0, 0.05, 0.15, 0.25, 1.0, 30.0, -2.55], np.float32)

    def fn(torch, x):
        q = torch.quantize_per_tensor(x, torch.tensor(0.1), torch.tensor(3), getattr(torch, dtype))
        scalar = torch.quantize_per_tensor(torch.tensor(1.5), torch.tensor([0.1]), torch.tensor([3]),
                                           getattr(torch, dtype))
        return _describe(torch, q), _describe(torch, scalar)
    check(fn, x, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["quint8", "qint8", "qint32"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_quantize_per_channel(dtype, axis):
    x = _values(1, 600).reshape(20, 30)
    rng = np.random.default_rng(2)
    n = x.shape[axis]
    scales, zero_points = rng.uniform(0.01, 0.5, n), rng.integers(0, 20, n)
    check(lambda torch, x, s, z: _describe(torch, torch.quantize_per_channel(x, s, z, axis, getattr(torch, dtype))),
          x, scales, zero_points, rtol=0, atol=0)


@pytest.mark.parametrize("dtype,reduce_range", [("quint8", False), ("quint8", True), ("qint8", False),
                                                ("qint8", True)])
@pytest.mark.parametrize("values", [[-1.0, 0.0, 0.05, 30.0, -2.55], [0.5, 2.0, 3.0], [-4.0, -1.0], [0.0, 0.0]])
def test_quantize_per_tensor_dynamic(dtype, reduce_range, values):
    x = np.array(values, np.float32)
    check(lambda torch, x: _describe(torch, torch.quantize_per_tensor_dynamic(x, getattr(torch, dtype), reduce_range)),
          x, rtol=0, atol=0)


@pytest.mark.parametrize("expr", [
    "q.reshape(2, 4)", "q.view(4, 2)", "q.clone()", "q[1:3]", "q[2]", "q.flatten()", "q.reshape(2, 4).t()",
    "q.reshape(2, 4).transpose(0, 1)", "q.reshape(2, 4).permute(1, 0)", "q.unsqueeze(0)", "q.unsqueeze(1).squeeze()",
    "q.contiguous()", "q.detach()", "q.relu()", "torch.relu(q)", "q.flip(0)", "q.narrow(0, 1, 3)", "q.expand(2, 8)",
    "q.repeat(2)", "q.chunk(2)", "q.split(3)", "q.max()", "q.min()", "torch.cat([q, q])", "torch.stack([q, q], 1)",
    "torch.cat([q, torch.quantize_per_tensor(x, 0.2, 4, torch.quint8)])", "torch.dequantize(q)",
    "torch.dequantize([q, q])", "torch.flatten(q.reshape(2, 4))",
])
def test_functions_on_quantized_tensors(expr):
    x = np.array([-1.0, 0.0, 0.05, 0.15, 0.25, 1.0, 30.0, -2.55], np.float32)

    def fn(torch, x):
        q = torch.quantize_per_tensor(x, 0.1, 10, torch.quint8)  # noqa: F841  (used by expr)
        out = eval(expr)
        outs = out if isinstance(out, tuple) else (out,)
        return [_describe(torch, o) if o.is_quantized else o for o in outs]
    check(fn, x, rtol=0, atol=0)


@pytest.mark.parametrize("expr", [
    "q + q", "q * 2", "q.sum()", "q.abs()", "torch.add(q, q)", "q.numpy()", "q.tolist()", "q.requires_grad_()",
    "torch.quantize_per_tensor(x, 0.1, 10, torch.float32)",
    "torch.quantize_per_tensor(x.double(), 0.1, 3, torch.quint8)",
    "torch.quantize_per_tensor(x.long(), 0.1, 3, torch.quint8)", "torch.quantize_per_tensor(x, 0.1, -300, torch.qint8)",
    "torch.quantize_per_tensor(x, 0.1, 300, torch.quint8)", "q.q_per_channel_scales()",
    "torch.quantize_per_channel(x, torch.tensor([0.1, 0.2]), torch.tensor([0, 0]), 0, torch.quint8)",
    "torch.quantize_per_channel(x, torch.full((8,), 0.1), torch.full((8,), 400), 0, torch.quint8)",
])
def test_errors(expr):
    x = np.array([-1.0, 0.0, 0.05, 0.15, 0.25, 1.0, 30.0, -2.55], np.float32)

    def fn(torch, x):
        q = torch.quantize_per_tensor(x, 0.1, 10, torch.quint8)  # noqa: F841  (used by expr)
        return eval(expr)
    check(fn, x)


def test_dtypes_and_schemes():
    def fn(torch):
        return [(str(d), d.itemsize, d.is_floating_point, d.is_complex) for d in
                (torch.quint8, torch.qint8, torch.qint32, torch.quint4x2, torch.quint2x4)] + [
            str(s) for s in (torch.per_tensor_affine, torch.per_channel_affine, torch.per_tensor_symmetric,
                             torch.per_channel_symmetric, torch.per_channel_affine_float_qparams)]
    check(fn)


def test_creation_warns_deprecated():
    import vfw.torch as vt
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vt.quantize_per_tensor(vt.tensor([1.0]), 0.1, 0, vt.quint8)
    assert any("deprecated" in str(w.message) for w in caught)


# -- fake quantization ------------------------------------------------------------------------
@pytest.mark.parametrize("scale,zero_point,quant_min,quant_max", [
    (0.1, 3, 0, 255), (0.05, 10, -128, 127), (0.0173, 7, 0, 15), (1 / 3, -5, -128, 127), (0.25, 0, -8, 7)])
def test_fake_quantize_per_tensor(scale, zero_point, quant_min, quant_max):
    x = _values(3, 2000)
    check_grad(lambda torch, x: torch.fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min, quant_max), x,
               rtol=0, atol=0)

    def tensor_overload(torch, x):
        return torch.fake_quantize_per_tensor_affine(x, torch.tensor([scale], dtype=torch.float32),
                                                     torch.tensor([zero_point], dtype=torch.int32), quant_min,
                                                     quant_max)
    check_grad(tensor_overload, x, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_fake_quantize_other_float_dtypes(dtype):
    x = _values(4, 400).astype(dtype)
    check(lambda torch, x: torch.fake_quantize_per_tensor_affine(x, 0.1, 3, 0, 255), x, rtol=0, atol=0)


@pytest.mark.parametrize("axis", [0, 1])
def test_fake_quantize_per_channel(axis):
    x = _values(5, 600).reshape(20, 30)
    rng = np.random.default_rng(6)
    n = x.shape[axis]
    scales, zero_points = rng.uniform(0.01, 0.5, n).astype(np.float32), rng.integers(0, 20, n).astype(np.int32)

    def fn(torch, x, s, z):
        return torch.fake_quantize_per_channel_affine(x, s.detach(), z, axis, 0, 255)
    check_grad(fn, x, scales, zero_points, rtol=0, atol=0)


@pytest.mark.parametrize("expr", [
    "per_tensor(x, 0.1, 300, 0, 255)", "per_tensor(x, 0.1, 3, 255, 0)",
    "per_tensor(x, torch.tensor([0.1, 0.2]), torch.tensor([3, 3], dtype=torch.int32), 0, 9)",
    "per_channel(x, torch.tensor([0.1, 0.2, 0.3]), torch.tensor([3, 3, 3]), 1, 0, 255)",
    "per_channel(x, torch.tensor([0.1, 0.2]), torch.tensor([3, 3], dtype=torch.int32), 1, 0, 9)",
    "per_channel(x, torch.tensor([0.1, 0.2, 0.3]), torch.tensor([3, 3, 3], dtype=torch.int32), 2, 0, 9)",
    "per_channel(x, torch.tensor([0.1, 0.2, 0.3]), torch.tensor([3, 3, 300], dtype=torch.int32), 1, 0, 255)",
    "per_channel(x, torch.tensor([0.1, 0.2, 0.3]), torch.tensor([3, 3, 3], dtype=torch.int32), -1, 0, 9)",
])
def test_fake_quantize_errors(expr):
    def fn(torch, x):
        per_tensor, per_channel = torch.fake_quantize_per_tensor_affine, torch.fake_quantize_per_channel_affine
        return eval(expr, {"torch": torch, "x": x, "per_tensor": per_tensor, "per_channel": per_channel})
    check(fn, np.ones((4, 3), np.float32))


@pytest.mark.parametrize("make", [lambda torch: torch.zeros(3, dtype=torch.qint8),
                                  lambda torch: torch.tensor([1, 2], dtype=torch.quint8),
                                  lambda torch: torch.ones(2).to(torch.qint32)])
def test_quantized_dtype_is_no_plain_element_type(make):
    """A quantized dtype never makes a plain integer tensor (torch raises too; the exception types differ)."""
    import torch as real
    import vfw.torch as vt

    for torch in (real, vt):
        with pytest.raises((NotImplementedError, RuntimeError)):
            make(torch)


def test_quantized_dtypes_and_schemes_pickle_and_copy_to_themselves():
    import copy
    import pickle

    import torch as real
    import vfw.torch as vt

    for torch in (real, vt):
        for obj in (torch.qint8, torch.quint8, torch.qint32, torch.per_tensor_affine, torch.per_channel_symmetric):
            assert pickle.loads(pickle.dumps(obj)) is obj and copy.deepcopy(obj) is obj
        assert type(torch.qint8).__name__ == "dtype" and torch.qint8 != torch.int8
