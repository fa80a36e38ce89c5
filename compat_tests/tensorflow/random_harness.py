"""Helpers for the tf.random tests: run a case in real TF and in vfw and require the same numbers.

``same`` compares bit for bit (TF's Philox streams are reproduced exactly); ``close`` allows the
last-bit differences of float32 Box-Muller values (TF takes log/sin/cos from the C library in
float32, vfw rounds float64 values), see ``vfw/frontends/tensorflow/_philox.py``.
"""

import numpy as np

from compat_tests.tensorflow.harness import check, to_numpy


def _leaves(form):
    """The ``(dtype, shape, values)`` of every tensor/array in a ``to_numpy`` form, in order."""
    kind = form[0]
    if kind in ("tensor", "ndarray"):
        return [form[1:]]
    if kind in ("list", "tuple"):
        return [leaf for item in form[1] for leaf in _leaves(item)]
    return []


def _bits(values):
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return values.view(f"u{values.dtype.itemsize}")
    return values


def same(fn, *args):
    """``fn(tf, *args)`` in both libraries: results (or error kinds) equal, floats bit for bit."""
    pair = check(fn, *args)
    if pair is None:
        return None
    want, got = (_leaves(to_numpy(r)) for r in pair)
    assert len(want) == len(got)
    for (wdt, wshape, wval), (gdt, gshape, gval) in zip(want, got):
        assert (gdt, gshape) == (wdt, wshape)
        np.testing.assert_array_equal(_bits(gval), _bits(wval))
    return pair


def close(fn, *args, ulps=3):
    """``fn(tf, *args)`` in both libraries: equal dtypes and shapes, floats within ``ulps`` units in the last place.

    A float32 Box-Muller value is a sine or cosine times a radius, each of which may be one unit
    off TF's, so unscaled normals are within three units.
    """
    pair = check(fn, *args)
    if pair is None:
        return None
    want, got = (_leaves(to_numpy(r)) for r in pair)
    for (wdt, wshape, wval), (gdt, gshape, gval) in zip(want, got):
        assert (gdt, gshape) == (wdt, wshape)
        if wval.dtype.kind != "f":
            np.testing.assert_array_equal(gval, wval)
            continue
        nan = np.isnan(wval)
        np.testing.assert_array_equal(np.isnan(gval), nan)
        wval, gval = wval[~nan], gval[~nan]
        spacing = np.abs(np.spacing(wval)).astype(np.float64)
        with np.errstate(invalid="ignore"):
            near = np.abs(gval.astype(np.float64) - wval.astype(np.float64)) <= ulps * spacing
        assert np.all((gval == wval) | near)
    return pair
