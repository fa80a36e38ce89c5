"""torch.serialization's allowlist of user globals (``add_safe_globals`` and friends).

``torch.load`` rebuilds only the fixed table of ``_unpickler``; a checkpoint naming anything else is refused
unless the user listed that class or function here.  A listed global is resolved to the object the user gave
(never imported by the name in the file), and only listed classes are instantiated or given state.
"""

import contextlib
import pickletools

_user_globals = []  # what the user listed, in order: objects or (object, "module.name") pairs


def _entry_name(entry):
    """``(object, "module.qualname")`` of one allowlist entry."""
    if isinstance(entry, tuple):
        return entry
    return entry, f"{entry.__module__}.{entry.__qualname__}"


def add_safe_globals(safe_globals):
    """Allow ``torch.load(weights_only=True)`` to rebuild these classes and call these functions.

    Parameters
    ----------
    safe_globals : list
        Classes/functions, or ``(object, "module.name")`` pairs naming an object as a checkpoint spells it
        (for objects whose module path differs from where they were saved).
    """
    for entry in list(safe_globals):  # a set in torch: listing an entry twice keeps one
        if entry not in _user_globals:
            _user_globals.append(entry)


def clear_safe_globals():
    """Forget every global added with :func:`add_safe_globals`."""
    _user_globals.clear()


def get_safe_globals():
    """The globals added with :func:`add_safe_globals` (a new list)."""
    return list(_user_globals)


class safe_globals(contextlib.ContextDecorator):  # noqa: N801  (torch's name: a context manager)
    """Context manager (or decorator) adding ``safe_globals`` to the allowlist while it is active.

    Parameters
    ----------
    safe_globals : list
        As for :func:`add_safe_globals`.
    """

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals
        self._saved = None

    def __enter__(self):
        self._saved = get_safe_globals()
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _user_globals[:] = self._saved
        return False


def lookup(wanted):
    """The user-listed object a checkpoint names ``wanted`` (``"module.qualname"``), or None."""
    for entry in reversed(_user_globals):
        value, entry_name = _entry_name(entry)
        if entry_name == wanted:
            return value
    return None


def is_listed(value):
    """Whether ``value`` (a class or function) is one the user listed."""
    return any(_entry_name(entry)[0] is value for entry in _user_globals)


_STRINGS = frozenset({"UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "STRING", "BINSTRING",
                      "SHORT_BINSTRING"})


def globals_named(pickle_bytes):
    """The ``module.name`` of every global a pickle names, in first-use order (without running it)."""
    found, pushed, memo = [], [], {}
    for opcode, arg, _ in pickletools.genops(pickle_bytes):
        kind = opcode.name
        if kind in _STRINGS:
            pushed.append(arg)
        elif kind in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = pushed[-1] if pushed else None
        elif kind == "MEMOIZE":
            memo[len(memo)] = pushed[-1] if pushed else None
        elif kind in ("GET", "BINGET", "LONG_BINGET"):
            pushed.append(memo.get(arg))
        elif kind in ("GLOBAL", "STACK_GLOBAL"):
            module, name = arg.split(" ", 1) if kind == "GLOBAL" else (pushed[-2:] + [None, None])[:2]
            found.append(f"{module}.{name}")
            pushed.append(None)
        else:
            pushed.append(None)  # a value that is not a string: STACK_GLOBAL reads only the two last pushes
    return list(dict.fromkeys(found))
