"""Warnings reported at the user's line, as the real frameworks report theirs.

torch and TensorFlow attribute their Python warnings to the line of user code that called the API
(``warnings.warn(..., stacklevel=k)`` with ``k`` fitted to their own call depth). vfw's call depth differs and
varies (autocast wrappers, in-place dispatch paths, decorators), so a fixed ``stacklevel`` would point inside
vfw. :func:`warn_for_user` instead walks the stack to the first frame outside the vfw package, which stays right
whatever wrappers sit in between (Python 3.12's ``skip_file_prefixes`` does the same, but vfw supports 3.10+).
"""

import os
import sys
import warnings

# every vfw source file lies under this prefix: co_filename and __file__ come from the same import path
_VFW_PREFIX = os.path.dirname(os.path.dirname(__file__)) + os.sep


def _is_skipped(filename):
    # vfw's own frames, and the importlib bootstrap frames that warnings.warn's stacklevel also skips
    return filename.startswith(_VFW_PREFIX) or ("importlib" in filename and "_bootstrap" in filename)


def warn_for_user(message, category=UserWarning):
    """Issue ``message`` as a ``category`` warning attributed to the nearest caller outside vfw.

    Parameters
    ----------
    message : str or Warning
        The warning text (or a ``Warning`` instance, whose class then overrides ``category``).
    category : type, optional
        A ``Warning`` subclass; ``UserWarning`` by default, as ``warnings.warn``.

    Notes
    -----
    The warning goes through ``warnings.warn_explicit`` with the filename, line, module name and
    ``__warningregistry__`` of that frame, which is what ``warnings.warn`` uses for its frame: filters
    (``"error"``, ``"once"``, ``"default"``, ``catch_warnings``) behave exactly as for a stacklevel warning.
    """
    frame = sys._getframe(1)
    while frame is not None and _is_skipped(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:  # only vfw frames (e.g. a warning at vfw's own import): Python's fallback location
        warnings.warn(message, category, stacklevel=2)
        return
    # no module_globals: C warn_explicit then asks the frame's loader for the source by __name__, which fails
    # for a module run as __main__ (python -m); showwarning reads the line through linecache by filename instead
    caller_globals = frame.f_globals
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                           module=caller_globals.get("__name__", "<string>"),
                           registry=caller_globals.setdefault("__warningregistry__", {}))


_warned_once = set()  # the sites (or keys) warn_once has warned for in this process


def warn_once(message, category=UserWarning, key=None):
    """:func:`warn_for_user`, the first time only for this call site (or ``key``) in the process.

    torch emits some warnings once per process (its ``TORCH_WARN_ONCE`` sites): later calls stay silent also
    under ``warnings.simplefilter("always")``, which re-emits every ``warnings.warn``.

    Parameters
    ----------
    message : str or Warning
    category : type, optional
        A ``Warning`` subclass; ``UserWarning`` by default.
    key : hashable, optional
        What identifies the site when one line of vfw warns for several of torch's sites (e.g. the function
        name); by default the calling line.
    """
    if key is None:
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
    if key in _warned_once:
        return
    _warned_once.add(key)
    warn_for_user(message, category)
