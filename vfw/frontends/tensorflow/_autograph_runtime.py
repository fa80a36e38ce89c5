"""AutoGraph's runtime: what converted code calls (as ``ag__``), and the conversion of functions.

Every helper runs plain Python when the value it decides on is a Python value, or a tensor
outside a graph trace (eagerly, ``bool(tensor)`` is the value); on a tensor while a tf.function
is traced it builds graph control flow with TF's rules (see :mod:`_autograph_control` for those).
"""

import builtins
import functools
import inspect
import linecache
import os
import sysconfig
import textwrap
import types
import weakref

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import _autograph_control, _autograph_datasets, _control_flow, _function
from vfw.frontends.tensorflow._autograph_control import NO_RETURN, Undefined, if_return, if_stmt, loop_options

__all__ = ["NO_RETURN", "Undefined", "if_return", "if_stmt", "loop_options", "values", "retval", "and_", "or_",
           "not_", "if_exp", "while_stmt", "for_stmt", "converted_call", "convert"]

while_stmt = _autograph_control.while_stmt


def for_stmt(iterable, extra_test, body, init, names, live, options, has_return):
    """The values of ``names`` after ``for item in iterable: body(item, ...)`` (while ``extra_test(...)``): a graph
    loop over a tensor or, while a tf.function is traced, over a ``tf.data`` dataset or iterator."""
    if _autograph_datasets.is_source(iterable) and _function.in_function_trace() and _control_flow._tracing_now():
        if has_return:
            _autograph_control._refuse_return()
        return _autograph_datasets.for_dataset(iterable, extra_test, body, init, names, live, options)
    return _autograph_control.for_stmt(iterable, extra_test, body, init, names, live, options, has_return)


def values(frame_locals, names):
    """The current values of ``names`` (:class:`Undefined` for those not bound yet)."""
    return tuple([frame_locals[n] if n in frame_locals else Undefined(n) for n in names])


def retval(value):
    """The function's result: None for a path that fell off its end."""
    return None if value is NO_RETURN else value


def _graph_value(x):
    return (isinstance(x, CoreTensor) or hasattr(x, "_as_tensor")) and _control_flow._tracing_now()


def and_(left, right):
    """``left() and right()``: on a tensor while tracing, a graph cond evaluating ``right`` when ``left`` holds."""
    a = left()
    if _graph_value(a):
        return _control_flow.cond(a, right, lambda: a)
    return a and right()


def or_(left, right):
    """``left() or right()``: on a tensor while tracing, a graph cond evaluating ``right`` when ``left`` fails."""
    a = left()
    if _graph_value(a):
        return _control_flow.cond(a, lambda: a, right)
    return a or right()


def not_(x):
    """``not x``: ``tf.logical_not`` of a tensor while tracing."""
    if _graph_value(x):
        from vfw.frontends.tensorflow._math_unary import logical_not

        return logical_not(x)
    return not x


def if_exp(test, true_value, false_value):
    """``true_value() if test else false_value()``: a graph cond on a tensor while tracing."""
    if _graph_value(test):
        return _control_flow.cond(_autograph_control.predicate(test, "if expression"), true_value, false_value)
    return true_value() if test else false_value()


# -- builtins AutoGraph converts ------------------------------------------------------------------
def _graph_args(args):
    return any(_graph_value(a) for a in args)


def _len(x):
    from vfw.frontends.tensorflow._creation import shape

    return shape(x)[0]


def _range(*args):
    from vfw.frontends.tensorflow._creation_sequences import range as tf_range

    return tf_range(*args)


def _dataset_builtin(func, args, kwargs):
    """``iter``/``enumerate`` of a dataset while a tf.function is traced (TF's AutoGraph builtins), else None."""
    if not args or not _function.in_function_trace():
        return None
    if func is builtins.iter and len(args) == 1 and not kwargs:
        return _autograph_datasets.iterator_in_function(args[0])
    if func is builtins.enumerate and _autograph_datasets.is_dataset(args[0]):
        return args[0].enumerate(*args[1:], **kwargs)
    return None


def _cast_builtin(dtype_name):
    def cast(x):
        from vfw.frontends.tensorflow import _dtypes
        from vfw.frontends.tensorflow._creation import cast as tf_cast

        return tf_cast(x, getattr(_dtypes, dtype_name))
    return cast


_BUILTINS = {builtins.len: _len, builtins.range: _range, builtins.int: _cast_builtin("int32"),
             builtins.float: _cast_builtin("float32")}


# -- calls ------------------------------------------------------------------------------------------
def converted_call(func, /, *args, **kwargs):
    """``func(*args, **kwargs)`` with ``func`` converted when it is user code (TF converts callees recursively)."""
    try:
        replacement = _BUILTINS.get(func)
    except TypeError:  # an unhashable callable
        replacement = None
    if replacement is not None and not kwargs and _graph_args(args):
        return replacement(*args)
    if func is builtins.iter or func is builtins.enumerate:
        dataset_result = _dataset_builtin(func, args, kwargs)
        if dataset_result is not None:
            return dataset_result
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        converted = convert(func.__func__)
        if converted is not func.__func__:
            return converted(func.__self__, *args, **kwargs)
    elif isinstance(func, types.FunctionType):
        return convert(func)(*args, **kwargs)
    return func(*args, **kwargs)


def _library_roots():
    import vfw

    paths = sysconfig.get_paths()
    roots = {os.path.dirname(os.path.abspath(vfw.__file__))}
    roots.update(os.path.abspath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths)
    return tuple(root.rstrip(os.sep) + os.sep for root in roots)


_LIBRARY_ROOTS = _library_roots()
_NOT_CONVERTED = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_codes = {}  # code object -> converted code (None: not convertible)
_converted = weakref.WeakKeyDictionary()  # function -> its converted function
_sources = {}  # converted code -> converted source text (tf.autograph.to_code)


def is_convertible(fn):
    """Whether ``fn`` is user code AutoGraph converts: a Python function with source, outside vfw, the
    standard library and installed packages, not a lambda, generator or ``do_not_convert`` function."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "__vfw_do_not_convert__", False):
        return False
    code = fn.__code__
    if code.co_filename.startswith("<"):  # exec'd code (doctest, IPython cells): user code when linecache has it
        user_code = bool(linecache.getlines(code.co_filename))
    else:
        user_code = not os.path.abspath(code.co_filename).startswith(_LIBRARY_ROOTS)
    return user_code and code.co_name != "<lambda>" and not code.co_flags & _NOT_CONVERTED


def convert(fn):
    """``fn`` with its control flow converted (``fn`` itself when it is not convertible user code)."""
    if isinstance(fn, types.MethodType):
        converted = convert(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    if not is_convertible(fn):
        return fn
    done = _converted.get(fn)
    if done is not None:
        return done
    code = fn.__code__
    if code not in _codes:
        _codes[code] = _converted_code(code)
    new_code = _codes[code]
    if new_code is None:
        _converted[fn] = fn
        return fn
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells["ag__"] = types.CellType(_RUNTIME)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple([cells[n] for n in new_code.co_freevars]))
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn, updated=())
    del new.__wrapped__
    new.__vfw_do_not_convert__ = True  # already converted
    _converted[fn] = new
    return new


def _converted_code(code):
    """The code object of ``code``'s function converted, or None when its source cannot be converted."""
    import ast

    from vfw.frontends.tensorflow._autograph_convert import convert_tree

    try:
        source = textwrap.dedent(inspect.getsource(code))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
        return None
    ast.increment_lineno(tree, code.co_firstlineno - 1)
    freevars = [n for n in code.co_freevars if n != "ag__"]
    try:
        module = convert_tree(node, freevars)
        namespace = {"__builtins__": builtins}
        exec(compile(module, code.co_filename, "exec"), namespace)  # noqa: S102  (the user's own code, converted)
    except (SyntaxError, ValueError, TypeError) as e:  # a construct the converter cannot express: run as written
        warn_for_user(f"AutoGraph could not transform {code.co_name} ({code.co_filename}:{code.co_firstlineno}) "
                      f"and will run it as-is: {e}")
        return None
    new_code = namespace["ag__factory"](*([None] * (len(freevars) + 1))).__code__
    if not set(new_code.co_freevars) <= set(freevars) | {"ag__"}:
        return None
    _sources[new_code] = ast.unparse(node)
    return new_code


def source_of(fn):
    """str: the converted source of ``fn`` (tf.autograph.to_code)."""
    converted = convert(fn)
    code = getattr(converted, "__code__", None)
    if code is None or code not in _sources:
        raise ValueError(f"tf.autograph.to_code: {fn!r} cannot be converted (no Python source)")
    return _sources[code]


_RUNTIME = types.SimpleNamespace(**{name: globals()[name] for name in __all__})
