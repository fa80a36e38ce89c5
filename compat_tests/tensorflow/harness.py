"""Differential harness: run the same code in real TensorFlow and in vfw.tensorflow and compare.

A case is a function ``fn(tf, *args)`` written once against the TF API; ``check`` runs it with
``tf`` = real TensorFlow and ``tf`` = ``vfw.tensorflow`` on the same inputs (numpy arrays become
tensors of each library) and compares results: tensor dtypes, shapes and values (NaN positions
included), TensorShapes, DTypes, Python values and nested containers.  When real TF raises,
vfw must raise the same kind of exception: the same ``tf.errors`` class for op errors, the same
built-in type otherwise.  ``check_grad`` also compares GradientTape gradients of the float inputs.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

LIBS = (real, vtf)


def convert(lib, x):
    """numpy arrays (also inside lists/tuples/dicts) -> constants of ``lib``; other values unchanged."""
    if isinstance(x, np.ndarray):
        return lib.constant(x)
    if isinstance(x, list):
        return [convert(lib, v) for v in x]
    if isinstance(x, tuple):
        return tuple(convert(lib, v) for v in x)
    if isinstance(x, dict):
        return {k: convert(lib, v) for k, v in x.items()}
    return x


def _is_tensor(x):
    return isinstance(x, (real.Tensor, vtf.Tensor)) or type(x).__name__ in ("ResourceVariable", "Variable")


def to_numpy(x):
    """A comparable form of a result of either library."""
    if _is_tensor(x):
        value = np.asarray(x.numpy())
        if value.dtype.kind == "V" or str(x.dtype.name) == "bfloat16":
            value = value.astype(np.float32)
        return ("tensor", x.dtype.name, tuple(x.shape.as_list()), value)
    if isinstance(x, (real.TensorShape, vtf.TensorShape)):
        return ("shape", None if x.rank is None else tuple(x.as_list()))
    if isinstance(x, (real.DType, vtf.DType)):
        return ("dtype", x.name)
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x)
    if isinstance(x, (list, tuple)):
        return ("list" if isinstance(x, list) else "tuple", [to_numpy(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {k: to_numpy(v) for k, v in x.items()})
    if isinstance(x, np.generic):
        return ("value", x.item())
    return ("value", x)


def assert_same(want, got, rtol=1e-5, atol=1e-6, path="result"):
    """Compare two ``to_numpy`` forms."""
    assert want[0] == got[0], f"{path}: kind {got[0]} (vfw) != {want[0]} (tf)"
    kind = want[0]
    if kind in ("tensor", "ndarray"):
        _, wdt, wshape, wval = want
        _, gdt, gshape, gval = got
        assert gdt == wdt, f"{path}: dtype {gdt} (vfw) != {wdt} (tf)"
        assert gshape == wshape, f"{path}: shape {gshape} (vfw) != {wshape} (tf)"
        if wval.dtype.kind in "fc":
            tol = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}.get(wdt, (rtol, atol))
            np.testing.assert_allclose(gval, wval, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(gval, wval, err_msg=path)
    elif kind in ("list", "tuple"):
        assert len(got[1]) == len(want[1]), f"{path}: length {len(got[1])} (vfw) != {len(want[1])} (tf)"
        for i, (w, g) in enumerate(zip(want[1], got[1])):
            assert_same(w, g, rtol, atol, f"{path}[{i}]")
    elif kind == "dict":
        assert got[1].keys() == want[1].keys(), path
        for k in want[1]:
            assert_same(want[1][k], got[1][k], rtol, atol, f"{path}[{k!r}]")
    elif kind == "value" and isinstance(want[1], float):
        assert isinstance(got[1], float), f"{path}: {type(got[1]).__name__} (vfw) != float (tf)"
        np.testing.assert_allclose(got[1], want[1], rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    else:
        assert type(got[1]) is type(want[1]) and got[1] == want[1], f"{path}: {got[1]!r} (vfw) != {want[1]!r} (tf)"


def _run(lib, fn, args, kwargs):
    try:
        return fn(lib, *convert(lib, args), **kwargs), None
    except Exception as e:  # noqa: BLE001  (any exception is a result to compare)
        return None, e


def error_kind(e):
    """What must match between the libraries: the tf.errors class name, else the built-in base type."""
    for t in type(e).__mro__:
        if t.__name__ == "OpError" and t is not type(e):
            return type(e).__name__
    for t in type(e).__mro__:
        if t.__module__ == "builtins":
            return t.__name__
    return "Exception"


def check(fn, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """Run ``fn(lib, *args)`` in both libraries and compare results (or the kind of exception raised)."""
    want, werr = _run(real, fn, args, kwargs)
    got, gerr = _run(vtf, fn, args, kwargs)
    if werr is not None:
        assert gerr is not None, f"tf raised {type(werr).__name__}: {werr}; vfw returned {got!r}"
        assert error_kind(gerr) == error_kind(werr), (f"tf raised {type(werr).__name__} ({werr}); vfw raised "
                                                      f"{type(gerr).__name__} ({gerr})")
        return None
    if gerr is not None:
        raise AssertionError(f"vfw raised {type(gerr).__name__}: {gerr}; tf returned a result") from gerr
    assert_same(to_numpy(want), to_numpy(got), rtol, atol)
    return want, got


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _flatten(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _flatten(v)
    else:
        yield x


def check_grad(fn, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """Like ``check``, and also compare GradientTape gradients of every float input.

    The target is the sum of all float outputs, each weighted by a fixed pseudo-random tensor.
    """
    results = []
    for lib in LIBS:
        inputs = convert(lib, args)
        leaves = [x for x in _flatten(inputs) if _is_tensor(x) and x.dtype.is_floating]
        with lib.GradientTape(persistent=True) as tape:
            for x in leaves:
                tape.watch(x)
            out = fn(lib, *inputs, **kwargs)
            outs = [o for o in _flatten(out) if _is_tensor(o) and o.dtype.is_floating]
            total = None
            for k, o in enumerate(outs):
                w = np.random.default_rng(k).standard_normal(tuple(o.shape.as_list())).astype(o.dtype.name)
                term = lib.reduce_sum(o * lib.constant(w))
                total = term if total is None else total + term
        grads = tape.gradient(total, leaves) if total is not None else []
        results.append((out, grads))
    assert_same(to_numpy(results[0][0]), to_numpy(results[1][0]), rtol, atol)
    assert_same(to_numpy(results[0][1]), to_numpy(results[1][1]), rtol * 10, atol * 10, "grads")


def arrays(*shapes, dtype="float32", seed=0, low=-2.0, high=2.0):
    """Reproducible test arrays of the given shapes (one array for one shape)."""
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
