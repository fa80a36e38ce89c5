"""tf.autograph: AutoGraph's public surface (the converter is ``_autograph_*``; tf.function applies it).

``to_graph`` converts a function's Python control flow on tensors into graph control flow (it
runs as Python eagerly, and builds tf.cond/tf.while_loop when called inside a tf.function),
``to_code`` gives the converted source, ``do_not_convert`` marks a function to run as written.
"""

import enum
import functools
import sys
import types

from vfw.frontends.tensorflow import _autograph_runtime

_verbosity = [0]


def set_verbosity(level, alsologtostdout=False):
    """Set AutoGraph's logging level (vfw's converter logs nothing; the level is kept, as TF keeps it)."""
    _verbosity[0] = int(level)


def trace(*args):
    """Print ``args`` (AutoGraph's tracing print, run when the code runs)."""
    print(*args, file=sys.stdout)


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` (a Python function or method) with its control flow converted by AutoGraph.

    Parameters
    ----------
    entity : function or bound method
    recursive : bool
        Accepted (functions it calls are converted when called, as in tf.function).
    experimental_optional_features
        Accepted.

    Returns
    -------
    The converted function (``entity`` itself when it has no Python source, as a builtin).
    """
    if not callable(entity):
        raise ValueError(f"Expected a Python function or method, got {entity!r}")
    return _autograph_runtime.convert(entity)


def to_code(entity, recursive=True, experimental_optional_features=None):
    """str: the Python source of ``entity`` converted by AutoGraph (vfw's own form of it)."""
    return _autograph_runtime.source_of(getattr(entity, "__func__", entity))


def do_not_convert(func=None):
    """Decorator: ``func`` runs as written inside tf.function (AutoGraph leaves it and its callees alone)."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def unconverted(*args, **kwargs):
        return func(*args, **kwargs)

    unconverted.__vfw_do_not_convert__ = True
    return unconverted


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Options of the loop whose body starts with this call (``shape_invariants``: ``[(tensor, shape), ...]`` for
    loop variables whose shapes change; ``maximum_iterations``).  AutoGraph reads the call from the loop's source;
    called elsewhere it does nothing."""


class Feature(enum.Enum):
    """AutoGraph's optional features (accepted, never applied)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


experimental = types.ModuleType("vfw.tensorflow.autograph.experimental", "AutoGraph options.")
experimental.do_not_convert = do_not_convert
experimental.set_loop_options = set_loop_options
experimental.Feature = Feature
