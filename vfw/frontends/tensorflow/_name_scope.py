"""tf.name_scope: the per-thread name prefix of variables (and modules) created inside it.

Eager TF does not make names unique: two variables created in ``name_scope("a")`` are both
``a/Variable:0``.
"""

import threading


class _Scope(threading.local):
    def __init__(self):
        self.prefix = ""


_scope = _Scope()


def current():
    """str: the name prefix in force (``""`` or ``"a/b/"``)."""
    return _scope.prefix


def _check(name):
    if not isinstance(name, str):
        raise ValueError("name for name_scope must be a string.")


def full_name(name, default):
    """The name ``name`` (``default`` when None) gets in the current scope, without the trailing slash.

    A name ending in ``/`` is absolute and ``""`` means the root, as when entering ``name_scope``.
    """
    name = default if name is None else name
    _check(name)
    scope = _entered(name)
    return scope[:-1] if scope.endswith("/") else scope


def _entered(name):
    """The prefix in force inside ``name_scope(name)`` entered now."""
    if not name or name.endswith("/"):
        return name
    return _scope.prefix + name + "/"


class name_scope:  # noqa: N801  (TF's name)
    """A context manager that prefixes the names of variables created inside it.

    Parameters
    ----------
    name : str
        The scope's name: entered inside scope ``a/`` it gives ``a/name/``; a name ending in
        ``/`` is absolute, and ``""`` resets to the root.

    Notes
    -----
    ``with tf.name_scope("a") as scope:`` binds ``scope`` to the prefix (``"a/"``).
    """

    def __init__(self, name):
        _check(name)
        self._name = name
        self._saved = []

    @property
    def name(self):
        """str: the name this scope was created with."""
        return self._name

    def __enter__(self):
        self._saved.append(_scope.prefix)
        _scope.prefix = _entered(self._name)
        return _scope.prefix

    def __exit__(self, *exc):
        _scope.prefix = self._saved.pop()
        return False
