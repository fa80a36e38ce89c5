"""``same(fn)`` of ``core_harness`` without the garbage collection of a full ``clear_session``.

``clear_session()`` runs ``gc.collect()`` (about 0.35 s with TensorFlow loaded, twice per case);
the building-block tests only need the session state reset, so they call
``clear_session(free_memory=False)`` on both libraries.
"""

import re

from compat_tests.keras.core_harness import ATOL, REAL, RTOL, VFW, assert_same, comparable, data  # noqa: F401

_SET_DISPLAY = re.compile(r"\{('[^{}]*')\}")


def sorted_sets(message):
    """``message`` with the items of displayed sets of strings sorted: Keras formats Python sets, whose
    order depends on how the set was built (for a literal, on the process that compiled Keras)."""
    return _SET_DISPLAY.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def run(fn, lib):
    """``fn(lib)`` after a session reset; an exception is returned as ``("raised", type name, message)``."""
    lib.keras.backend.clear_session(free_memory=False)
    try:
        return fn(lib)
    except Exception as e:  # compared with the other library's
        return ("raised", type(e).__name__, sorted_sets(str(e)))


def same(fn, rtol=RTOL, atol=ATOL):
    """Run ``fn`` on both libraries and assert the same results; returns vfw's raw result."""
    real = run(fn, REAL)
    ours = run(fn, VFW)
    assert_same(comparable(real), comparable(ours), rtol, atol)
    return ours
