"""Keras object names and paths: per-session name counters and ``keras.name_scope``.

Names
-----
A Keras object without an explicit name gets its class name in snake case, made unique by a
per-session counter: ``dense``, ``dense_1``, ``dense_2``... (``keras_tensor``, ``keras_tensor_1``
for symbolic tensors, ``variable`` for variables).

Sessions
--------
``reset_session()`` is what ``keras.backend.clear_session()`` runs: it starts every name counter
afresh and calls the reset hooks other modules registered with ``on_session_reset(fn)`` (the
global dtype policy, the global seed generator...).

Paths
-----
``keras.name_scope(name)`` pushes ``name`` on the path stack: a variable created inside has the path
``outer/inner/<variable name>``.  A layer opens its own scope around ``build`` and ``call``; it
remembers the path it was first used under (``parent_path``), so a layer built from inside another
layer keeps the same path however it is reached later.  The scope also enters ``tf.name_scope`` so
the wrapped tf.Variable is named ``outer/inner/<name>:0``, as with Keras on TensorFlow.
"""

import collections
import contextlib
import re
import threading

from vfw.frontends.tensorflow import _name_scope as _tf_name_scope


class _SessionState(threading.local):
    def __init__(self):
        self.name_scopes = []


_uids = collections.defaultdict(int)
_state = _SessionState()


def to_snake_case(name):
    """``MyLayer`` -> ``my_layer``, ``HTTPServer`` -> ``http_server`` (Keras' default names)."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def uniquify(name):
    """``name`` the first time it is asked for in a session, then ``name_1``, ``name_2``..."""
    count = _uids[name]
    _uids[name] = count + 1
    return f"{name}_{count}" if count else name


def auto_name(class_name):
    """A unique name for a new object of class ``class_name``."""
    return uniquify(to_snake_case(class_name))


def get_uid(prefix=""):
    """Count one more ``prefix`` and return the count (1 the first time): ``keras.backend.get_uid``."""
    _uids[prefix] += 1
    return _uids[prefix]


def counters():
    """A copy of the session's name counters, for :func:`restore_counters`."""
    return dict(_uids)


def restore_counters(saved):
    """Put back the name counters :func:`counters` copied (the names taken since are free again)."""
    _uids.clear()
    _uids.update(saved)


@contextlib.contextmanager
def preserved_counters():
    """Run a block whose new objects leave the session's name counters as they were (``dense`` stays next)."""
    saved = counters()
    try:
        yield
    finally:
        restore_counters(saved)


_session_resets = []


def on_session_reset(reset):
    """Register ``reset()`` to run at every ``reset_session()`` (module-level Keras state); returns it."""
    _session_resets.append(reset)
    return reset


def reset_session():
    """Forget the session's Keras state: name counters and the state of the registered hooks."""
    _uids.clear()
    for reset in _session_resets:
        reset()


def check_name(name):
    """Keras' check of a ``name`` argument (a string without ``/``)."""
    if not isinstance(name, str) or "/" in name:
        raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                         f"Received: name={name} (of type {type(name)})")


class name_scope:  # noqa: N801  (Keras' name)
    """Open a sub-namespace of variable paths: ``with keras.name_scope("block"): ...``.

    Parameters
    ----------
    name : str
        The scope's name (no ``/``).
    caller : object, optional
        The object opening the scope.  A caller re-entering the scope it is already in does not
        nest it again; a caller with a ``_parent_path`` opens its scope under that path.
    deduplicate : bool
        Whether the two caller rules above apply (default True).
    override_parent : str, optional
        An absolute parent path replacing the enclosing scopes.
    """

    def __init__(self, name, caller=None, deduplicate=True, override_parent=None):
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                             f"Received: name={name}")
        self.name = name
        self.caller = caller
        self.deduplicate = deduplicate
        if override_parent is None and deduplicate:
            override_parent = getattr(caller, "_parent_path", None)
        self.override_parent = override_parent
        self._tf_scope = None

    def __enter__(self):
        stack = _state.name_scopes
        if self.deduplicate and stack and self.caller is not None:
            top = stack[-1]
            if top.caller is self.caller and top.name == self.name:
                return self
        stack.append(self)
        self._tf_scope = _tf_name_scope.name_scope(current_path() + "/")
        self._tf_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._tf_scope is not None:
            self._tf_scope.__exit__(*exc)
            self._tf_scope = None
            _state.name_scopes.pop()
        return False


def current_path():
    """str: the path of the open name scopes (``"outer/inner"``, ``""`` outside any)."""
    parts = []
    for scope in _state.name_scopes:
        if scope.override_parent is not None:
            parts = [p for p in scope.override_parent.split("/") if p]
        parts.append(scope.name)
    return "/".join(parts)


API = {"keras": ["name_scope"]}
