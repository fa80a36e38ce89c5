"""Differential checks of tf.data pipelines: the same pipeline built with real TensorFlow and vfw.tensorflow.

``check_dataset(build)`` builds ``build(tf)`` with both libraries and compares the dataset's repr
(class name and element spec), its cardinality, ``len()`` (or its TypeError), and every element it
yields (values, dtypes, shapes, container types; nested datasets element by element), including
the kind of error raised while building or iterating.  ``check_value(fn)`` compares any result
(elements, specs, tensors, numpy values) or the kind of error.
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import error_kind, real, vtf

LIBS = (real, vtf)


@pytest.fixture(autouse=True)
def no_global_seed():
    """Each test starts and ends without a global random seed in either library (shuffles without an op seed
    and random ops would otherwise depend on the tests run before)."""
    for lib in LIBS:
        lib.random.set_seed(None)
    yield
    for lib in LIBS:
        lib.random.set_seed(None)


def describe(x):
    """A library-independent, comparable form of a result."""
    if isinstance(x, (real.data.Dataset, vtf.data.Dataset)):
        return ("dataset", repr(x.element_spec), [describe(e) for e in x])
    if isinstance(x, (real.Tensor, vtf.Tensor)):
        return ("tensor", x.dtype.name, tuple(x.shape.as_list()), _values(x.numpy()))
    if isinstance(x, (np.ndarray, np.generic)):
        return ("numpy", type(x).__name__, str(x.dtype), np.shape(x), _values(x))
    if isinstance(x, tuple):
        return (type(x).__name__, [describe(v) for v in x])
    if isinstance(x, list):
        return ("list", [describe(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, describe(v)) for k, v in x.items()])
    if isinstance(x, (real.TensorSpec, vtf.TensorSpec, real.data.DatasetSpec, vtf.data.DatasetSpec,
                      real.TensorShape, vtf.TensorShape, real.DType, vtf.DType)):
        return ("repr", repr(x))
    return ("value", type(x).__name__, x)


def _values(array):
    array = np.asarray(array)
    return array.tolist() if array.dtype != object else [v for v in array.reshape(-1)]


def _summary(lib, build, limit):
    dataset = build(lib)
    out = {"repr": repr(dataset), "spec": repr(dataset.element_spec), "cardinality": int(dataset.cardinality())}
    try:
        out["len"] = len(dataset)
    except TypeError as e:
        out["len"] = ("TypeError", str(e))
    elements = []
    try:
        for i, element in enumerate(dataset):
            if i == limit:
                break
            elements.append(describe(element))
    except Exception as e:  # noqa: BLE001  (an error while iterating is a result to compare)
        elements.append(("error", error_kind(e)))
    out["elements"] = elements
    return out


def _outcome(fn, lib):
    try:
        return fn(lib), None
    except Exception as e:  # noqa: BLE001
        return None, e


def _compare(want, got, path):
    if isinstance(want, float) and isinstance(got, float):
        assert np.isclose(want, got, rtol=1e-6, atol=1e-7, equal_nan=True), f"{path}: {got} (vfw) != {want} (tf)"
    elif isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)) and type(want) is type(got):
        assert len(want) == len(got), f"{path}: length {len(got)} (vfw) != {len(want)} (tf)\n{got}\n{want}"
        for i, (w, g) in enumerate(zip(want, got)):
            _compare(w, g, f"{path}[{i}]")
    elif isinstance(want, dict) and isinstance(got, dict):
        assert want.keys() == got.keys(), f"{path}: keys {got.keys()} (vfw) != {want.keys()} (tf)"
        for k in want:
            _compare(want[k], got[k], f"{path}[{k!r}]")
    else:
        assert type(want) is type(got) and want == got, f"{path}: {got!r} (vfw) != {want!r} (tf)"


def _check(fn, path):
    (want, werr), (got, gerr) = (_outcome(fn, lib) for lib in LIBS)
    if werr is not None:
        assert gerr is not None, f"tf raised {type(werr).__name__}: {werr}; vfw returned {got!r}"
        assert error_kind(gerr) == error_kind(werr), (f"tf raised {type(werr).__name__} ({werr}); vfw raised "
                                                      f"{type(gerr).__name__} ({gerr})")
        return None
    if gerr is not None:
        raise AssertionError(f"vfw raised {type(gerr).__name__}: {gerr}; tf returned {want!r}") from gerr
    _compare(want, got, path)
    return want


def check_dataset(build, limit=100):
    """Compare ``build(tf)`` (a dataset) between the libraries: repr, spec, cardinality, len and elements
    (at most ``limit``), or the kind of error ``build`` raises."""
    return _check(lambda lib: _summary(lib, build, limit), "dataset")


def check_value(fn):
    """Compare ``describe(fn(tf))`` between the libraries, or the kind of error raised."""
    return _check(lambda lib: describe(fn(lib)), "result")
