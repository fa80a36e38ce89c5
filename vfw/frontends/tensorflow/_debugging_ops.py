"""tf.debugging: value assertions (InvalidArgumentError when they fail), static shape/type checks
(ValueError/TypeError), check_numerics, Assert and is_numeric_tensor.

As in TF 2 eager code, a passing value assertion returns None (``check_numerics`` and
``assert_all_finite`` return their tensor). Under a graph trace a value assertion is a PyFunc op,
so that every run of the graph checks that run's values.
"""

import ml_dtypes
import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op, op_error, operands
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._traced_shapes import pinned

_SUMMARIZE = 3  # entries TF shows of each tensor by default
_IDENTITY = op("Identity")


def _checked(check, *tensors):
    """Run ``check(*arrays)`` (raises on failure) now, or on every graph run under a trace (a PyFunc op)."""
    def run_check(*arrays):
        check(*arrays)
        return np.zeros(0, np.bool_)  # (a PyFunc gives an output; nothing reads it)
    try:
        host(run_check, *tensors)
    except errors.InvalidArgumentError as e:
        e.at_run_time = True  # (a failed check is TF's graph-run error, even when a trace meets it: not a shape error)
        raise


def _prefix(message):
    return f"{message}\n" if message else ""


def _first(array, summarize):
    flat = array.reshape(-1)
    return flat[:summarize if summarize is not None and summarize >= 0 else flat.size]


# -- comparisons -------------------------------------------------------------------------------------------------
def _comparison(name, symbol, numpy_op, tf_op):
    """``name``: raise InvalidArgumentError unless ``x {symbol} y`` holds everywhere (x and y broadcast)."""
    def assertion(x, y, message=None, summarize=None, name=None):
        a, b = operands(x, y, tf_op)
        try:
            np.broadcast_shapes(a.array.shape, b.array.shape)
        except ValueError:
            raise op_error(f"Incompatible shapes: [{','.join(map(str, a.array.shape))}] vs. "
                           f"[{','.join(map(str, b.array.shape))}]", tf_op) from None
        count = _SUMMARIZE if summarize is None else summarize

        def check(xa, ya):
            holds = numpy_op(xa, ya)
            if holds.all():
                return
            lines = [f"{_prefix(message)}Condition x {symbol} y did not hold."]
            if xa.shape == ya.shape:
                failed = np.argwhere(~holds)[:count]
                lines += [f"Indices of first {len(failed)} different values:", str(failed),
                          "Corresponding x values:", str(xa[tuple(failed.T)]),
                          "Corresponding y values:", str(ya[tuple(failed.T)])]
            for label, values in (("x", xa), ("y", ya)):
                shown = _first(values, count)
                lines += [f"First {shown.size} elements of {label}:", str(shown)]
            raise op_error("\n".join(lines))

        _checked(check, a, b)

    assertion.__name__ = assertion.__qualname__ = name
    assertion.__doc__ = f"Raise InvalidArgumentError unless ``x {symbol} y`` holds everywhere (x and y broadcast)."
    return assertion


assert_equal = _comparison("assert_equal", "==", np.equal, "Equal")
assert_none_equal = _comparison("assert_none_equal", "!=", np.not_equal, "NotEqual")
assert_less = _comparison("assert_less", "<", np.less, "Less")
assert_less_equal = _comparison("assert_less_equal", "<=", np.less_equal, "LessEqual")
assert_greater = _comparison("assert_greater", ">", np.greater, "Greater")
assert_greater_equal = _comparison("assert_greater_equal", ">=", np.greater_equal, "GreaterEqual")


def _sign_check(name, symbol, numpy_op):
    """``name``: raise InvalidArgumentError unless ``x {symbol} 0`` holds everywhere."""
    def assertion(x, message=None, summarize=None, name=None):
        t = convert_to_tensor(x)
        count = _SUMMARIZE if summarize is None else summarize

        def check(xa):
            if numpy_op(xa, 0).all():
                return
            shown = [str(v) for v in _first(xa, count)]
            raise op_error(f"{message or ''}\nCondition x {symbol} 0 did not hold element-wise:\nx (shape="
                           f"{TensorShape(xa.shape)} dtype={_dtypes.of_array(xa).name}) = \n{shown}")

        _checked(check, t)

    assertion.__name__ = assertion.__qualname__ = name
    assertion.__doc__ = f"Raise InvalidArgumentError unless ``x {symbol} 0`` holds everywhere."
    return assertion


assert_positive = _sign_check("assert_positive", ">", np.greater)
assert_negative = _sign_check("assert_negative", "<", np.less)
assert_non_negative = _sign_check("assert_non_negative", ">=", np.greater_equal)
assert_non_positive = _sign_check("assert_non_positive", "<=", np.less_equal)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless ``|x - y| <= atol + rtol * |y|`` everywhere.

    ``rtol`` and ``atol`` default to 10 machine epsilons of the (float) dtype.
    """
    a = convert_to_tensor(x)
    try:
        b = convert_to_tensor(y, _dtypes.of_array(a.array))
    except ValueError as e:
        raise ValueError(f"y: {e}") from None
    np_dtype = a.array.dtype
    if np_dtype.kind not in "fc":
        raise ValueError(f"data type {np_dtype.type} not inexact")
    eps = float(ml_dtypes.finfo(np_dtype).eps)
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    count = _SUMMARIZE if summarize is None else summarize

    def check(xa, ya):
        if (np.abs(xa - ya) <= atol + rtol * np.abs(ya)).all():
            return
        dtype = _dtypes.of_array(xa).name
        values = [", ".join(str(v) for v in _first(v_, count)) for v_ in (xa, ya)]
        raise op_error(f"{_prefix(message)}Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized "
                       f"data: b''\nb'x and y not equal to tolerance rtol = {rtol}, atol = {atol}'\n"
                       f"b'x (shape={TensorShape(xa.shape)} dtype={dtype}) = '\n{values[0]}\n"
                       f"b'y (shape={TensorShape(ya.shape)} dtype={dtype}) = '\n{values[1]}")

    _checked(check, a, b)


# -- static checks -----------------------------------------------------------------------------------------------
def _rank_value(rank):
    value = convert_to_tensor(rank)
    if value.array.ndim:
        raise ValueError("Rank must be a scalar.")
    pinned(value, (int(value.array),), "rank", "AssertRank")
    return int(value.array)


def _static_text(t):
    return f"Received rank {t.array.ndim}, shape {t.array.shape}"


def assert_rank(x, rank, message=None, name=None):
    """Raise ValueError unless ``x`` has rank ``rank``."""
    t = convert_to_tensor(x)
    wanted = _rank_value(rank)
    if t.array.ndim != wanted:
        raise ValueError(f"{message or ''}Tensor  must have rank {wanted}.  {_static_text(t)}")


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise ValueError unless ``x`` has rank ``rank`` or more."""
    t = convert_to_tensor(x)
    wanted = _rank_value(rank)
    if t.array.ndim < wanted:
        raise ValueError(f"{message or ''}Tensor  must have rank at least {wanted}.  {_static_text(t)}")


def assert_rank_in(x, ranks, message=None, name=None):
    """Raise ValueError unless the rank of ``x`` is one of ``ranks``."""
    t = convert_to_tensor(x)
    wanted = tuple(_rank_value(r) for r in ranks)
    if t.array.ndim not in wanted:
        raise ValueError(f"{message or ''}Tensor  must have rank in {wanted}.  {_static_text(t)}")


def _tensortext(t):
    return f"Tensor shape={TensorShape(t.array.shape)} dtype={_dtypes.of_array(t.array).name}"


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Raise ValueError unless each tensor's shape fits its spec, with symbols equal across tensors.

    Parameters
    ----------
    shapes : list of (tensor, spec) pairs, or a dict tensor -> spec
        A spec lists dims: ints (that size), strings (a symbol: the same size wherever it
        appears), ``None`` (any size); a leading ``...`` or ``"*"`` matches any leading dims.
    """
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    bound = {}
    for value, spec in pairs:
        t = convert_to_tensor(value)
        if not hasattr(spec, "__iter__") and not hasattr(spec, "__getitem__"):
            raise ValueError(f"{_tensortext(t)}.  Specified shape must be an iterable.  An iterable has the "
                             f"attribute `__iter__` or `__getitem__`.  Received specified shape: {spec}")
        dims = list(spec)
        shape = t.array.shape
        if dims and (dims[0] is Ellipsis or dims[0] in ("...", "*")):
            dims = dims[1:]
            if len(shape) < len(dims):
                raise ValueError(f"{message or ''}Tensor  must have rank at least {len(dims)}.  {_static_text(t)}")
            offset = len(shape) - len(dims)
        else:
            if len(shape) != len(dims):
                raise ValueError(f"{message or ''}Tensor  must have rank {len(dims)}.  {_static_text(t)}")
            offset = 0
        for i, dim in enumerate(dims):
            axis = offset + i
            size = shape[axis]
            if dim is None:
                continue
            if isinstance(dim, str):
                if dim not in bound:
                    bound[dim] = (size, t, axis)
                    continue
                expected, origin, origin_axis = bound[dim]
                where = f"Specified by {_tensortext(origin)} dimension {origin_axis}"
            else:
                expected, where = int(dim), "Specified explicitly"
            if size != expected:
                raise ValueError(f"{message or ''}{where}.  {_tensortext(t)} dimension {axis} must have size "
                                 f"{expected}.  Received size {size}, shape {shape}")


def assert_type(tensor, tf_type, message=None, name=None):
    """Raise TypeError unless ``tensor`` has dtype ``tf_type``."""
    t = convert_to_tensor(tensor)
    wanted = _dtypes.as_dtype(tf_type)
    found = _dtypes.of_array(t.array)
    if found != wanted:
        raise TypeError(f"{message + ', ' if message else ''}tensor must be of type {wanted!r}; got {found!r}")


def assert_integer(x, message=None, name=None):
    """Raise TypeError unless ``x`` has an integer dtype."""
    found = _dtypes.of_array(convert_to_tensor(x).array)
    if not found.is_integer:
        raise TypeError(f'{message or ""}Expected "x" to be integer type.  Found: tensor of dtype '
                        f"<dtype: '{found.name}'>")


def assert_scalar(tensor, name=None, message=None):
    """Raise ValueError unless ``tensor`` is a scalar."""
    t = convert_to_tensor(tensor)
    if t.array.ndim:
        raise ValueError(f"{message or ''}Expected scalar shape, saw shape: {TensorShape(t.array.shape)}.")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common float dtype of ``tensors`` (and ``dtype``); ValueError when they differ or are not floats."""
    found = None if dtype is None else _dtypes.as_dtype(dtype)
    first = None
    for t in tensors or []:
        current = _dtypes.of_array(convert_to_tensor(t).array)
        if found is None:
            found, first = current, t
        elif current != found:
            raise ValueError(f"{t}, type=<dtype: '{current.name}'>, must be of the same type (<dtype: "
                             f"'{found.name}'>) as {first}.")
    found = _dtypes.float32 if found is None else found
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got <dtype: '{found.name}'>.")
    return found


def assert_proper_iterable(values):
    """Raise TypeError unless ``values`` is an iterable other than a string, array or tensor."""
    if isinstance(values, (str, bytes, np.ndarray, CoreTensor)) or not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')


# -- numerics and Assert -----------------------------------------------------------------------------------------
def check_numerics(tensor, message, name=None):
    """``tensor`` itself, after checking it holds no NaN or Inf (InvalidArgumentError naming which)."""
    t = convert_to_tensor(tensor)
    dtype = _dtypes.of_array(t.array)
    if not dtype.is_floating:
        raise op_error(f"Value for attr 'T' of {dtype.name} is not in the list of allowed values: bfloat16, half, "
                       "float, double", "CheckNumerics")

    def check(a):
        has_nan, has_inf = bool(np.isnan(a).any()), bool(np.isinf(a).any())
        if has_nan or has_inf:
            what = "Inf and NaN" if has_nan and has_inf else "NaN" if has_nan else "Inf"
            raise op_error(f"{message} : Tensor had {what} values", "CheckNumerics")

    _checked(check, t)
    return call(_IDENTITY, t, tf_op="CheckNumerics")


def assert_all_finite(x, message, name=None):
    """``x`` itself, after checking it holds no NaN or Inf (see ``check_numerics``)."""
    return check_numerics(x, message)


def _data_text(item, summarize):
    if isinstance(item, str):
        return repr(item.encode())
    if isinstance(item, bytes):
        return repr(item)
    values = np.asarray(convert_to_tensor(item).array).reshape(-1)
    shown = [str(v) for v in values[:summarize]]
    return ", ".join(shown + (["..."] if values.size > summarize else []))


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TF's name)
    """Raise InvalidArgumentError showing ``data`` unless ``condition`` (a bool or scalar bool tensor) holds."""
    count = _SUMMARIZE if summarize is None else summarize
    cond = condition if isinstance(condition, CoreTensor) else None

    def fail():
        shown = "\n".join(_data_text(d, count) for d in data)
        raise op_error(f"Expected '{condition}' to be true. Summarized data: {shown}")

    if cond is None:
        if not condition:
            fail()
        return None
    _checked(lambda c: None if c.all() else fail(), convert_to_tensor(cond))
    return None


def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a tensor of a numeric (not bool or string) dtype."""
    if not isinstance(tensor, CoreTensor):
        return False
    dtype = _dtypes.of_array(convert_to_tensor(tensor).array)
    return dtype.is_floating or dtype.is_integer or dtype.is_complex or dtype.is_quantized


# -- settings that only change what is printed -------------------------------------------------------------------
_settings = {"traceback_filtering": True, "log_device_placement": False}


def enable_traceback_filtering():
    """Turn on TF's traceback filtering flag (vfw's tracebacks are not filtered; the flag is kept)."""
    _settings["traceback_filtering"] = True


def disable_traceback_filtering():
    """Turn off TF's traceback filtering flag."""
    _settings["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    """bool: the traceback filtering flag."""
    return _settings["traceback_filtering"]


def set_log_device_placement(enabled):
    """Set the device placement logging flag (every op runs on the CPU; nothing is logged)."""
    _settings["log_device_placement"] = bool(enabled)


def get_log_device_placement():
    """bool: the device placement logging flag."""
    return _settings["log_device_placement"]


NAMESPACES = {
    "tf": ["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"],
    "debugging": ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal",
                  "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
                  "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
                  "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
                  "assert_same_float_dtype", "assert_scalar", "assert_shapes", "assert_type", "check_numerics",
                  "is_numeric_tensor", "enable_traceback_filtering", "disable_traceback_filtering",
                  "is_traceback_filtering_enabled", "set_log_device_placement", "get_log_device_placement"],
}
TENSOR_METHODS = {}
