"""torch.gradient, segment_reduce, svd/pca_lowrank, nuclear_norm, storages, post-accumulate hooks and
torch.autograd.graph against real torch 2.13."""

import warnings

import numpy as np
import pytest
import vfw.torch as vt

from vfw.frontends.torch import _storage as vfw_storage

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _spacing(spec, lib, dtype):
    """The spacing argument built with ``lib`` (lists of lists become coordinate tensors)."""
    if isinstance(spec, list) and spec and isinstance(spec[0], list):
        return [lib.tensor(s, dtype=dtype) for s in spec]
    return spec


# -- torch.gradient ---------------------------------------------------------------------------------
GRADIENT_CASES = [
    {}, dict(spacing=2.0), dict(edge_order=2), dict(spacing=[0.5, 3], edge_order=2), dict(dim=1),
    dict(dim=-1, spacing=[[0.0, 1, 3, 4, 7]]), dict(dim=[1, 0], spacing=[[0.0, 1, 3, 4, 7], [0.0, 0.5, 1, 4]],
                                                      edge_order=2),
    dict(spacing=[[0.0, 1, 3, 4], [0.0, 2, 3, 7, 8]]),
]


@pytest.mark.parametrize("kwargs", GRADIENT_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_values_and_autograd(kwargs, dtype):
    x = RNG.standard_normal((4, 5)).astype(dtype)
    weights = [RNG.standard_normal((4, 5)) for _ in range(2)]

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        kw = dict(kwargs, spacing=_spacing(kwargs["spacing"], lib, getattr(lib, dtype))) if "spacing" in kwargs \
            else kwargs
        outs = lib.gradient(t, **kw)
        sum(((o * lib.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outs, weights))).backward()
        return [o.detach().numpy() for o in outs], t.grad.numpy(), [o.dtype for o in outs]

    (ours, our_grad, our_dtypes), (ref, ref_grad, ref_dtypes) = run(vt), run(torch)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert len(ours) == len(ref) and isinstance(vt.gradient(vt.tensor(x)), tuple)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    np.testing.assert_allclose(our_grad, ref_grad, rtol=tol, atol=tol)
    assert [str(d) for d in our_dtypes] == [str(d) for d in ref_dtypes]


@pytest.mark.parametrize("input_dtype,spacing_dtype", [("int64", None), ("int64", "int64"), ("float64", "int64"),
                                                        ("float16", None)])
def test_gradient_result_dtypes(input_dtype, spacing_dtype):
    def run(lib):
        t = lib.tensor([0, 1, 4, 9, 16], dtype=getattr(lib, input_dtype))
        spacing = [lib.tensor([0, 1, 3, 4, 7], dtype=getattr(lib, spacing_dtype))] if spacing_dtype else 0.5
        return lib.gradient(t, spacing=spacing)[0]

    ours, ref = run(vt), run(torch)
    assert str(ours.dtype) == str(ref.dtype)
    np.testing.assert_allclose(ours.float().numpy(), ref.float().numpy(), rtol=1e-3)


@pytest.mark.parametrize("kwargs", [dict(edge_order=2), dict(edge_order=3), dict(spacing=[1.0, 2.0, 3.0]),
                                    dict(dim=5), dict(dim=[0, 0]), dict(spacing=[[[0.0, 1.0]]], dim=0)])
def test_gradient_errors(kwargs):
    def run(lib):
        kw = dict(kwargs)
        if "spacing" in kw and isinstance(kw["spacing"][0], list):
            kw["spacing"] = [lib.tensor(kw["spacing"][0])]
        lib.gradient(lib.ones(2, 3), **kw)

    with pytest.raises(Exception) as ref:
        run(torch)
    with pytest.raises(type(ref.value)) as ours:
        run(vt)
    assert str(ours.value) == str(ref.value)


# -- torch.segment_reduce ---------------------------------------------------------------------------
SEGMENT_CASES = [dict(lengths=[2, 0, 4]), dict(offsets=[0, 1, 1, 6]), dict(lengths=[[1, 5], [3, 3]], axis=1),
                 dict(offsets=[[0, 6, 6], [0, 2, 6]], axis=1), dict(lengths=[1, 1, 2], unsafe=True)]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 0.5])
@pytest.mark.parametrize("kwargs", SEGMENT_CASES)
def test_segment_reduce_values_and_gradients(reduce, initial, kwargs):
    data = RNG.random((2, 6, 3)) + 0.1
    data[0, 1] = data[0, 2]  # ties for max/min
    data[1, 3, 1] = 0.0  # a zero for prod
    data = data if kwargs.get("axis") else data[0]

    def run(lib):
        d = lib.tensor(data, requires_grad=True)
        kw = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        y = lib.segment_reduce(d, reduce, initial=initial, **kw)
        weights = lib.tensor(np.arange(y.numel()).reshape(tuple(y.shape)) + 1.0)
        (lib.where(y.isfinite(), y, lib.zeros_like(y)) * weights).sum().backward()
        return y.detach().numpy(), d.grad.numpy()

    (ours, our_grad), (ref, ref_grad) = run(vt), run(torch)
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)  # equal NaN and infinities too
    np.testing.assert_allclose(our_grad, ref_grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(lengths=[1, 1]), dict(lengths=[1, -1, 4]), dict(lengths="float"), dict(),
                                    dict(lengths=[3, 1], reduce="foo"), dict(indices=[3, 1]),
                                    dict(lengths=[4], data="int"), dict(lengths=[4], axis=1, data="2d")])
def test_segment_reduce_errors(kwargs):
    def run(lib):
        kw = dict(kwargs)
        reduce = kw.pop("reduce", "sum")
        data = {"int": lib.arange(4), "2d": lib.ones(4, 4)}.get(kw.pop("data", None), lib.ones(4, 2))
        if kw.get("lengths") == "float":
            kw["lengths"] = lib.tensor([1.0, 3.0])
        kw = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kw.items()}
        lib.segment_reduce(data, reduce, **kw)

    with pytest.raises(Exception) as ref:
        run(torch)
    with pytest.raises(type(ref.value)) as ours:
        run(vt)
    assert str(ours.value) == str(ref.value)


# -- svd_lowrank / pca_lowrank / nuclear_norm -------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 8, 5), (3, 5, 8), (9, 4)])
@pytest.mark.parametrize("fn,q", [("svd_lowrank", 3), ("svd_lowrank", 6), ("pca_lowrank", None), ("pca_lowrank", 2)])
def test_lowrank_factors(shape, fn, q):
    a = RNG.standard_normal(shape)
    vt.manual_seed(1)
    torch.manual_seed(1)
    U, S, V = getattr(vt, fn)(vt.tensor(a), q=q)
    rU, rS, rV = getattr(torch, fn)(torch.tensor(a), q=q)
    assert [tuple(t.shape) for t in (U, S, V)] == [tuple(t.shape) for t in (rU, rS, rV)]
    # centred 5 x 8 matrices have rank 4: their last singular value is round-off on both sides
    np.testing.assert_allclose(S.numpy(), rS.numpy(), rtol=1e-8, atol=1e-12)
    recon = (U @ vt.diag_embed(S) @ V.mT).numpy()
    ref_recon = (rU @ torch.diag_embed(rS) @ rV.mT).numpy()
    np.testing.assert_allclose(recon, ref_recon, atol=1e-8)
    # columns orthonormal
    k = S.shape[-1]
    np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(np.eye(k), (U.mT @ U).shape), atol=1e-10)


def test_svd_lowrank_full_rank_is_exact_and_differentiable():
    a = RNG.standard_normal((6, 4))
    x = vt.tensor(a, requires_grad=True)
    U, S, V = vt.svd_lowrank(x, q=4, M=vt.tensor(a.mean(0, keepdims=True)))
    np.testing.assert_allclose(S.detach().numpy(), np.linalg.svd(a - a.mean(0), compute_uv=False), rtol=1e-10)
    S.sum().backward()
    r = torch.tensor(a, requires_grad=True)
    torch.linalg.svdvals(r - torch.tensor(a.mean(0, keepdims=True))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), atol=1e-10)


def test_pca_lowrank_bad_q():
    for q in (7, -1):
        with pytest.raises(ValueError) as ref:
            torch.pca_lowrank(torch.ones(4, 5), q=q)
        with pytest.raises(ValueError) as ours:
            vt.pca_lowrank(vt.ones(4, 5), q=q)
        assert str(ours.value) == str(ref.value)


@pytest.mark.parametrize("args", [(), ((0, 2),), ((0, 2), True), ((1, 2), False)])
def test_nuclear_norm(args):
    a = RNG.standard_normal((3, 4, 5))
    x, r = vt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    with warnings.catch_warnings():  # the deprecation warning (once per process): test_warn_once.py
        warnings.simplefilter("ignore")
        ours = vt.nuclear_norm(x, *args)
        ref = torch.nuclear_norm(r, *args)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), r.grad.numpy(), atol=1e-10)


# -- storages --------------------------------------------------------------------------------------
def test_storages_of_views():
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        view = x[1]
        # both warn once per process: forget earlier tests' warnings, then the first call warns and the next does not
        if lib is torch:
            torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = False
        else:
            vfw_storage._warned[0] = False
        with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
            typed = view.storage()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            view.storage()
        untyped = view.untyped_storage()
        facts = (typed.size(), len(typed), str(typed.dtype), typed.nbytes(), typed.tolist(), typed.element_size(),
                 typed.type(), typed.data_ptr() == x.data_ptr(), untyped.size(), untyped.nbytes(), untyped.tolist(),
                 untyped.data_ptr() == x.data_ptr(), lib.is_storage(typed), lib.is_storage(untyped),
                 lib.is_storage(x), str(typed.device))
        typed[0] = 9.0  # a write through the storage is seen by every tensor over it
        x.t()[2, 1] = -1.0
        return facts, x.tolist(), typed.tolist(), repr(lib.tensor([1, 2]).storage())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(vt) == run(torch)


# -- autograd hooks and graph ----------------------------------------------------------------------
@pytest.mark.parametrize("returned", ["tensor", "int", "none"])
def test_post_accumulate_grad_hook_must_return_none(returned):
    def run(lib):
        t = lib.ones(3, requires_grad=True)
        t.register_post_accumulate_grad_hook(lambda p: {"tensor": p * 2, "int": 5, "none": None}[returned])
        try:
            (t * 3).sum().backward()
        except Exception as e:  # compared below
            return type(e), str(e), t.grad.tolist()
        return None, None, t.grad.tolist()

    assert run(vt) == run(torch)


def test_autograd_graph_contexts():
    for lib in (vt, torch):
        graph = lib.autograd.graph
        x = lib.ones(3, requires_grad=True)
        with graph.save_on_cpu():
            y = (x * x).sum()
        y.backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with graph.save_on_cpu():
                    pass
        t = lib.ones(2)
        before = t._version
        graph.increment_version(t)
        assert t._version == before + 1
    assert issubclass(vt.autograd.graph.save_on_cpu, vt.autograd.graph.saved_tensors_hooks)
