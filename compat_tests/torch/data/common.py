"""Shared helpers for the torch.utils.data compat tests: run one scenario in real torch and in vfw.torch.

A scenario is ``fn(torch, data)`` written once against the torch API (``data`` is the
library's ``torch.utils.data``). ``check_same`` runs it in both libraries and compares the
results (tensors by dtype, shape and value, containers by structure), the warnings given,
and, when torch raises, the exception type and message.
"""

import re
import warnings

import pytest
import vfw.torch as vt
import vfw.torch.utils.data as vfw_data

from compat_tests.torch.harness import assert_same, real, to_numpy

real_data = pytest.importorskip("torch.utils.data")

BOTH = ((real, real_data), (vt, vfw_data))
LIBS = pytest.mark.parametrize("lib,data", BOTH, ids=["torch", "vfw"])


def run(fn, lib, data):
    """``(result, exception, warnings)`` of ``fn(lib, data)``; warnings as ``(category name, message)``.

    Object addresses in warning messages (reprs of datasets) are blanked.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = fn(lib, data), None
        except Exception as e:  # noqa: BLE001  (an exception is a result to compare)
            result, error = None, e
    return result, error, [(w.category.__name__, re.sub("0x[0-9a-f]+", "0x?", str(w.message))) for w in caught]


def check_same(fn, message=True):
    """Run ``fn(torch, data)`` in both libraries: same results, warnings, and exception type (and message)."""
    want, want_error, want_warnings = run(fn, real, real_data)
    got, got_error, got_warnings = run(fn, vt, vfw_data)
    assert got_warnings == want_warnings
    if want_error is not None:
        assert type(got_error) is type(want_error), f"torch raised {want_error!r}; vfw gave {got_error!r} / {got!r}"
        if message:
            assert str(got_error) == str(want_error)
        return want_error, got_error
    if got_error is not None:
        raise AssertionError(f"vfw raised {got_error!r}; torch returned {want!r}") from got_error
    assert_same(to_numpy(want), to_numpy(got))
    return want, got
