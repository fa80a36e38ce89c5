"""Differential harness: run the same code in real PyTorch and in vfw.torch and compare.

A case is a function ``fn(torch, *args)`` written once against the torch API; ``check``
runs it with ``torch`` = real torch and ``torch`` = ``vfw.torch`` on the same inputs
(numpy arrays become tensors of each library) and compares results: tensor dtypes,
shapes and values (NaN positions included), Python numbers, sizes, dtypes and nested
containers. When real torch raises, vfw.torch must raise an exception of the same
built-in type. ``check_grad`` also compares the gradients of the inputs.
"""

import warnings

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

LIBS = (real, vt)


def convert(lib, x, requires_grad=False):
    """numpy arrays (also inside lists/tuples/dicts) -> tensors of ``lib``; other values unchanged."""
    if isinstance(x, np.ndarray):
        t = lib.from_numpy(x.copy())
        return t.requires_grad_(True) if requires_grad and x.dtype.kind == "f" else t
    if isinstance(x, list):
        return [convert(lib, v, requires_grad) for v in x]
    if isinstance(x, tuple):
        return tuple(convert(lib, v, requires_grad) for v in x)
    if isinstance(x, dict):
        return {k: convert(lib, v, requires_grad) for k, v in x.items()}
    return x


def to_numpy(x):
    """A comparable form of a result of either library."""
    if isinstance(x, (real.Tensor, vt.Tensor)):
        t = x.detach().resolve_conj()  # torch's lazy conjugates (e.g. ifft of a real tensor) refuse numpy()
        dtype = str(t.dtype).replace("torch.", "")
        if dtype == "bfloat16":
            t = t.float()
        return ("tensor", dtype, tuple(t.shape), np.array(t.numpy()))
    if isinstance(x, (real.Size, vt.Size)):
        return ("size", tuple(x))
    if isinstance(x, (real.dtype, vt.dtype)):
        return ("dtype", str(x))
    if isinstance(x, (real.device, vt.device)):
        return ("device", repr(x))
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x)
    if isinstance(x, (list, tuple)):  # tuple subclasses too: torch.return_types.* (values, indices)
        return ("list" if isinstance(x, list) else "tuple", [to_numpy(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {k: to_numpy(v) for k, v in x.items()})
    return ("value", x)


def assert_same(want, got, rtol=1e-5, atol=1e-6, path="result"):
    """Compare two ``to_numpy`` forms."""
    assert want[0] == got[0], f"{path}: kind {got[0]} (vfw) != {want[0]} (torch)"
    kind = want[0]
    if kind in ("tensor", "ndarray"):
        _, wdt, wshape, wval = want
        _, gdt, gshape, gval = got
        assert gdt == wdt, f"{path}: dtype {gdt} (vfw) != {wdt} (torch)"
        assert gshape == wshape, f"{path}: shape {gshape} (vfw) != {wshape} (torch)"
        if wval.dtype.kind in "fc":
            tol = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}.get(wdt, (rtol, atol))
            np.testing.assert_allclose(gval, wval, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(gval, wval, err_msg=path)
    elif kind in ("list", "tuple"):
        assert len(got[1]) == len(want[1]), f"{path}: length {len(got[1])} (vfw) != {len(want[1])} (torch)"
        for i, (w, g) in enumerate(zip(want[1], got[1])):
            assert_same(w, g, rtol, atol, f"{path}[{i}]")
    elif kind == "dict":
        assert got[1].keys() == want[1].keys(), path
        for k in want[1]:
            assert_same(want[1][k], got[1][k], rtol, atol, f"{path}[{k!r}]")
    elif kind == "value" and isinstance(want[1], float):
        assert isinstance(got[1], float), f"{path}: {type(got[1]).__name__} (vfw) != float (torch)"
        np.testing.assert_allclose(got[1], want[1], rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    else:
        assert type(got[1]) is type(want[1]) and got[1] == want[1], f"{path}: {got[1]!r} (vfw) != {want[1]!r} (torch)"


def _run(lib, fn, args, kwargs, requires_grad=False):
    try:
        return fn(lib, *convert(lib, args, requires_grad), **kwargs), None
    except Exception as e:  # noqa: BLE001  (any exception is a result to compare)
        return None, e


def _builtin_type(e):
    for t in type(e).__mro__:
        if t.__module__ == "builtins":
            return t
    return Exception


def check(fn, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """Run ``fn(lib, *args)`` in both libraries and compare results (or the raised exception type)."""
    want, werr = _run(real, fn, args, kwargs)
    got, gerr = _run(vt, fn, args, kwargs)
    if werr is not None:
        assert gerr is not None, f"torch raised {type(werr).__name__}: {werr}; vfw returned {got!r}"
        expected = _builtin_type(werr)
        assert isinstance(gerr, expected), (f"torch raised {type(werr).__name__} ({werr}); vfw raised "
                                            f"{type(gerr).__name__} ({gerr})")
        return
    if gerr is not None:
        raise AssertionError(f"vfw raised {type(gerr).__name__}: {gerr}; torch returned a result") from gerr
    assert_same(to_numpy(want), to_numpy(got), rtol, atol)
    return want, got


def check_grad(fn, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """Like ``check``, and also compare the gradients of every float array argument.

    Gradients come from ``backward`` of the sum of all float outputs (each output weighted
    by a fixed pseudo-random tensor, so every element's gradient matters).
    """
    results = []
    for lib in LIBS:
        inputs = convert(lib, args, requires_grad=True)
        out = fn(lib, *inputs, **kwargs)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                if isinstance(o, (real.Tensor, vt.Tensor)) and o.requires_grad]
        total = None
        for k, o in enumerate(outs):
            w = np.random.default_rng(k).standard_normal(tuple(o.shape)).astype(str(o.dtype).replace("torch.", ""))
            term = (o * lib.from_numpy(w)).sum()
            total = term if total is None else total + term
        if total is not None:
            total.backward()
        leaves = [x for x in _flatten(inputs) if isinstance(x, (real.Tensor, vt.Tensor)) and x.requires_grad]
        results.append((out, [x.grad for x in leaves]))
    assert_same(to_numpy(results[0][0]), to_numpy(results[1][0]), rtol, atol)
    assert_same(to_numpy(results[0][1]), to_numpy(results[1][1]), rtol * 10, atol * 10, "grads")


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _flatten(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _flatten(v)
    else:
        yield x


def arrays(*shapes, dtype="float32", seed=0, low=-2.0, high=2.0):
    """Reproducible test arrays of the given shapes."""
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        if np.dtype(dtype).kind == "f":
            out.append(rng.uniform(low, high, s).astype(dtype))
        elif np.dtype(dtype).kind == "b":
            out.append(rng.random(s) > 0.5)
        else:
            out.append(rng.integers(int(low) if low < 0 else 0, max(int(high), 1) + 1, s).astype(dtype))
    return out if len(out) != 1 else out[0]


def outcome(fn, lib):
    """``fn(lib)``'s result as text (reprs of tensors, devices...), or the type and text of what it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            result = fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return "ok", repr(result)


def check_outcome(fn):
    """Assert ``fn`` returns the same repr, or raises the same type with the same text, in vfw.torch as in torch."""
    assert outcome(fn, vt) == outcome(fn, real)
