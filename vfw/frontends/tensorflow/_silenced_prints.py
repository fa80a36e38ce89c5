"""Python ``print`` silenced in the runs of user code that vfw makes and TF does not.

vfw's graphs are traced for concrete shapes, so it runs a traced Python function again for shapes a TF trace already
covers (a new batch size under an input signature's ``None`` dim), and Keras' shape inference runs a layer's ``call``
at a second size for its ``None`` dims.  TF runs that Python once: its ``print`` calls show once.  In vfw's extra
runs they print nothing (on the thread making the run; ``tf.print`` is an op and still prints).  Other Python side
effects (appending to a list, counters) still happen in those runs.
"""

import builtins
import contextlib
import threading

_state = threading.local()
_shown = {"print": None}  # the print that was installed when the first silenced run began


def _print(*args, **kwargs):
    if getattr(_state, "depth", 0):
        return None
    return _shown["print"](*args, **kwargs)


@contextlib.contextmanager
def silenced_prints():
    """Run the block with ``print`` calls made on this thread discarded."""
    depth = getattr(_state, "depth", 0)
    install = builtins.print is not _print
    if install:
        _shown["print"] = builtins.print
        builtins.print = _print
    _state.depth = depth + 1
    try:
        yield
    finally:
        _state.depth = depth
        if install and builtins.print is _print:
            builtins.print = _shown["print"]
