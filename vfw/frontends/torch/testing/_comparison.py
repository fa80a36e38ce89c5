"""torch.testing.assert_close: tensors, numpy arrays, Python numbers and nested sequences/mappings."""

import collections.abc
import math
import numbers

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch

__all__ = ["assert_close"]

# torch's default (rtol, atol) per dtype; integer and bool dtypes compare exactly.
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


class _MismatchError(Exception):
    """A comparison failure: the exception type to raise and torch's message."""

    def __init__(self, exc_type, message):
        super().__init__(message)
        self.exc_type, self.message = exc_type, message


def _tolerances(np_dtypes, rtol, atol):
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(str(d), (0.0, 0.0)) for d in np_dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _is_tensor_like(x):
    return isinstance(x, (CoreTensor, np.ndarray))


def _is_number(x):
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, (bool, np.bool_))


def _close_scalars(a, e, rtol, atol, equal_nan):
    if a == e:
        return True
    if isinstance(a, complex) or isinstance(e, complex):
        if equal_nan and (math.isnan(abs(a)) and math.isnan(abs(e))):
            return True
    elif math.isnan(a) or math.isnan(e):
        return equal_nan and math.isnan(a) and math.isnan(e)
    if math.isinf(abs(a)) or math.isinf(abs(e)):
        return False
    return abs(a - e) <= atol + rtol * abs(e)


def _scalar_message(a, e, rtol, atol):
    exact = rtol == 0 and atol == 0
    abs_diff = abs(a - e)
    rel_diff = abs_diff / abs(e) if e != 0 else (math.inf if abs_diff else 0.0) if not math.isnan(abs_diff) \
        else math.nan
    lines = [f"Scalars are not {'equal' if exact else 'close'}!", "", f"Expected {e} but got {a}.",
             f"Absolute difference: {abs_diff}" + ("" if exact else f" (up to {atol} allowed)"),
             f"Relative difference: {rel_diff}" + ("" if exact else f" (up to {rtol} allowed)")]
    return "\n".join(lines)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected) and not (
            isinstance(actual, np.number) or isinstance(expected, np.number)):
        raise _MismatchError(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    a, e = actual.item() if isinstance(actual, np.number) else actual, \
        expected.item() if isinstance(expected, np.number) else expected
    kinds = [type(v) for v in (a, e)]
    if rtol is None:
        if complex in kinds:
            rtol, atol = _TOLERANCES["complex128"]
        elif float in kinds:
            rtol, atol = _TOLERANCES["float64"]
        else:
            rtol, atol = 0.0, 0.0
    if not _close_scalars(a, e, rtol, atol, equal_nan):
        raise _MismatchError(AssertionError, _scalar_message(a, e, rtol, atol))


def _attributes(actual, expected, check_device, check_dtype, check_layout, check_stride):
    def differ(name, a, e):
        raise _MismatchError(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")

    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if check_device and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    if check_layout and actual.layout != expected.layout:
        differ("layout", actual.layout, expected.layout)
    if check_stride and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout, check_stride):
    if isinstance(actual, np.ndarray) != isinstance(expected, np.ndarray):
        raise _MismatchError(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                   f"{type(expected)}.")
    if isinstance(actual, np.ndarray):
        actual, expected = _dispatch.wrap(np.asarray(actual)), _dispatch.wrap(np.asarray(expected))
    _attributes(actual, expected, check_device, check_dtype, check_layout, check_stride)
    a, e = actual.array, expected.array
    if a.dtype != e.dtype:  # check_dtype=False: compare in the promoted dtype
        common = _dispatch.result_dtype(actual, expected)
        a, e = a.astype(common), e.astype(common)
    rtol, atol = _tolerances((actual.array.dtype, expected.array.dtype), rtol, atol)
    if a.dtype.kind in "biu":
        # Integers are compared (and their differences reported) as int64, relative differences as float32.
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if a.dtype.kind in "fcV" or \
            str(a.dtype) == "bfloat16" else np.abs(a - e) <= atol + rtol * np.abs(e)
        if close.all():
            return
        if a.ndim == 0:
            raise _MismatchError(AssertionError, _scalar_message(a.item(), e.item(), rtol, atol))
        mismatched = ~close
        abs_diff = np.abs(a - e)
        abs_diff[close] = 0
        rel_diff = abs_diff / np.abs(e) if a.dtype.kind not in "iu" else \
            abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
        rel_diff[close] = 0
    exact = rtol == 0 and atol == 0
    n_bad, n = int(mismatched.sum()), mismatched.size
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {n_bad} / {n} ({n_bad / n:.1%})"]
    for label, diff, tol in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        flat = diff.reshape(-1)
        i = int(np.argmax(flat))
        index = tuple(int(k) for k in np.unravel_index(i, diff.shape))
        lines.append(f"Greatest {label} difference: {flat[i].item()} at index {index}"
                     + ("" if exact else f" (up to {tol} allowed)"))
    raise _MismatchError(AssertionError, "\n".join(lines))


def _path_text(path):
    return "".join(f"[{k!r}]" for k in path)


def _compare(actual, expected, path, opts):
    try:
        _compare_leaf_or_container(actual, expected, path, opts)
    except _MismatchError as m:
        if path and "The failure occurred for item" not in m.message and m.exc_type is AssertionError:
            m.message += f"\n\nThe failure occurred for item {_path_text(path)}"
        raise


def _compare_leaf_or_container(actual, expected, path, opts):
    if actual is None or expected is None:
        if actual is not expected:
            raise _MismatchError(AssertionError, f"None mismatch: {actual} is not {expected}")
        return
    if _is_tensor_like(actual) or _is_tensor_like(expected):
        if not (_is_tensor_like(actual) and _is_tensor_like(expected)):
            raise _MismatchError(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                       f"{type(expected)}.")
        _compare_tensors(actual, expected, **opts)
        return
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if bool(actual) != bool(expected):
            raise _MismatchError(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    if _is_number(actual) and _is_number(expected):
        _compare_numbers(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"], opts["check_dtype"])
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _MismatchError(AssertionError,
                                 f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (i,), opts)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        missing = sorted(set(expected) - set(actual), key=repr)
        extra = sorted(set(actual) - set(expected), key=repr)
        if missing or extra:
            lines = ["The keys of the mappings do not match:"]
            if missing:
                lines.append(f"Missing keys in the actual mapping: {missing}")
            if extra:
                lines.append(f"Additional keys in the actual mapping: {extra}")
            raise _MismatchError(AssertionError, "\n".join(lines))
        for k in expected:
            _compare(actual[k], expected[k], path + (k,), opts)
        return
    raise _MismatchError(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                               f"{type(expected)}.")


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Parameters
    ----------
    actual, expected : Tensor, numpy array, number, or sequence/mapping of those
        Compared element by element (containers recursively).
    rtol, atol : float, optional
        Tolerances (both or neither); by default torch's per-dtype values, exact for
        integers and bool. Elements pass when ``|actual - expected| <= atol + rtol * |expected|``.
    equal_nan : bool
        Treat two NaNs as equal.
    check_device, check_dtype, check_layout, check_stride : bool
        Which tensor attributes must match (without ``check_dtype`` values are compared
        in the promoted dtype).
    msg : str or callable, optional
        Replaces the failure message (a callable receives the generated message).

    Raises
    ------
    AssertionError
        When values or attributes differ.
    TypeError
        When the inputs cannot be compared with each other.
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'atol' if atol is None else 'rtol'}.")
    opts = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_device": check_device,
            "check_dtype": check_dtype, "check_layout": check_layout, "check_stride": check_stride}
    try:
        _compare(actual, expected, (), opts)
    except _MismatchError as m:
        message = m.message
        if m.exc_type is AssertionError and msg is not None:
            message = msg(message) if callable(msg) else msg
        raise m.exc_type(message) from None
