"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*) against torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, assert_same, real, to_numpy, vt

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyLinear", (2,), {"dtype": "float64"}, (3, 4)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv1d", (4, 2), {"groups": 2, "bias": False}, (6, 5)),
    ("LazyConv2d", (2, 3), {"stride": 2, "padding_mode": "reflect", "padding": 1}, (1, 3, 6, 6)),
    ("LazyConv3d", (2, 2), {}, (1, 2, 3, 3, 3)),
    ("LazyConvTranspose1d", (3, 2), {"stride": 2, "output_padding": 1}, (2, 4, 5)),
    ("LazyConvTranspose2d", (2, 3), {"groups": 2, "dilation": 2}, (1, 4, 3, 3)),
    ("LazyConvTranspose3d", (2, 2), {}, (3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False, "momentum": None}, (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 4)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"eps": 1e-3}, (1, 2, 2, 3, 3)),
]


def _build(torch, name, args, kwargs):
    kwargs = dict(kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(torch, kwargs["dtype"])
    torch.manual_seed(0)
    return getattr(torch.nn, name)(*args, **kwargs)


def _run(torch, name, args, kwargs, shape):
    module = _build(torch, name, args, kwargs)
    before = (type(module).__name__, repr(module), list(module.state_dict()),
              module.has_uninitialized_params())
    x = torch.tensor(arrays(shape, seed=4), dtype=getattr(torch, kwargs.get("dtype", "float32")))
    out = module(x)
    after = (type(module).__name__, repr(module), module.__class__ is getattr(torch.nn, name[4:]))
    state = {k: v for k, v in module.state_dict().items()}
    return before, after, out, state, module


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_first_forward_materializes_torchs_parameters(name, args, kwargs, shape):
    want, got = (_run(lib, name, args, kwargs, shape) for lib in (real, vt))
    assert got[0] == want[0] and got[1] == want[1]
    assert_same(to_numpy(want[2]), to_numpy(got[2]))
    assert list(got[3]) == list(want[3])
    for key in want[3]:
        assert_same(to_numpy(want[3][key]), to_numpy(got[3][key]), path=key)
    # the materialized module trains like the eager one: gradients of its parameters
    for lib, module in ((real, want[4]), (vt, got[4])) if list(want[4].parameters()) else ():
        x = lib.tensor(arrays(shape, seed=5), dtype=getattr(lib, kwargs.get("dtype", "float32")))
        module(x).pow(2).sum().backward()
    for (k, p), (_, q) in zip(want[4].named_parameters(), got[4].named_parameters()):
        assert_same(to_numpy(p.grad), to_numpy(q.grad), rtol=1e-4, atol=1e-5, path=k)


@pytest.mark.parametrize("name,args,eager", [("LazyLinear", (3,), (5, 3)), ("LazyConv1d", (4, 3), (2, 4, 3)),
                                              ("LazyBatchNorm1d", (), (3,))])
def test_load_state_dict_materializes_then_forward(name, args, eager):
    results = []
    for torch in (real, vt):
        torch.manual_seed(1)
        source = getattr(torch.nn, name[4:])(*eager)
        if "BatchNorm" in name:
            source(torch.tensor(arrays((4, 3), seed=2)))
        module = getattr(torch.nn, name)(*args)
        module.load_state_dict(source.state_dict())
        loaded = (type(module).__name__, module.has_uninitialized_params(),
                  {k: v.numpy().copy() for k, v in module.state_dict().items()})
        x = torch.tensor(arrays((2, eager[0]) if "Linear" in name else (2, eager[0], 5) if "Conv" in name else (4, 3),
                                seed=3))
        module.eval()
        results.append((loaded, module(x).detach().numpy(), type(module).__name__))
    (want_loaded, want_out, want_cls), (got_loaded, got_out, got_cls) = results
    assert want_loaded[:2] == got_loaded[:2] and want_cls == got_cls
    for key in want_loaded[2]:
        np.testing.assert_allclose(got_loaded[2][key], want_loaded[2][key], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make,shape", [
    (lambda t: t.nn.LazyConv1d(4, 2, groups=2), (1, 3, 5)),
    (lambda t: t.nn.LazyConv1d(4, 2), (3, 5, 5, 5)),
    (lambda t: t.nn.LazyConv2d(4, 2), (3, 5)),
    (lambda t: t.nn.LazyInstanceNorm1d(), (3, 4)),
])
def test_first_forward_errors(make, shape):
    errors = []
    for torch in (real, vt):
        with pytest.raises(Exception) as info:
            make(torch)(torch.ones(shape))
        errors.append((type(info.value), str(info.value).replace("torch.Size", "")))
    assert errors[0] == errors[1]


def test_uninitialized_placeholders():
    for torch in (real, vt):
        p, b = torch.nn.UninitializedParameter(), torch.nn.UninitializedBuffer()
        assert (repr(p), repr(b)) == ("<UninitializedParameter>", "<UninitializedBuffer>")
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            _ = p.shape
        p.materialize((2, 3))
        assert type(p) is torch.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        b.materialize((4,), dtype=torch.float64)
        assert type(b) is torch.Tensor and b.dtype == torch.float64 and not b.requires_grad
        assert torch.nn.LazyLinear(3).has_uninitialized_params()
