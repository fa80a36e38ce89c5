"""tf.autograph: vfw has no AutoGraph (see ``_function``); its decorators and settings are accepted.

Inside tf.function, use tf.cond / tf.while_loop / tf.case / tf.switch_case for control flow on
tensor values: Python ``if``/``while`` on a tensor raises OperatorNotAllowedInGraphError while
tracing, and Python control flow on Python values unrolls.
"""

import enum
import sys
import types


def set_verbosity(level, alsologtostdout=False):
    """Accepted (vfw has no AutoGraph logging)."""


def trace(*args):
    """Print ``args`` (AutoGraph's tracing print, run when the code runs)."""
    print(*args, file=sys.stdout)


def _no_autograph(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"tf.autograph.{name}: vfw.tensorflow has no AutoGraph converter; write control "
                                  "flow on tensors with tf.cond / tf.while_loop")
    refuse.__doc__ = "Not supported: vfw has no AutoGraph converter."
    return refuse


to_graph = _no_autograph("to_graph")
to_code = _no_autograph("to_code")


def do_not_convert(func=None):
    """Decorator returning ``func`` unchanged (vfw never converts code)."""
    if func is None:
        return lambda f: f
    return func


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Accepted (AutoGraph loop options)."""


class Feature(enum.Enum):
    """AutoGraph's optional features (accepted, never applied)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


experimental = types.ModuleType("vfw.tensorflow.autograph.experimental", "AutoGraph options (accepted).")
experimental.do_not_convert = do_not_convert
experimental.set_loop_options = set_loop_options
experimental.Feature = Feature
